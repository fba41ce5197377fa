// `npm start`: build (scripts/build.mjs, a fraction of a second; nothing when unchanged), then run the service
// from the build in this same process, so signals (SIGTERM drains and flushes) reach it directly.
import module from 'node:module'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { build, ROOT } from './build.mjs'

// V8's code cache for the modules (Node ≥ 22.1; absent on older Node): later starts skip compiling them again
module.enableCompileCache?.(path.join(ROOT, 'dist', 'compile-cache'))

const out = await build(['src'])
await import(pathToFileURL(path.join(out, 'src', 'main.js')).href)
