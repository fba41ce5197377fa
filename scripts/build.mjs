// The production build: every TypeScript file under the given folders transpiled to JavaScript by esbuild (no
// bundling, no type check; `npm run typecheck` does that), so `npm start` runs plain node without the tsx loader
// (its loader thread and transform caches cost ~85 MB of resident memory). Builds are content-addressed under
// dist/<hash>/: an unchanged tree starts from the existing build, and processes starting at the same time never
// write into a build another one is running (a build is written aside, then renamed into place).
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import * as esbuild from 'esbuild'

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const DIST = path.join(ROOT, 'dist')
const STALE_MS = 24 * 3600_000
let queue = Promise.resolve()

/**
 * V8 heap sizing for the service process (package.json's start script passes the same flags; a test keeps them
 * equal). Left to its defaults, V8 lets the heap grow to ~3× what is live under load (the embedded store serves
 * from the same process, so every request's garbage shares it with the data): 8 MB semi-spaces and a 1.6× growth
 * factor keep the resident set ~150 MB smaller after a burst of requests, at ≤ 5-10 % of throughput (docs/performance.md).
 */
export const NODE_FLAGS = ['--max-semi-space-size=8', '--heap-growing-percent=60']

function sources(dir) {
  const out = []
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name)
    if (e.isDirectory()) out.push(...sources(p))
    else if (e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) out.push(p)
  }
  return out
}

/**
 * Build `dirs` (relative to the project root) and return the build's root: dist/<hash>, laid out like the project
 * (dist/<hash>/src/main.js for src/main.ts). Files outside the tree (schema/, prisma/, src/dashboard/public) are
 * read from the project root, which the code finds by walking up to package.json (src/paths.ts).
 */
export function build(dirs = ['src']) {
  // one build at a time in a process: esbuild.stop() ends the service every build in flight shares
  const run = queue.then(() => buildNow(dirs))
  queue = run.catch(() => {})
  return run
}

async function buildNow(dirs) {
  const files = dirs.flatMap((d) => sources(path.join(ROOT, d))).sort()
  const hash = createHash('sha256').update(`esbuild ${esbuild.version}\n`)
  for (const f of files) hash.update(`${path.relative(ROOT, f)}\n`).update(fs.readFileSync(f)).update('\n')
  const out = path.join(DIST, hash.digest('hex').slice(0, 16))
  if (!fs.existsSync(out)) {
    const tmp = `${out}.tmp-${process.pid}`
    try {
      await esbuild.build({ entryPoints: files, outdir: tmp, outbase: ROOT, format: 'esm', platform: 'node', target: 'node20', logLevel: 'warning' })
    } finally {
      await esbuild.stop()
    }
    try {
      fs.renameSync(tmp, out)
    } catch {
      fs.rmSync(tmp, { recursive: true, force: true }) // another process finished the same build first
    }
  }
  const now = Date.now()
  fs.utimesSync(out, new Date(now), new Date(now))
  for (const e of fs.readdirSync(DIST)) {
    const p = path.join(DIST, e)
    try {
      if (p !== out && now - fs.statSync(p).mtimeMs > STALE_MS) fs.rmSync(p, { recursive: true, force: true })
    } catch {
      // renamed or removed by another process meanwhile
    }
  }
  return out
}

// `npm run build`: build src/ and print where
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) console.log(path.relative(ROOT, await build(process.argv.slice(2).length ? process.argv.slice(2) : ['src'])))
