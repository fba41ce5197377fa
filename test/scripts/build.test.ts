// The production build behind `npm start` (scripts/build.mjs): plain JavaScript under dist/<hash>/ laid out like
// the project, reused while the sources are unchanged, safe when several processes start at once, and finding
// the project's files from there (src/paths.ts).
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { build, NODE_FLAGS, ROOT } from '../../scripts/build.mjs'

describe('scripts/build.mjs', () => {
  it('builds src/ into a content-addressed folder and reuses it while nothing changed', { timeout: 60_000 }, async () => {
    const [a, b, c] = await Promise.all([build(['src']), build(['src']), build(['src'])])
    expect(new Set([a, b, c]).size).toBe(1)
    expect(path.dirname(a!)).toBe(path.join(ROOT, 'dist'))
    expect(fs.existsSync(path.join(a!, 'src', 'main.js'))).toBe(true)
    expect(fs.existsSync(path.join(a!, 'src', 'generated', 'prisma', 'client.js'))).toBe(true)
    // no half-written builds left behind by the racing processes
    expect(fs.readdirSync(path.join(ROOT, 'dist')).filter((d) => d.includes('.tmp-'))).toEqual([])
    // a different tree is a different build
    expect(await build(['src', 'bench'])).not.toBe(a)
  })

  it("npm start runs the build in the same process with the service's V8 flags", () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }
    expect(pkg.scripts.start).toBe(`exec node ${NODE_FLAGS.join(' ')} scripts/start.mjs`)
    // the flags are ones this node accepts
    expect(execFileSync(process.execPath, [...NODE_FLAGS, '-e', 'console.log("ok")'], { encoding: 'utf8' }).trim()).toBe('ok')
  })

  it('runs as plain node and finds the project root, the operations and the migrations from dist/', { timeout: 60_000 }, async () => {
    const out = await build(['src'])
    const probe = `
      const { ROOT } = await import(${JSON.stringify(path.join(out, 'src', 'paths.js'))})
      const { MIGRATIONS_DIR } = await import(${JSON.stringify(path.join(out, 'src', 'store', 'migrations.js'))})
      const { SCHEMA_FILE } = await import(${JSON.stringify(path.join(out, 'src', 'cli', 'print-schema.js'))})
      console.log(JSON.stringify({ ROOT, MIGRATIONS_DIR, SCHEMA_FILE }))`
    const printed = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', probe], { cwd: '/', encoding: 'utf8' })) as Record<string, string>
    expect(printed).toEqual({ ROOT, MIGRATIONS_DIR: path.join(ROOT, 'prisma', 'migrations'), SCHEMA_FILE: path.join(ROOT, 'schema', 'schema.graphql') })
    expect(fs.existsSync(printed.MIGRATIONS_DIR!)).toBe(true)
  })
})
