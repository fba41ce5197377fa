// Security headers (issue "Reliability and security", part 4): helmet's headers on every /v1 response —
// successes and every kind of error, including those produced outside the route handlers (404, 405, 413,
// 429, a malformed URI) — and never X-Powered-By.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestService } from '../helpers/service.js'

describe('security headers on /v1', () => {
  let t: TestService
  let key: string
  beforeAll(async () => {
    t = await startTestService()
    key = (await t.signup()).apiKey
  })
  afterAll(() => t?.close())

  const h = (res: Response, name: string) => res.headers.get(name)
  const call = (s: TestService, req: { method: string; path: string; headers?: Record<string, string>; body?: string }) =>
    s.fetch(req.path, { method: req.method, headers: req.headers, body: req.body })

  function expectSecurityHeaders(res: Response, what: string) {
    const ctx = `${what} (${res.status})`
    const csp = h(res, 'content-security-policy')
    expect(csp, `${ctx}: Content-Security-Policy`).toBeTruthy()
    expect(csp, ctx).toMatch(/default-src 'self'/)
    expect(csp, ctx).toMatch(/object-src 'none'/)
    expect(csp, ctx).toMatch(/frame-ancestors 'self'|frame-ancestors 'none'/)
    // the API is JSON: the relaxed explorer policy (inline scripts, eval) must not leak onto /v1
    expect(csp, ctx).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/)
    expect(h(res, 'x-content-type-options'), `${ctx}: X-Content-Type-Options`).toBe('nosniff')
    expect(h(res, 'strict-transport-security'), `${ctx}: Strict-Transport-Security`).toMatch(/max-age=\d{7,}/)
    expect(h(res, 'x-frame-options'), `${ctx}: X-Frame-Options`).toMatch(/^(SAMEORIGIN|DENY)$/)
    expect(h(res, 'referrer-policy'), `${ctx}: Referrer-Policy`).toMatch(/no-referrer|strict-origin|same-origin/)
    expect(h(res, 'x-powered-by'), `${ctx}: X-Powered-By`).toBeNull()
    expect(h(res, 'x-request-id'), `${ctx}: X-Request-Id`).toBeTruthy()
  }

  const auth = () => ({ authorization: `Bearer ${key}` })
  const cases: [string, () => { method: string; path: string; headers?: Record<string, string>; body?: string }, number][] = [
    ['200 analytics', () => ({ method: 'GET', path: '/v1/markets/exchanges', headers: auth() }), 200],
    ['200 account', () => ({ method: 'GET', path: '/v1/account', headers: auth() }), 200],
    ['201 key created', () => ({ method: 'POST', path: '/v1/auth/keys', headers: { ...auth(), 'content-type': 'application/json' }, body: '{"name":"hdr"}' }), 201],
    ['400 invalid parameter', () => ({ method: 'GET', path: '/v1/structure/volume-profile?coin=BTC&bins=0', headers: auth() }), 400],
    ['400 malformed URI', () => ({ method: 'DELETE', path: '/v1/auth/keys/%E0%A4%A', headers: auth() }), 400],
    ['400 invalid JSON', () => ({ method: 'POST', path: '/v1/auth/signup', headers: { 'content-type': 'application/json' }, body: '{' }), 400],
    ['401 no key', () => ({ method: 'GET', path: '/v1/markets/ticker' }), 401],
    ['404 unknown path', () => ({ method: 'GET', path: '/v1/nope' }), 404],
    ['404 other account key', () => ({ method: 'DELETE', path: '/v1/auth/keys/00000000-0000-4000-8000-000000000000', headers: auth() }), 404],
    ['405 wrong method', () => ({ method: 'POST', path: '/v1/markets/ticker', headers: auth() }), 405],
    ['413 body too large', () => ({ method: 'POST', path: '/v1/auth/signup', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: 'x'.repeat(20_000) }) }), 413],
  ]

  it.each(cases)('%s', async (what, make, status) => {
    const res = await call(t, make())
    expect(res.status, (await res.clone().text()).slice(0, 200)).toBe(status)
    expectSecurityHeaders(res, what)
  })

  it('402 insufficient credits', async () => {
    const poor = await t.signup()
    await t.setCredits(poor.accountId, 0)
    const res = await t.get('/v1/markets/exchanges', poor.apiKey)
    expect(res.status).toBe(402)
    expectSecurityHeaders(res, '402')
  })

  it('429 rate limited (answered by the limiter, before any route)', async () => {
    const limitedService = await startTestService({ env: { RATE_LIMIT_RPS: '2' } })
    try {
      const k = (await limitedService.signup()).apiKey
      const all = await Promise.all(Array.from({ length: 10 }, () => limitedService.get('/v1/account', k)))
      const limited = all.find((r) => r.status === 429)
      expect(limited, all.map((r) => r.status).join(',')).toBeDefined()
      expectSecurityHeaders(limited!, '429')
    } finally {
      await limitedService.close()
    }
  })

  it('no X-Powered-By anywhere else either (/healthz, /openapi.json, /graphql)', async () => {
    for (const path of ['/healthz', '/openapi.json', '/graphql?query=%7B__typename%7D']) {
      const res = await t.get(path, null, { accept: 'application/json' })
      expect(h(res, 'x-powered-by'), path).toBeNull()
      expect(h(res, 'x-content-type-options'), path).toBe('nosniff')
    }
  })
})
