// Rate limits and body limits (issue "Reliability and security", part 3).
//  - RATE_LIMIT_RPS per key: a burst gets 429 rate_limited (problem+json, Retry-After in whole seconds ≥ 1),
//    the 429s cost nothing, another key is unaffected, and the key works again after the window.
//  - AUTH_FAILURE_LIMIT per client: only 401s count; after the limit the client gets 429.
//  - JSON bodies over the limit (16 kB for signup/keys, 256 kB for the webhook) → 413 payload_too_large, nothing created.
import { gzipSync } from 'node:zlib'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { startTestService, type TestService } from '../helpers/service.js'
import { assertProblemShape, balanceOf, chargeRowsOf, rawRequest } from './support.js'

const retryAfterOf = (res: Response) => {
  const v = res.headers.get('retry-after')
  expect(v, 'a 429 carries Retry-After').toMatch(/^\d+$/)
  const n = Number(v)
  expect(n).toBeGreaterThanOrEqual(1)
  return n
}

describe('per-key rate limit (RATE_LIMIT_RPS=5)', () => {
  let t: TestService
  beforeAll(async () => {
    t = await startTestService({ env: { RATE_LIMIT_RPS: '5' } })
  })
  afterAll(() => t?.close())
  // the limiter's windows follow Date: frozen, a burst lands in one window, and the test moves time past it
  afterEach(() => vi.useRealTimers())

  it('a burst of 20 gets some 429 rate_limited with Retry-After, charges only the 200s, spares other keys, and recovers after the window', async () => {
    const a = await t.signup()
    const b = await t.signup()
    vi.useFakeTimers({ toFake: ['Date'] })
    const burst = await Promise.all(Array.from({ length: 20 }, () => t.get('/v1/markets/exchanges', a.apiKey)))
    const statuses = burst.map((r) => r.status)
    expect(statuses.every((s) => s === 200 || s === 429), statuses.join(',')).toBe(true)
    const ok = statuses.filter((s) => s === 200).length
    const limited = burst.filter((r) => r.status === 429)
    // one 1 s window of 5
    expect(ok).toBe(5)
    expect(limited).toHaveLength(15)

    let wait = 1
    for (const res of limited) {
      wait = Math.max(wait, retryAfterOf(res))
      const body = assertProblemShape(429, res.headers, await res.text(), 'burst 429')
      expect(body.code).toBe('rate_limited')
      expect(Number(res.headers.get('x-credits-charged') ?? 0)).toBe(0)
    }
    for (const res of burst.filter((r) => r.status === 200)) await res.arrayBuffer()

    // the 429s cost nothing: exactly one credit (exchanges) per 200, one ledger row each
    expect(await balanceOf(t, a.accountId)).toBe(a.credits - ok)
    expect(await chargeRowsOf(t, a.accountId)).toEqual({ n: ok, sum: ok })

    // another key is unaffected, even while `a` is limited
    const other = await t.get('/v1/markets/exchanges', b.apiKey)
    expect(other.status).toBe(200)

    // just before the window ends the key is still limited; at its end it works again
    vi.setSystemTime(Date.now() + wait * 1000 - 1)
    expect((await t.get('/v1/markets/exchanges', a.apiKey)).status).toBe(429)
    vi.setSystemTime(Date.now() + 1)
    const again = await t.get('/v1/markets/exchanges', a.apiKey)
    expect(again.status).toBe(200)
    expect(await balanceOf(t, a.accountId)).toBe(a.credits - ok - 1)
  })

  it('GraphQL shares the per-key limit', async () => {
    const a = await t.signup()
    vi.useFakeTimers({ toFake: ['Date'] })
    const burst = await Promise.all(
      Array.from({ length: 12 }, () =>
        t.fetch(`/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${a.apiKey}` }, body: JSON.stringify({ query: '{ exchanges { id } }' }) }),
      ),
    )
    const ok = burst.filter((r) => r.status === 200).length
    expect(ok).toBe(5)
    expect(burst.filter((r) => r.status === 429)).toHaveLength(7)
    for (const r of burst) await r.arrayBuffer()
    expect(await balanceOf(t, a.accountId)).toBe(a.credits - ok)
  })
})

describe('failed-authentication limit (AUTH_FAILURE_LIMIT=5)', () => {
  let t: TestService
  beforeAll(async () => {
    t = await startTestService({ env: { AUTH_FAILURE_LIMIT: '5' } })
  })
  afterAll(() => t?.close())

  const bad = (i: number) => `pa_${String(i).padStart(43, 'Z')}`

  it('only 401s count: successful calls with a good key in between do not use up the budget; the 6th failure is a 429', async () => {
    const good = await t.signup()
    // four failures: REST and GraphQL alike
    for (let i = 0; i < 3; i++) expect((await t.get('/v1/markets/exchanges', bad(i))).status).toBe(401)
    const g = await t.fetch(`/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${bad(3)}` }, body: JSON.stringify({ query: '{ exchanges { id } }' }) })
    expect(g.status).toBe(401)
    // many successes from the same client: not counted
    for (let i = 0; i < 12; i++) {
      const res = await t.get('/v1/account', good.apiKey)
      expect(res.status, `good call ${i}`).toBe(200)
      await res.arrayBuffer()
    }
    // the fifth failure is still answered as a 401 ...
    expect((await t.get('/v1/markets/exchanges', bad(4))).status).toBe(401)
    // ... and the sixth is refused before the key is even looked at
    const limited = await t.get('/v1/markets/exchanges', bad(5))
    expect(limited.status).toBe(429)
    const body = assertProblemShape(429, limited.headers, await limited.text(), 'auth failure 429')
    expect(body.code).toBe('rate_limited')
    expect(retryAfterOf(limited)).toBeLessThanOrEqual(60)
  })
})

describe('body limits', () => {
  let t: TestService
  beforeAll(async () => {
    // on a real socket: declared lengths, chunked bodies and a compressed one, as clients send them
    t = await startTestService({ env: { STRIPE_WEBHOOK_SECRET: 'whsec_body_limits' }, listen: true })
  })
  afterAll(() => t?.close())

  const accounts = async () => Number((await t.services.db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM account'))[0]!.n)
  const keys = async (accountId: string) => Number((await t.services.db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM api_key WHERE account_id = $1', [accountId]))[0]!.n)
  const expect413 = (res: { status: number; headers: Record<string, string | string[] | undefined>; body: string }, what: string) => {
    expect(res.status, `${what}: ${res.body.slice(0, 200)}`).toBe(413)
    expect(assertProblemShape(413, res.headers, res.body, what).code).toBe('payload_too_large')
  }

  it('signup: a JSON body over 16 kB → 413 payload_too_large and no account; just under the limit is read', async () => {
    const before = await accounts()
    const over = JSON.stringify({ email: `${'a'.repeat(17 * 1024)}@example.com` })
    expect413(await rawRequest(t.url, { method: 'POST', path: '/v1/auth/signup', headers: { 'content-type': 'application/json' }, body: over }), 'signup 17 kB')
    // whatever the declared content type (signup parses JSON whatever it says)
    expect413(await rawRequest(t.url, { method: 'POST', path: '/v1/auth/signup', headers: { 'content-type': 'text/plain' }, body: over }), 'signup 17 kB text/plain')
    // and without a Content-Length (chunked)
    expect413(await rawRequest(t.url, { method: 'POST', path: '/v1/auth/signup', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, body: over }), 'signup 17 kB chunked')
    const under = JSON.stringify({ email: 'under@example.com', pad: 'x'.repeat(15 * 1024) })
    const res = await rawRequest(t.url, { method: 'POST', path: '/v1/auth/signup', headers: { 'content-type': 'application/json' }, body: under })
    expect(res.status, res.body).toBe(201)
    expect(await accounts()).toBe(before + 1)
  })

  it('signup: a small gzip body that inflates past 16 kB (a zip bomb) → 413, and the server is fine', async () => {
    const bomb = gzipSync(Buffer.from(JSON.stringify({ email: ' '.repeat(4_000_000) })))
    expect(bomb.length).toBeLessThan(16 * 1024)
    expect413(await rawRequest(t.url, { method: 'POST', path: '/v1/auth/signup', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: bomb }), 'gzip bomb')
    expect((await t.fetch(`/healthz`)).status).toBe(200)
  })

  it('keys: a JSON body over 16 kB → 413 payload_too_large and no key created', async () => {
    const a = await t.signup()
    const body = JSON.stringify({ name: 'n'.repeat(17 * 1024) })
    expect413(await rawRequest(t.url, { method: 'POST', path: '/v1/auth/keys', headers: { 'content-type': 'application/json', authorization: `Bearer ${a.apiKey}` }, body }), 'keys 17 kB')
    expect(await keys(a.accountId)).toBe(1)
    expect(await balanceOf(t, a.accountId)).toBe(a.credits)
  })

  it('webhook: a body over 256 kB → 413 payload_too_large', async () => {
    const body = JSON.stringify({ id: 'evt_big', type: 'checkout.session.completed', pad: 'x'.repeat(300 * 1024) })
    expect413(await rawRequest(t.url, { method: 'POST', path: '/v1/billing/webhook', headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' }, body }), 'webhook 300 kB')
  })
})
