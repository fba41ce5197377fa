// Heavy calls wait their turn per key and per node, and past a queue's depth are refused with 429 and Retry-After,
// uncharged; cheap calls never wait there (issue 31, item 4; docs/operations.md#heavy-calls). The queues themselves,
// then through REST and GraphQL on a seeded service whose queues are held full by calls that have not finished.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HeavyCalls } from '../../src/graphql/heavy-calls.js'
import { ApiError } from '../../src/errors.js'
import { createMetrics } from '../../src/http/metrics.js'
import { registerNodeMetrics } from '../../src/http/node-metrics.js'
import { TEST_NOW, seedMarket } from '../helpers/market.js'
import { expectProblem, startTestService, type TestService } from '../helpers/service.js'

/** a call that runs until release() */
function held() {
  let release: () => void = () => {}
  let started: () => void = () => {}
  const running = new Promise<void>((r) => (started = r))
  const done = new Promise<void>((r) => (release = r))
  return { work: async () => (started(), await done), running, release }
}

const refusal = async (p: Promise<unknown>) => {
  const e = await p.then(() => null, (err: unknown) => err)
  expect(e).toBeInstanceOf(ApiError)
  return e as ApiError
}

describe('HeavyCalls: the queues', () => {
  it('per key: HEAVY_PER_KEY admitted, HEAVY_KEY_QUEUE waiting, the next refused with 429 scope key and a Retry-After', async () => {
    const heavy = new HeavyCalls({ HEAVY_CONCURRENCY: 4, HEAVY_QUEUE: 64, HEAVY_PER_KEY: 2, HEAVY_KEY_QUEUE: 1 })
    const calls = [held(), held(), held()]
    const runs = calls.map((c) => heavy.run('k', c.work))
    await Promise.all([calls[0]!.running, calls[1]!.running])
    // two admitted and running (the node has room for four), the third waits behind them in the key's queue
    expect(heavy.stats()).toMatchObject({ running: 2, waiting: 1 })
    const e = await refusal(heavy.run('k', async () => 'never'))
    expect(e.status).toBe(429)
    expect(e.extra).toMatchObject({ scope: 'key', limit: 3 })
    expect(e.extra.retry_after).toBeGreaterThanOrEqual(1)
    // another key is not held back by this one's queue
    expect(await heavy.run('other', async () => 'ran')).toBe('ran')
    calls[0]!.release()
    await calls[2]!.running
    calls[1]!.release()
    calls[2]!.release()
    await Promise.all(runs)
    expect(heavy.stats()).toEqual({ running: 0, waiting: 0, refused: { key: 1, node: 0 } })
    // the key's queue is free again
    expect(await heavy.run('k', async () => 'again')).toBe('again')
  })

  it('per node: HEAVY_CONCURRENCY run at once whatever the key, HEAVY_QUEUE wait, the next refused with scope node', async () => {
    const heavy = new HeavyCalls({ HEAVY_CONCURRENCY: 1, HEAVY_QUEUE: 2, HEAVY_PER_KEY: 4, HEAVY_KEY_QUEUE: 16 })
    const calls = [held(), held(), held()]
    let most = 0
    let now = 0
    const runs = calls.map((c, i) =>
      heavy.run(`key${i}`, async () => {
        most = Math.max(most, ++now)
        await c.work()
        now--
      }),
    )
    await calls[0]!.running
    expect(heavy.stats()).toMatchObject({ running: 1, waiting: 2 })
    const e = await refusal(heavy.run('key3', async () => 'never'))
    expect(e.extra).toMatchObject({ scope: 'node', limit: 2 })
    for (const c of calls) c.release()
    await Promise.all(runs)
    expect(most).toBe(1)
  })

  it('a heavy call that fails gives its places back', async () => {
    const heavy = new HeavyCalls({ HEAVY_CONCURRENCY: 1, HEAVY_QUEUE: 0, HEAVY_PER_KEY: 1, HEAVY_KEY_QUEUE: 0 })
    await expect(heavy.run('k', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom')
    expect(await heavy.run('k', async () => 'ok')).toBe('ok')
    expect(heavy.stats()).toMatchObject({ running: 0, waiting: 0 })
  })
})

describe('heavy calls through REST and GraphQL', () => {
  let t: TestService
  let a: { apiKey: string; accountId: string; keyId: string }
  const DAY = 86_400_000
  // 1m funding history over 30 days: 43,200 minutes × 5 venues of samples, heavy; over 24 hours: 7,200, cheap
  const HEAVY = '/v1/funding/history?coin=BTC&interval=1m&lookback=30d'
  const CHEAP_SERIES = '/v1/funding/history?coin=BTC&interval=1m&lookback=24h'
  const ledger = async (accountId: string) =>
    (await t.services.db.sql.query<{ credits: number; n: number }>(`SELECT a.credits, (SELECT count(*)::int FROM credit_ledger l WHERE l.account_id = a.id AND l.kind = 'charge') AS n FROM account a WHERE a.id = $1`, [accountId]))[0]!

  beforeAll(async () => {
    t = await startTestService({ clock: () => TEST_NOW, env: { HEAVY_CONCURRENCY: '1', HEAVY_QUEUE: '1', HEAVY_PER_KEY: '1', HEAVY_KEY_QUEUE: '0' } })
    await seedMarket(t, { hours: 2 })
    a = await t.signup()
    await t.setCredits(a.accountId, 10_000)
  }, 120_000)
  afterAll(() => t?.close())

  it('with its key\'s queue full, a heavy call is 429 with Retry-After, uncharged; its cheap calls and cheap series still answer', async () => {
    expect((await t.get(HEAVY, a.apiKey)).status).toBe(200) // runs when nothing else does
    const hold = held()
    const holding = t.services.heavy.run(a.keyId, hold.work)
    await hold.running
    try {
      const before = await ledger(a.accountId)
      const res = await t.get(HEAVY, a.apiKey)
      const body = await expectProblem(res, 429, 'rate_limited')
      expect(body).toMatchObject({ scope: 'key', limit: 1 })
      expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/)
      expect(res.headers.get('x-credits-charged')).toBe('0')
      // GraphQL: refused as a whole, with the same status and header
      const g = await t.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${a.apiKey}` }, body: JSON.stringify({ query: '{ fundingHistory(coin: "BTC", interval: M1, lookback: D30) { next } }' }) })
      expect(g.status).toBe(429)
      expect(g.headers.get('retry-after')).toMatch(/^[1-9]\d*$/)
      expect(((await g.json()) as { errors: { extensions: { code: string } }[] }).errors[0]!.extensions.code).toBe('rate_limited')
      expect(await ledger(a.accountId)).toEqual(before)
      // never queued: the same key's cheap calls, however many are in flight
      const cheap = await Promise.all([...Array.from({ length: 10 }, () => t.get('/v1/markets/ticker?coin=BTC', a.apiKey)), t.get(CHEAP_SERIES, a.apiKey), t.get('/v1/signals/backtest?coin=BTC&lookback=7d', a.apiKey)])
      expect(cheap.map((r) => r.status)).toEqual(cheap.map(() => 200))
    } finally {
      hold.release()
      await holding
    }
    expect((await t.get(HEAVY, a.apiKey)).status).toBe(200)
  })

  it('GraphQL aliases count by their sum: 20 cheap aliases of the 24-hour series make one heavy operation', async () => {
    const aliases = (n: number) => `{ ${Array.from({ length: n }, (_, i) => `a${i}: fundingHistory(coin: "BTC", interval: M1, lookback: H24, limit: ${100 + i}) { next }`).join(' ')} }`
    const hold = held()
    const holding = t.services.heavy.run(a.keyId, hold.work)
    await hold.running
    try {
      const one = await t.graphql(aliases(1), {}, a.apiKey)
      expect(one.errors).toBeUndefined()
      const many = await t.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${a.apiKey}` }, body: JSON.stringify({ query: aliases(20) }) })
      expect(many.status).toBe(429)
      const body = (await many.json()) as { data?: unknown; errors: { extensions: { code: string; scope: string } }[] }
      expect(body.errors[0]!.extensions).toMatchObject({ code: 'rate_limited', scope: 'key' })
      expect(body.data ?? null).toBeNull()
    } finally {
      hold.release()
      await holding
    }
  })

  it('with the node\'s queue full, another key\'s heavy call is 429 with scope node; its cheap calls answer', async () => {
    const b = await t.signup()
    const running = held()
    const waiting = held()
    // one runs (HEAVY_CONCURRENCY 1), one waits (HEAVY_QUEUE 1): the node is full
    const r1 = t.services.heavy.run('someone', running.work)
    await running.running
    const r2 = t.services.heavy.run('someone else', waiting.work)
    try {
      const res = await t.get(`/v1/flow/cvd?coin=BTC&interval=1m&start_time=${TEST_NOW - 30 * DAY}&end_time=${TEST_NOW}`, b.apiKey)
      expect(await expectProblem(res, 429, 'rate_limited')).toMatchObject({ scope: 'node', limit: 1 })
      expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/)
      expect((await t.get('/v1/markets/ticker', b.apiKey)).status).toBe(200)
      // /metrics: the node's queue and its refusals (the earlier tests refused four calls past the key's queue)
      const m = createMetrics('api')
      registerNodeMetrics(m, t.services, () => null)
      const text = await m.registry.metrics()
      const metric = (name: string) => Number(text.split('\n').find((l) => l.startsWith(`${name}{`))?.split(' ').at(-1))
      expect([metric('heavy_calls_running'), metric('heavy_calls_waiting'), metric('heavy_calls_refused_node_total')]).toEqual([1, 1, 1])
      expect(metric('heavy_calls_refused_key_total')).toBeGreaterThanOrEqual(3)
    } finally {
      running.release()
      waiting.release()
      await Promise.all([r1, r2])
    }
  })
})
