// /dashboard: the page, its modules, its stylesheet and uPlot are served by the service itself (no CDN, no
// build step), with the explorer CSP; nothing else on disk is reachable; and the page's scripts call only
// paths documented in /openapi.json (the same public API as everyone else, no back door).
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestService } from '../helpers/service.js'

const PUBLIC_DIR = fileURLToPath(new URL('../../src/dashboard/public/', import.meta.url))
const UPLOT_DIST = path.dirname(createRequire(import.meta.url).resolve('uplot/dist/uPlot.esm.js'))
/** every file under public/, as a path relative to it (views live in a subfolder) */
const publicFiles = () => (fs.readdirSync(PUBLIC_DIR, { recursive: true }) as string[]).filter((f) => fs.statSync(path.join(PUBLIC_DIR, f)).isFile()).map((f) => f.split(path.sep).join('/'))

describe('dashboard router', () => {
  let t: TestService
  beforeAll(async () => {
    t = await startTestService()
  })
  afterAll(() => t.close())

  it.each(['/dashboard', '/dashboard/'])('GET %s answers the HTML page with a CSP that allows only this origin', async (p) => {
    const res = await t.fetch(`${p}`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/html/)
    const csp = res.headers.get('content-security-policy')!
    expect(csp).toMatch(/default-src 'self'/)
    expect(csp).toMatch(/script-src 'self'/)
    expect(csp).not.toMatch(/https?:\/\/(?!.*'self')/)
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    const html = await res.text()
    expect(html).toContain('<script type="module" src="/dashboard/assets/app.js"></script>')
    expect(html).toContain('/dashboard/vendor/uPlot.min.css')
  })

  it('serves every asset with its content type, and uPlot byte for byte from node_modules', async () => {
    const types: Record<string, RegExp> = { '.js': /^text\/javascript/, '.css': /^text\/css/, '.html': /^text\/html/ }
    for (const f of publicFiles()) {
      const res = await t.fetch(`/dashboard/assets/${f}`)
      expect(res.status, f).toBe(200)
      expect(res.headers.get('content-type'), f).toMatch(types[path.extname(f)]!)
    }
    for (const f of ['uPlot.esm.js', 'uPlot.min.css']) {
      const res = await t.fetch(`/dashboard/vendor/${f}`)
      expect(res.status).toBe(200)
      expect(Buffer.from(await res.arrayBuffer()).equals(fs.readFileSync(path.join(UPLOT_DIST, f)))).toBe(true)
    }
  })

  it.each([
    '/dashboard/vendor/uPlot.cjs.js',
    '/dashboard/vendor/..%2F..%2Fpackage.json',
    '/dashboard/assets/..%2Frouter.ts',
    '/dashboard/assets/%2e%2e/router.ts',
    '/dashboard/router.ts',
    '/dashboard/assets/nope.js',
    '/dashboard/vendor/%E0%A4%A',
    '/dashboard/assets/%E0%A4%A',
    '/dashboard/assets',
    '/dashboard/assets/views',
    '/dashboard/assets/views/',
    '/dashboard/assets/views/..%2F..%2Frouter.ts',
  ])('%s is not served (404 problem+json)', async (p) => {
    const res = await t.fetch(`${p}`)
    expect(res.status).toBe(404)
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/)
  })

  it('the page loads nothing from another host: no absolute URL in any asset', () => {
    for (const f of publicFiles()) {
      const text = fs.readFileSync(path.join(PUBLIC_DIR, f), 'utf8')
      expect(text.match(/(?:src|href)\s*=\s*["'](?:https?:)?\/\//g), f).toBeNull()
      expect(text.match(/(?:import|fetch)\s*\(?\s*["'`](?:https?:)?\/\//g), f).toBeNull()
      expect(text.match(/@import/g), f).toBeNull()
    }
  })

  it('the scripts call only paths that /openapi.json documents', async () => {
    const doc = (await (await t.fetch(`/openapi.json`)).json()) as { paths: Record<string, unknown> }
    const documented = Object.keys(doc.paths).map((p) => new RegExp(`^${p.replace(/\{[^}]+\}/g, '[^/]+')}$`))
    const called = new Set<string>()
    for (const f of publicFiles().filter((f) => f.endsWith('.js'))) {
      const src = fs.readFileSync(path.join(PUBLIC_DIR, f), 'utf8')
      // string and template literals that start with /v1/ (template parts stand for one path segment)
      for (const m of src.matchAll(/['`](\/v1\/[^'`?]*)/g)) called.add(m[1]!.replace(/\$\{[^}]+\}/g, 'x'))
    }
    called.delete('/v1/') // the "try it" filter: its paths come from the document itself
    expect([...called]).toEqual(expect.arrayContaining(['/v1/account', '/v1/account/usage', '/v1/auth/keys', '/v1/auth/keys/x', '/v1/auth/signup']))
    for (const p of called) expect(documented.some((re) => re.test(p)), p).toBe(true)
  })
})
