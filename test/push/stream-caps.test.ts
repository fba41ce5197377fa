// Streams open at once per API key and per account (issue 31, item 3: one key opened 200): GET /v1/stream and the
// GraphQL subscription count together; past a cap the stream is refused with 429 `rate_limited`, Retry-After and
// nothing charged; a stream that closes gives its slot back. With Redis the caps hold across API nodes: two nodes
// on one store and one Redis, as docs/operations.md deploys them, each started by startRole as `npm start` does.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServices } from '../../src/bootstrap.js'
import { loadConfig } from '../../src/config.js'
import { startRole, stopNode } from '../../src/roles.js'
import { createApp, stopApp } from '../../src/server.js'
import { REDIS_TEST_URL, redisReachable } from '../helpers/scale-out.js'
import { expectProblem, startTestService, type TestService } from '../helpers/service.js'
import { openTestStore } from '../helpers/store.js'

/** the documented caps (docs/operations.md, "Caps and bounds") */
const PER_KEY = 10
const PER_ACCOUNT = 20

const chargeRows = async (t: Pick<TestService, 'services'>, accountId: string) =>
  (await t.services.db.sql.query<{ n: number }>("SELECT count(*)::int AS n FROM credit_ledger WHERE account_id = $1 AND kind = 'charge'", [accountId]))[0]!.n

const stream = (url: string, key: string) => fetch(`${url}/v1/stream?channels=ticker`, { headers: { authorization: `Bearer ${key}` } })
const subscription = (url: string, key: string) =>
  fetch(`${url}/graphql`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream', 'content-type': 'application/json' },
    body: JSON.stringify({ query: 'subscription { stream(channels: [TICKER]) { id data } }' }),
  })

/** a stream opened as soon as the service has seen a closed one go (its close reaches the server a moment later) */
async function streamOnceFree(url: string, key: string): Promise<Response> {
  for (let i = 0; i < 100; i++) {
    const r = await stream(url, key)
    if (r.status === 200) return r
    await r.body?.cancel()
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  throw new Error('no stream slot came free')
}

/** a refusal past a cap: 429 rate_limited naming the cap, Retry-After, nothing charged */
async function expectCapped(res: Response, scope: 'key' | 'account', limit: number) {
  expect(res.headers.get('retry-after')).toBe('30')
  expect(res.headers.get('x-credits-charged')).toBe('0')
  expect(await expectProblem(res, 429, 'rate_limited')).toMatchObject({ scope, limit, open: limit, retry_after: 30 })
}

describe('streams per key and per account', () => {
  let t: TestService
  beforeAll(async () => {
    t = await startTestService({ listen: true })
  })
  afterAll(async () => t?.close())

  async function newKey(apiKey: string) {
    const r = await t.fetch('/v1/auth/keys', { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'more' }) })
    return ((await r.json()) as { data: { api_key: string } }).data.api_key
  }

  it(`a key opens ${PER_KEY} streams; the next is refused uncharged until one closes`, async () => {
    const { apiKey, accountId } = await t.signup()
    const open = await Promise.all(Array.from({ length: PER_KEY }, () => stream(t.url, apiKey)))
    expect(open.map((r) => r.status)).toEqual(Array(PER_KEY).fill(200))
    expect(await chargeRows(t, accountId)).toBe(PER_KEY)
    await expectCapped(await stream(t.url, apiKey), 'key', PER_KEY)
    expect(await chargeRows(t, accountId)).toBe(PER_KEY)
    // one closes: its slot is free again
    await open.pop()!.body!.cancel()
    const again = await streamOnceFree(t.url, apiKey)
    for (const r of [...open, again]) await r.body!.cancel()
  })

  it(`an account's keys share ${PER_ACCOUNT}; GraphQL subscriptions count too, and are refused with HTTP 429`, async () => {
    const { apiKey, accountId } = await t.signup()
    const [second, third] = [await newKey(apiKey), await newKey(apiKey)]
    const open = await Promise.all([
      ...Array.from({ length: PER_KEY }, () => stream(t.url, apiKey)),
      ...Array.from({ length: PER_KEY - 1 }, () => stream(t.url, second)),
      subscription(t.url, second),
    ])
    expect(open.map((r) => r.status)).toEqual(Array(PER_ACCOUNT).fill(200))
    // the second key is full (9 streams and the subscription); the third key has none, but the account is full
    await expectCapped(await stream(t.url, second), 'key', PER_KEY)
    await expectCapped(await stream(t.url, third), 'account', PER_ACCOUNT)
    const refused = await subscription(t.url, third)
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('30')
    expect(await refused.text()).toContain('rate_limited')
    expect(await chargeRows(t, accountId)).toBe(PER_ACCOUNT)
    for (const r of open) await r.body!.cancel()
  })
})

describe('streams per key across API nodes (Redis)', async () => {
  const reachable = await redisReachable()
  const prefix = `caps${Date.now().toString(36)}`
  const nodes: { url: string; server: Server; close(): Promise<void> }[] = []
  let signup: TestService['signup']

  beforeAll(async () => {
    if (!reachable) return
    // one store for both nodes (as API nodes share PostgreSQL), each with its own process state
    const db = await openTestStore()
    for (let i = 0; i < 2; i++) {
      const config = loadConfig({ MARKET_SOURCE: 'none', REDIS_URL: REDIS_TEST_URL, BUS_PREFIX: prefix, RATE_LIMIT_RPS: '0', AUTH_FAILURE_LIMIT: '0', SIGNUP_LIMIT: '0', LOG_LEVEL: 'silent' })
      const services = await createServices(config, { logger: pino({ level: 'silent' }), db })
      const running = await startRole(services)
      const app = createApp(services, running.metrics)
      const server = createServer(app)
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      nodes.push({
        url, server,
        async close() {
          server.closeAllConnections()
          await new Promise((r) => server.close(r))
          // the last node closes the shared store; another stops its app's timers (alerts, push signals, views) as
          // stopNode does, which otherwise ran on in the worker, on a closed store, while later files ran
          if (nodes.indexOf(this) === nodes.length - 1) await stopNode(services, app, running)
          else {
            await stopApp(app)
            await running.stop()
          }
        },
      })
    }
    signup = async () => {
      const r = await fetch(`${nodes[0]!.url}/v1/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: `caps-${Math.random().toString(36).slice(2)}@example.com` }) })
      const { data } = (await r.json()) as { data: { api_key: string; account_id: string; key_id: string; credits: number } }
      return { apiKey: data.api_key, accountId: data.account_id, keyId: data.key_id, credits: data.credits }
    }
  })
  afterAll(async () => {
    for (const n of nodes) await n.close()
  })

  it.skipIf(!reachable)(`${PER_KEY} streams of a key on one node fill its cap on the other; a close on the first frees a slot on the second`, async () => {
    const [a, b] = nodes as [(typeof nodes)[0], (typeof nodes)[0]]
    const { apiKey } = await signup()
    const open = await Promise.all(Array.from({ length: PER_KEY }, (_, i) => stream(i % 2 ? b.url : a.url, apiKey)))
    expect(open.map((r) => r.status)).toEqual(Array(PER_KEY).fill(200))
    await expectCapped(await stream(b.url, apiKey), 'key', PER_KEY)
    await expectCapped(await stream(a.url, apiKey), 'key', PER_KEY)
    // a stream of node a closes: node b may open one
    await open.shift()!.body!.cancel()
    const again = await streamOnceFree(b.url, apiKey)
    for (const r of [...open, again]) await r.body!.cancel()
  })
})
