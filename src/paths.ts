// The project's root directory, found from this module's own location: the nearest directory above it holding
// package.json. The same answer whether the code runs from src/ (tsx, tests) or from a build under dist/.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${from}`)
  }
}

export const ROOT = findRoot(path.dirname(fileURLToPath(import.meta.url)))
