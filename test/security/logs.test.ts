// Logs without secrets (issue "Reliability and security", part 5). The test service (createServices +
// createApp, in process) with a debug-level pino logger writing to memory. After calls with keys in the Authorization header, signed and unsigned webhooks, a signup, a key
// creation, failing calls and a server-side error, every captured line must be JSON, carry a request id, and
// contain no API key, no key hash, no Stripe signature and no webhook secret.
import { createHash } from 'node:crypto'
import { Writable } from 'node:stream'
import { pino } from 'pino'
import Stripe from 'stripe'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startTestService, type TestService } from '../helpers/service.js'

const WEBHOOK_SECRET = 'whsec_logs_test_secret_value'
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')

describe('logs carry no secrets', () => {
  const lines: string[] = []
  let t: TestService
  /** every secret the calls below put on the wire */
  const secrets = new Map<string, string>()
  /** X-Request-Id of every call made */
  const requestIds: string[] = []

  const call = async (path: string, init: RequestInit = {}) => {
    const res = await t.fetch(path, init)
    const id = res.headers.get('x-request-id')
    if (id) requestIds.push(id)
    return { res, text: await res.text() }
  }

  beforeAll(async () => {
    let partial = ''
    const stream = new Writable({
      write(chunk, _enc, cb) {
        partial += String(chunk)
        const parts = partial.split('\n')
        partial = parts.pop()!
        lines.push(...parts.filter((l) => l.length > 0))
        cb()
      },
    })
    t = await startTestService({ env: { LOG_LEVEL: 'debug', STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET }, logger: pino({ level: 'debug' }, stream) })
    lines.length = 0 // only what requests produce

    secrets.set('webhook secret', WEBHOOK_SECRET)
    const json = { 'content-type': 'application/json' }

    // a signup (the answer holds the first key)
    const signup = await call('/v1/auth/signup', { method: 'POST', headers: json, body: JSON.stringify({ email: 'logs@example.com' }) })
    expect(signup.res.status).toBe(201)
    const { api_key: key1, account_id: accountId } = (JSON.parse(signup.text) as { data: { api_key: string; account_id: string } }).data
    secrets.set('key1', key1).set('key1 hash', sha256(key1)).set('key1 secret part', key1.slice(11))
    const bearer = (k: string) => ({ authorization: `Bearer ${k}` })

    // analytics, account and key management with the key in the Authorization header: success and failures
    expect((await call('/v1/markets/exchanges', { headers: bearer(key1) })).res.status).toBe(200)
    expect((await call('/v1/markets/ticker?coin=NOPE', { headers: bearer(key1) })).res.status).toBe(400)
    expect((await call('/v1/account', { headers: bearer(key1) })).res.status).toBe(200)
    expect((await call('/graphql', { method: 'POST', headers: { ...json, ...bearer(key1) }, body: JSON.stringify({ query: '{ exchanges { id } }' }) })).res.status).toBe(200)
    const created = await call('/v1/auth/keys', { method: 'POST', headers: { ...json, ...bearer(key1) }, body: '{"name":"second"}' })
    expect(created.res.status).toBe(201)
    const { api_key: key2, id: key2Id } = (JSON.parse(created.text) as { data: { api_key: string; id: string } }).data
    secrets.set('key2', key2).set('key2 hash', sha256(key2))
    expect((await call('/v1/auth/keys', { headers: bearer(key2) })).res.status).toBe(200)
    expect((await call(`/v1/auth/keys/${key2Id}`, { method: 'DELETE', headers: bearer(key1) })).res.status).toBe(200)
    // the revoked key, and a mistyped key: 401s, which are logged at info level
    expect((await call('/v1/account', { headers: bearer(key2) })).res.status).toBe(401)
    const typo = `${key1.slice(0, -1)}${key1.endsWith('A') ? 'B' : 'A'}`
    secrets.set('typo key', typo).set('typo hash', sha256(typo))
    expect((await call('/v1/markets/exchanges', { headers: bearer(typo) })).res.status).toBe(401)
    expect((await call('/v1/markets/exchanges', { headers: { authorization: `bearer   ${key1}   ` } })).res.status).toBe(200)

    // webhooks: a validly signed one, and one with a wrong signature
    const payload = JSON.stringify({ id: 'evt_logs_1', object: 'event', type: 'checkout.session.completed', data: { object: { metadata: { account_id: accountId, credits: '10' } } } })
    const sig = Stripe.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET })
    secrets.set('stripe signature header', sig).set('stripe v1 signature', /v1=([0-9a-f]+)/.exec(sig)![1]!)
    expect((await call('/v1/billing/webhook', { method: 'POST', headers: { ...json, 'stripe-signature': sig }, body: payload })).res.status).toBe(200)
    const badSig = Stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_not_the_secret' })
    secrets.set('bad stripe v1 signature', /v1=([0-9a-f]+)/.exec(badSig)![1]!)
    expect((await call('/v1/billing/webhook', { method: 'POST', headers: { ...json, 'stripe-signature': badSig }, body: payload })).res.status).toBe(400)

    // server-side failures are logged with their error: REST and GraphQL (a NUL in a key name reaches the store)
    await call('/v1/auth/keys', { method: 'POST', headers: { ...json, ...bearer(key1) }, body: '{"name":"nul\\u0000name"}' })
    await call('/graphql', { method: 'POST', headers: { ...json, ...bearer(key1) }, body: JSON.stringify({ query: 'mutation { createApiKey(name: "nul\\u0000name") { id } }' }) })
    // every call's line is written (the request line goes out when the response finishes)
    await vi.waitFor(() => {
      const logged = lines.join('\n')
      for (const id of requestIds) expect(logged).toContain(id)
    })
  })

  afterAll(async () => {
    await t?.close()
  })

  it('the calls were logged at all (debug level logs every request)', () => {
    expect(lines.length).toBeGreaterThanOrEqual(requestIds.length)
  })

  it('every line is a JSON object', () => {
    for (const line of lines) {
      let parsed: unknown
      expect(() => (parsed = JSON.parse(line)), line.slice(0, 200)).not.toThrow()
      expect(typeof parsed).toBe('object')
    }
  })

  it('no line contains an API key, a key hash, a Stripe signature or the webhook secret', () => {
    for (const [what, secret] of secrets)
      for (const line of lines) expect(line.includes(secret), `${what} appears in a log line: ${line.slice(0, 400)}`).toBe(false)
  })

  it('the Authorization and Stripe-Signature headers show as redacted', () => {
    const withAuth = lines.map((l) => JSON.parse(l) as { req?: { headers?: Record<string, string> } }).filter((l) => l.req?.headers?.authorization !== undefined)
    expect(withAuth.length).toBeGreaterThan(0)
    for (const l of withAuth) expect(l.req!.headers!.authorization).toBe('[redacted]')
    const withSig = lines.map((l) => JSON.parse(l) as { req?: { headers?: Record<string, string> } }).filter((l) => l.req?.headers?.['stripe-signature'] !== undefined)
    expect(withSig.length).toBe(2)
    for (const l of withSig) expect(l.req!.headers!['stripe-signature']).toBe('[redacted]')
  })

  it('every line carries the request id of the request that produced it', () => {
    const idOf = (l: Record<string, unknown>) => ((l.req as { id?: string } | undefined)?.id ?? l.requestId ?? l.request_id ?? l.reqId) as string | undefined
    for (const line of lines) {
      const l = JSON.parse(line) as Record<string, unknown>
      const id = idOf(l)
      expect(id, `log line without a request id: ${line.slice(0, 300)}`).toBeTruthy()
      expect(requestIds, `log line with a request id no call received: ${line.slice(0, 300)}`).toContain(id)
    }
    // and every call can be found in the logs by the id its caller saw
    const logged = new Set(lines.map((line) => idOf(JSON.parse(line) as Record<string, unknown>)))
    for (const id of requestIds) expect(logged.has(id), `no log line for request ${id}`).toBe(true)
  })
})
