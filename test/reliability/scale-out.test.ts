import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jetstreamManager } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'
import http from 'node:http'
import { Redis } from 'ioredis'
import pg from 'pg'
import { NATS_TEST_URL, REDIS_TEST_URL, freshDatabase, scaleOutEngines, startNode, testPool, until, type Node } from '../helpers/scale-out.js'

// On loopback, the deployment of docs/operations.md: one ingest writer, one ingest standby, two API nodes, on a
// fresh PostgreSQL database, NATS JetStream (a prefix of its own) and Redis. All four processes share a clock
// running SPEED times as fast as the wall clock (test/helpers/clock-speed.mjs), so simulated minutes close every
// 60/SPEED s and the hand-over can be watched across minute boundaries in seconds.
const SPEED = 5
const clock = { epoch: Date.now(), speed: SPEED }
const warpedNow = () => clock.epoch + (Date.now() - clock.epoch) * SPEED
const MINUTE = 60_000
const AUTH_FAILURE_LIMIT = 10

// mixed costs (the endpoints' prices), as in test/reliability/credits-postgres.test.ts
const CALLS: [string, number][] = [
  ['/v1/markets/exchanges', 1],
  ['/v1/markets/ticker?coin=BTC', 1],
  ['/v1/markets/ohlc?coin=BTC&lookback=4h', 2],
  ['/v1/structure/spread?coin=ETH', 3],
  ['/v1/oi/changes?coin=BTC', 3],
  ['/v1/flow/imbalance?coin=BTC', 5],
  ['/v1/signals/snapshot', 10],
]
/** what both API nodes must answer alike (every endpoint of the contract, a few parameter sets) */
const COMPARED = [
  '/v1/markets/exchanges',
  '/v1/markets/ticker',
  '/v1/markets/ohlc?coin=BTC&interval=1m&lookback=1h',
  '/v1/markets/ohlc?coin=ETH&exchange=binance&interval=5m&lookback=4h',
  '/v1/structure/volume-profile?coin=BTC',
  '/v1/structure/spread',
  '/v1/funding/weighted?coin=BTC',
  '/v1/flow/imbalance?coin=BTC',
  '/v1/oi/changes?coin=BTC',
  '/v1/signals/divergence?coin=BTC',
  '/v1/signals/liquidation-cascade?coin=BTC&trigger_price=90000',
  '/v1/signals/snapshot',
]
/**
 * what belongs to one request, not to the result: its metering (meta: credits charged and left, request id), the
 * times that say when it was answered (each node's own request time); and a
 * venue's last_update, the newest event's time, which moves with every event (4 times a second here): it is
 * compared apart, within a second of the shared clock
 */
const REQUEST_TIME = new Set(['meta', 'request_id', 'as_of', 'start', 'end', 'age_ms', 'generated_at', 'computed_at', 'requested_to', 'last_update'])
/** a request time quoted in a note (to the millisecond; stored data sits on whole minutes) */
const QUOTED_TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g

/**
 * times derived from each node's own request time where a model has no data (a spread's `ts`, a coverage's
 * `requested_from`): b takes a's value when the two are within REQUEST_SKEW_MS of the shared clock; stored and
 * event times are equal on both nodes or differ by whole minutes
 */
const NOW_DERIVED = new Set(['ts', 'requested_from'])
const REQUEST_SKEW_MS = 10_000
const reconcile = (a: unknown, b: unknown): unknown => {
  if (Array.isArray(a) && Array.isArray(b)) return b.map((x, i) => reconcile(a[i], x))
  if (a && b && typeof a === 'object' && typeof b === 'object')
    return Object.fromEntries(
      Object.entries(b).map(([k, x]) => {
        const y = (a as Record<string, unknown>)[k]
        if (NOW_DERIVED.has(k) && typeof x === 'number' && typeof y === 'number' && Math.abs(x - y) <= REQUEST_SKEW_MS) return [k, y]
        return [k, reconcile(y, x)]
      }),
    )
  return b
}

const strip = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(strip)
    : v && typeof v === 'object'
      ? Object.fromEntries(Object.entries(v).filter(([k]) => !REQUEST_TIME.has(k)).map(([k, x]) => [k, strip(x)]))
      : typeof v === 'string'
        ? v.replace(QUOTED_TIME, '<request time>')
        : v

describe('scale out: ingest writer + standby, two API nodes, PostgreSQL + NATS + Redis', () => {
  let skip: string | null = null
  const nodes: Node[] = []
  let db: Awaited<ReturnType<typeof freshDatabase>> | undefined
  let sql: pg.Pool | undefined
  let ingestA: Node, ingestB: Node, apiA: Node, apiB: Node
  const prefix = `t${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`

  const get = (node: Node, path: string, key?: string, init: RequestInit = {}) =>
    fetch(`${node.url}${path}`, { ...init, headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(init.headers as Record<string, string>) } })
  const readyz = async (node: Node) => (await (await fetch(`${node.url}/readyz`)).json()) as { status: string; writing: string[] | null; bus: { connected: boolean } }

  beforeAll(async () => {
    skip = await scaleOutEngines()
    if (skip) return
    db = await freshDatabase('scale')
    sql = testPool(db.url)
    const env = {
      DATABASE_URL: db.url,
      NATS_URL: NATS_TEST_URL,
      REDIS_URL: REDIS_TEST_URL,
      // the nodes count failed authentications in Redis: on two loaded cores a command can take longer than the
      // default 200 ms, which opens the circuit and makes the nodes count on their own (the outage behaviour,
      // tested with the default in test/rest/rate-limit-store.test.ts), and the shared count this test checks fails
      REDIS_COMMAND_TIMEOUT_MS: '2000',
      BUS_PREFIX: prefix,
      SIM_COINS: 'BTC,ETH',
      SIM_SEED: '7',
      BACKFILL_DAYS: '0.01',
      LEASE_POLL_MS: '500',
      RATE_LIMIT_RPS: '100000',
      AUTH_FAILURE_LIMIT: String(AUTH_FAILURE_LIMIT),
      SIGNUP_LIMIT: '0',
      DEMO_CREDITS: '0',
      LOG_LEVEL: 'warn',
    }
    // the writer first (it migrates the new database and takes every lease), then the standby and the API nodes
    ingestA = await startNode('ingest A', { ...env, ROLE: 'ingest' }, clock)
    nodes.push(ingestA)
    await until('ingest A to hold every venue', async () => ((await readyz(ingestA)).writing?.length === 5 ? true : undefined))
    ;[ingestB, apiA, apiB] = await Promise.all([startNode('ingest B', { ...env, ROLE: 'ingest' }, clock), startNode('api A', { ...env, ROLE: 'api' }, clock), startNode('api B', { ...env, ROLE: 'api' }, clock)])
    nodes.push(ingestB, apiA, apiB)
    for (const n of [apiA, apiB, ingestB]) await until(`${n.name} ready`, async () => ((await readyz(n)).status === 'ready' ? true : undefined))
  }, 180_000)

  afterAll(async () => {
    for (const n of nodes) if (n.proc.exitCode === null) n.proc.kill('SIGKILL')
    await Promise.all(nodes.map((n) => n.exited))
    await sql?.end()
    await db?.drop()
    if (!skip) {
      const nc = await connect({ servers: NATS_TEST_URL })
      const jsm = await jetstreamManager(nc)
      for (const s of ['LIVE', 'DATA', 'PUSH']) await jsm.streams.delete(`${prefix.toUpperCase()}_${s}`).catch(() => {})
      await nc.close()
    }
  })

  const signup = async (node: Node, credits: number) => {
    const res = await get(node, '/v1/auth/signup', undefined, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: `u${Math.random().toString(36).slice(2)}@example.com` }) })
    expect(res.status).toBe(201)
    const { data } = (await res.json()) as { data: { api_key: string; account_id: string } }
    await sql!.query('UPDATE account SET credits = $2 WHERE id = $1', [data.account_id, credits])
    await sql!.query('DELETE FROM credit_ledger WHERE account_id = $1', [data.account_id])
    return { key: data.api_key, accountId: data.account_id }
  }

  it('tickers on both API nodes are at most 6 s old (of the shared clock, which runs 5× the wall clock)', async (ctx) => {
    if (skip) return ctx.skip()
    const { key } = await signup(apiA, 1000)
    for (const node of [apiA, apiB]) {
      const rows = await until(`${node.name}: fresh tickers of both coins on all five venues`, async () => {
        const body = (await (await get(node, '/v1/markets/ticker', key)).json()) as { data: { coin: string; exchange: string; age_ms: number | null; stale: boolean }[] }
        const fresh = body.data.filter((r) => r.age_ms !== null && !r.stale)
        return fresh.length >= 10 ? body.data : undefined
      })
      const live = rows.filter((r) => r.coin === 'BTC' || r.coin === 'ETH')
      expect(live.length).toBe(10)
      for (const r of live) expect(r.age_ms!, `${node.name} ${r.coin} ${r.exchange}`).toBeLessThanOrEqual(6000)
    }
  })

  it('both API nodes answer every endpoint identically', async (ctx) => {
    if (skip) return ctx.skip()
    const { key } = await signup(apiA, 100_000)
    for (const path of COMPARED) {
      // a store write can land between the two answers: ask again until both saw the same one
      const [a, b] = await until(`${path}: the same answer from both nodes`, async () => {
        const [ra, rb] = await Promise.all([get(apiA, path, key), get(apiB, path, key)])
        const bodyA = strip(await ra.json())
        const pair = [{ status: ra.status, body: bodyA }, { status: rb.status, body: reconcile(bodyA, strip(await rb.json())) }] as const
        return JSON.stringify(pair[0]) === JSON.stringify(pair[1]) ? pair : undefined
      }, 20_000, 50).catch(async (e: Error) => {
        const [ra, rb] = await Promise.all([get(apiA, path, key), get(apiB, path, key)])
        const bodyA = strip(await ra.json())
        expect(reconcile(bodyA, strip(await rb.json())), `${path}: ${e.message}`).toEqual(bodyA)
        return [null, null]
      })
      expect(a?.status, path).toBe(200)
      expect(b).toEqual(a)
    }
    const [ea, eb] = await Promise.all([apiA, apiB].map(async (n) => ((await (await get(n, '/v1/markets/exchanges', key)).json()) as { data: { id: string; last_update: number }[] }).data))
    for (const [i, row] of ea!.entries()) expect(Math.abs(row.last_update - eb![i]!.last_update), row.id).toBeLessThanOrEqual(SPEED * 1000)
  })

  it('1,000 parallel mixed calls over both nodes against an account covering half: exact credits, no 429, 402 for the rest', async (ctx) => {
    if (skip) return ctx.skip()
    const plan = Array.from({ length: 1000 }, (_, i) => CALLS[(i * 7 + (i >> 3)) % CALLS.length]!)
    const total = plan.reduce((s, [, c]) => s + c, 0)
    const START = Math.floor(total / 2)
    const { key, accountId } = await signup(apiA, START)
    const results = await Promise.all(
      plan.map(async ([path, cost], i) => {
        const res = await get(i % 2 ? apiB : apiA, path, key)
        const body = (await res.json()) as Record<string, unknown>
        return { path, cost, status: res.status, body, charged: Number(res.headers.get('x-credits-charged')), requestId: res.headers.get('x-request-id')! }
      }),
    )
    const ok = results.filter((r) => r.status === 200)
    const refused = results.filter((r) => r.status !== 200)
    for (const r of ok) expect(r.charged, r.path).toBe(r.cost)
    for (const r of refused) {
      expect(r.status, JSON.stringify(r.body)).toBe(402)
      expect(r.body).toMatchObject({ code: 'insufficient_credits', credits_required: r.cost })
      expect(r.charged).toBe(0)
    }
    const spent = ok.reduce((s, r) => s + r.cost, 0)
    const { rows: [acct] } = await sql!.query<{ credits: number }>('SELECT credits FROM account WHERE id = $1', [accountId])
    const { rows: ledger } = await sql!.query<{ delta: number; request_id: string }>(`SELECT delta, request_id FROM credit_ledger WHERE account_id = $1 AND kind = 'charge'`, [accountId])
    expect(acct!.credits).toBe(START - spent)
    expect(acct!.credits).toBeGreaterThanOrEqual(0)
    // whatever is left is less than the cheapest call that was refused: the account was spent, not under-served
    expect(acct!.credits).toBeLessThan(Math.min(...refused.map((r) => r.cost)))
    expect(-ledger.reduce((s, l) => s + Number(l.delta), 0)).toBe(spent)
    expect(new Set(ledger.map((l) => l.request_id))).toEqual(new Set(ok.map((r) => r.requestId)))
    expect(ok.length + refused.length).toBe(1000)
    expect(refused.length).toBeGreaterThan(0)
  })

  it('a key revoked on node A is refused on node B within 1 s, on HEAD and on GET', async (ctx) => {
    if (skip) return ctx.skip()
    const { key } = await signup(apiA, 1000)
    const created = (await (await get(apiA, '/v1/auth/keys', key, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name: 'second' }) })).json()) as { data: { id: string; api_key: string } }
    const second = created.data.api_key
    // B knows the key (its lookup cache holds it) before the revocation
    expect((await get(apiB, '/v1/markets/ticker?coin=BTC', second)).status).toBe(200)
    expect((await get(apiB, '/v1/markets/ticker?coin=BTC', second, { method: 'HEAD' })).status).toBe(200)
    expect((await get(apiA, `/v1/auth/keys/${created.data.id}`, key, { method: 'DELETE' })).status).toBe(200)
    const revokedAt = Date.now()
    // HEAD first (a refused GET would drop the key from B's cache): it charges nothing, so it reads the key itself
    for (const method of ['HEAD', 'GET']) {
      const status = await until(`B to refuse the revoked key on ${method}`, async () => {
        const s = (await get(apiB, '/v1/markets/ticker?coin=BTC', second, { method })).status
        return s === 401 ? s : undefined
      }, 1000, 20)
      expect(status, method).toBe(401)
    }
    expect(Date.now() - revokedAt).toBeLessThanOrEqual(1000)
  })

  it('failed authentications are counted across nodes (Redis): the limit trips on either node', async (ctx) => {
    if (skip) return ctx.skip()
    const bad = `pa_${'x'.repeat(43)}`
    // from an address of its own (the other tests call from 127.0.0.1), alternating nodes: each node alone sees half
    const from = '127.0.0.9'
    const status = (node: Node) =>
      new Promise<number>((resolve, reject) => {
        const req = http.get(`${node.url}/v1/markets/ticker`, { localAddress: from, headers: { authorization: `Bearer ${bad}` } }, (res) => {
          res.resume()
          resolve(res.statusCode!)
        })
        req.on('error', reject)
      })
    const answers: number[] = []
    for (let i = 0; i < AUTH_FAILURE_LIMIT; i++) answers.push(await status(i % 2 ? apiB : apiA))
    expect(answers).toEqual(Array(AUTH_FAILURE_LIMIT).fill(401))
    // a failure is counted when its answer has gone out: wait until Redis holds all of them, in one counter
    const redis = new Redis(REDIS_TEST_URL)
    try {
      await until('Redis to count every failure', async () => (Number(await redis.get(`${prefix}:authfail:authfail:${from}`)) === AUTH_FAILURE_LIMIT ? true : undefined), 5000, 20)
    } finally {
      redis.disconnect()
    }
    expect(await status(apiA)).toBe(429)
    expect(await status(apiB)).toBe(429)
  })

  it('killing the writer hands over to the standby within 15 s: no minute lost, none written twice, API nodes follow', async (ctx) => {
    if (skip) return ctx.skip()
    const since = warpedNow() - 5 * MINUTE
    // the writer's rows as they stand, with their row versions (xmin changes when a row is written again)
    const rowsNow = async () =>
      (await sql!.query<{ k: string; ts: string; xmin: string; volume: number }>(`SELECT exchange || ':' || coin || ':' || market_type AS k, ts, xmin::text, volume FROM candle_1m WHERE ts >= $1 ORDER BY 1, 2`, [since])).rows
    await until('the writer to store a minute in the window', async () => ((await rowsNow()).length > 0 ? true : undefined))
    const before = await rowsNow()
    ingestA.proc.kill('SIGKILL')
    const killedAt = Date.now()
    const killedMinute = Math.floor(warpedNow() / MINUTE) * MINUTE
    await ingestA.exited
    await until('the standby to hold every venue', async () => ((await readyz(ingestB)).writing?.length === 5 ? true : undefined), 15_000)
    expect(Date.now() - killedAt).toBeLessThanOrEqual(15_000)
    // the minute the writer died in, and the next one, closed and written by the standby
    const markets = new Set(before.map((r) => r.k))
    const after = await until('the standby to store the minutes after the kill for every market', async () => {
      const rows = await rowsNow()
      const done = [...markets].every((k) => rows.some((r) => r.k === k && Number(r.ts) >= killedMinute + MINUTE))
      return done ? rows : undefined
    }, 60_000, 200)
    for (const k of markets) {
      const ts = after.filter((r) => r.k === k).map((r) => Number(r.ts))
      // contiguous: one row per minute from the first to the last
      expect(ts.length, k).toBe((ts.at(-1)! - ts[0]!) / MINUTE + 1)
    }
    // every row the writer had stored is the very row version it wrote: the standby wrote none of them again
    const version = new Map(after.map((r) => [`${r.k}@${r.ts}`, r.xmin]))
    for (const r of before) expect(version.get(`${r.k}@${r.ts}`), `${r.k}@${r.ts}`).toBe(r.xmin)
    const { rows: partial } = await sql!.query('SELECT * FROM minute_partial WHERE ts >= $1', [since])
    expect(partial).toEqual([])
    // the API nodes' in-memory series follow the new writer (no restart): the minute after the kill is served
    const { key } = await signup(apiA, 1000)
    for (const node of [apiA, apiB]) {
      await until(`${node.name} to serve the standby's minutes`, async () => {
        const body = (await (await get(node, '/v1/markets/ohlc?coin=BTC&exchange=binance&interval=1m&lookback=1h', key)).json()) as { data: { candles: { ts: number }[] } }
        return body.data.candles.some((c) => c.ts >= killedMinute + MINUTE) ? true : undefined
      }, 20_000, 200)
    }
  })
})
