// What a browser, a bot and an operator meet first (issue 15, items 2, 3, 6, 8, 9): HEAD is free and runs nothing,
// CORS preflights are answered without credentials, request bodies are capped before any work, /metrics is not
// public, and GraphQL limit errors carry a code and the GraphQL-over-HTTP status.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startTestService, type TestService } from '../helpers/service.js'
import { assertProblemShape, balanceOf, chargeRowsOf, gql, rawRequest } from '../security/support.js'

describe('HEAD on the analytics routes', () => {
  let t: TestService
  beforeAll(async () => {
    t = await startTestService()
  })
  afterAll(() => t?.close())

  it('answers the headers a GET gets, charges nothing and does not run the query', async () => {
    const a = await t.signup()
    const status = vi.spyOn(t.services.market, 'status')
    try {
      const res = await t.fetch('/v1/markets/exchanges', { method: 'HEAD', headers: { authorization: `Bearer ${a.apiKey}` } })
      expect(res.status).toBe(200)
      expect(await res.text()).toBe('')
      expect(res.headers.get('content-type')).toMatch(/^application\/json/)
      expect(res.headers.get('x-credits-charged')).toBe('0')
      expect(res.headers.get('x-credits-remaining')).toBe(String(a.credits))
      expect(status, 'the resolver did not run').not.toHaveBeenCalled()
      expect(await balanceOf(t, a.accountId)).toBe(a.credits)
      expect(await chargeRowsOf(t, a.accountId)).toEqual({ n: 0, sum: 0 })
      // the same path with GET runs (the spy sees each of the five exchanges: their status and its reason) and is charged
      const get = await t.get('/v1/markets/exchanges', a.apiKey)
      expect(get.status).toBe(200)
      await get.arrayBuffer()
      expect(new Set(status.mock.calls.map((c) => c[0]))).toEqual(new Set(['binance', 'bybit', 'okx', 'hyperliquid', 'dydx']))
      expect(await chargeRowsOf(t, a.accountId)).toEqual({ n: 1, sum: 1 })
    } finally {
      status.mockRestore()
    }
  })

  it('still checks the key and the parameters: 401 and 400 as for GET, free', async () => {
    const a = await t.signup()
    expect((await t.fetch('/v1/markets/ohlc?coin=BTC', { method: 'HEAD' })).status).toBe(401)
    expect((await t.fetch('/v1/markets/ohlc?coin=NOPE', { method: 'HEAD', headers: { authorization: `Bearer ${a.apiKey}` } })).status).toBe(400)
    expect(await chargeRowsOf(t, a.accountId)).toEqual({ n: 0, sum: 0 })
  })
})

describe('CORS', () => {
  let t: TestService
  let listed: TestService
  beforeAll(async () => {
    t = await startTestService()
    listed = await startTestService({ env: { CORS_ORIGINS: 'https://app.example.com,http://localhost:5173' } })
  })
  afterAll(async () => {
    await t?.close()
    await listed?.close()
  })

  const preflight = (s: TestService, path: string, method: string, origin = 'https://elsewhere.example') =>
    s.fetch(path, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type' } })

  it.each([
    ['/v1/markets/ticker', 'GET'],
    ['/v1/structure/volume-profile', 'GET'],
    ['/v1/account', 'GET'],
    ['/graphql', 'POST'],
  ])('preflight for %s (%s) is answered with Authorization allowed and no credentials', async (path, method) => {
    const res = await preflight(t, path, method)
    expect(res.status).toBe(204)
    expect(res.headers.get('access-control-allow-origin')).toBe('*')
    expect(String(res.headers.get('access-control-allow-methods'))).toContain(method)
    expect(String(res.headers.get('access-control-allow-headers')).toLowerCase()).toContain('authorization')
    expect(res.headers.get('access-control-allow-credentials')).toBeNull()
  })

  it('a cross-origin call can read the credit headers; /graphql no longer reflects the Origin with credentials', async () => {
    const a = await t.signup()
    const rest = await t.get('/v1/markets/exchanges', a.apiKey, { origin: 'https://evil.example' })
    expect(rest.headers.get('access-control-allow-origin')).toBe('*')
    expect(rest.headers.get('access-control-expose-headers')).toMatch(/X-Credits-Remaining/)
    await rest.arrayBuffer()
    const g = await t.fetch(`/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://evil.example', authorization: `Bearer ${a.apiKey}` },
      body: JSON.stringify({ query: '{ exchanges { id } }' }),
    })
    expect(g.status).toBe(200)
    expect(g.headers.get('access-control-allow-origin')).toBe('*')
    expect(g.headers.get('access-control-allow-credentials')).toBeNull()
    await g.arrayBuffer()
  })

  it('CORS_ORIGINS lists the origins allowed: a listed one is named back, another gets no CORS header', async () => {
    const ok = await preflight(listed, '/v1/markets/ticker', 'GET', 'https://app.example.com')
    expect(ok.status).toBe(204)
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://app.example.com')
    expect(ok.headers.get('access-control-allow-credentials')).toBeNull()
    const other = await preflight(listed, '/graphql', 'POST', 'https://evil.example')
    expect(other.headers.get('access-control-allow-origin')).toBeNull()
  })
})

describe('request bodies are capped at 16 kB on every route, before authentication', () => {
  let t: TestService
  beforeAll(async () => {
    // on a real socket: a declared length is refused before the body is read, a chunked one while it streams
    t = await startTestService({ listen: true })
  })
  afterAll(() => t?.close())

  const big = JSON.stringify({ query: '{ exchanges { id } }', padding: 'x'.repeat(80 * 1024) })

  it('/graphql without a key: a declared 80 kB body → 413 problem+json at once', async () => {
    const res = await rawRequest(t.url, { method: 'POST', path: '/graphql', headers: { 'content-type': 'application/json' }, body: big })
    expect(res.status).toBe(413)
    expect(assertProblemShape(413, res.headers, res.body, '/graphql 80 kB').code).toBe('payload_too_large')
  })

  it('/graphql with a chunked body (no length declared) past 64 kB → 413, nothing charged', async () => {
    const a = await t.signup()
    const res = await rawRequest(t.url, { method: 'POST', path: '/graphql', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', authorization: `Bearer ${a.apiKey}` }, body: big })
    expect(res.status).toBe(413)
    expect(await chargeRowsOf(t, a.accountId)).toEqual({ n: 0, sum: 0 })
  })

  it('a GET analytics route with a large body → 413 before the key is looked at; a 60 kB GraphQL body still runs', async () => {
    const res = await rawRequest(t.url, { method: 'GET', path: '/v1/markets/exchanges', headers: { 'content-type': 'application/json' }, body: big })
    expect(res.status).toBe(413)
    const a = await t.signup()
    const fits = JSON.stringify({ query: '{ exchanges { id } }', extensions: { padding: 'x'.repeat(60 * 1024) } })
    const ok = await rawRequest(t.url, { method: 'POST', path: '/graphql', headers: { 'content-type': 'application/json', authorization: `Bearer ${a.apiKey}` }, body: fits })
    expect(ok.status, ok.body.slice(0, 200)).toBe(200)
  })
})

describe('/metrics is not public', () => {
  it('without METRICS_TOKEN: served to loopback clients only (the address a trusted proxy forwards counts)', async () => {
    const t = await startTestService({ env: { TRUST_PROXY: 'loopback' } })
    try {
      const local = await t.fetch('/metrics')
      expect(local.status).toBe(200)
      expect(await local.text()).toMatch(/http_request_duration_seconds/)
      const remote = await t.fetch('/metrics', { headers: { 'x-forwarded-for': '203.0.113.7' } })
      const body = await remote.text()
      expect(remote.status).toBe(401)
      expect(body).not.toMatch(/http_request_duration_seconds/)
      expect(assertProblemShape(401, remote.headers, body, 'remote /metrics').code).toBe('unauthorized')
    } finally {
      await t.close()
    }
  })

  it('without METRICS_TOKEN: a client whose own address is not loopback is refused', async () => {
    const t = await startTestService({ remoteAddress: '203.0.113.7' })
    try {
      const res = await t.fetch('/metrics')
      expect(res.status).toBe(401)
      expect(assertProblemShape(401, res.headers, await res.text(), 'remote /metrics').code).toBe('unauthorized')
    } finally {
      await t.close()
    }
  })

  it('with METRICS_TOKEN: the bearer token is required, from anywhere', async () => {
    const token = 'scrape-token-0123456789abcdef'
    const t = await startTestService({ env: { METRICS_TOKEN: token } })
    try {
      expect((await t.fetch(`/metrics`)).status).toBe(401)
      expect((await t.fetch(`/metrics`, { headers: { authorization: 'Bearer wrong-token-0123456789abcdef' } })).status).toBe(401)
      const ok = await t.fetch(`/metrics`, { headers: { authorization: `Bearer ${token}` } })
      expect(ok.status).toBe(200)
      expect(await ok.text()).toMatch(/process_cpu_seconds_total/)
    } finally {
      await t.close()
    }
  })
})

describe('GraphQL limit errors (graphql-armor) per the GraphQL-over-HTTP spec', () => {
  let t: TestService
  beforeAll(async () => {
    t = await startTestService()
  })
  afterAll(() => t?.close())

  const aliases = `{ ${Array.from({ length: 21 }, (_, i) => `t${i}: exchanges { id }`).join(' ')} }`
  const deep = `{ ${'... on Query { '.repeat(11)}exchanges { id }${' }'.repeat(11)} }`

  it.each([
    ['alias', aliases, /alias/i],
    ['depth', deep, /depth/i],
  ])('%s limit: 400 with extensions.code for application/graphql-response+json, 200 for application/json; nothing charged', async (_what, query, message) => {
    const a = await t.signup()
    for (const [accept, status] of [['application/graphql-response+json', 400], ['application/json', 200]] as const) {
      const res = await t.fetch(`/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', accept, authorization: `Bearer ${a.apiKey}` }, body: JSON.stringify({ query }) })
      const body = (await res.json()) as { data?: unknown; errors: { message: string; extensions?: { code?: string } }[] }
      expect(res.status, accept).toBe(status)
      expect(body.data ?? null).toBeNull()
      expect(body.errors[0]!.message).toMatch(message)
      expect(body.errors[0]!.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED')
    }
    expect(await chargeRowsOf(t, a.accountId)).toEqual({ n: 0, sum: 0 })
    expect(await balanceOf(t, a.accountId)).toBe(a.credits)
  })

  it('a query within the limits is unaffected', async () => {
    const a = await t.signup()
    const { res, body } = await gql(t, '{ exchanges { id } }', { key: a.apiKey })
    expect(res.status).toBe(200)
    expect(body.errors).toBeUndefined()
  })
})
