import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jetstreamManager } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'
import pg from 'pg'
import { BUS_STALE_MS } from '../../src/http/ops-routes.js'
import { DATA_TICK_MS } from '../../src/read/state.js'
import { ownNatsMissing, startOwnNats, type OwnNats } from '../helpers/nats-server.js'
import { freshDatabase, scaleOutEngines, startNode, testPool, until, type Node } from '../helpers/scale-out.js'
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js'

// A bus outage end to end (issue 31, item 2), as docs/operations.md deploys the service: one ingest node and two
// API nodes on a fresh PostgreSQL database, on a NATS server of the test's own (the shared one is never touched).
// API node B reaches NATS through a TCP proxy the test owns, so its link alone can hang. Then NATS stops for 31 s and
// starts again empty (its memory streams gone, as in the incident). Every process shares a clock running SPEED
// times the wall clock (test/helpers/clock-speed.mjs): the outage spans minutes of market time. What must hold:
//   - a node whose bus goes quiet is not ready within the documented bound, and ready again once it is fed again;
//   - NATS down: both API nodes not ready; NATS back empty: the streams and consumers are made again (nothing
//     restarted), tickers are fresh again and the nodes ready;
//   - every minute and hour the store holds over the outage is served by both API nodes exactly as stored.
const SPEED = 5
const clock = { epoch: Date.now(), speed: SPEED }
const warpedNow = () => clock.epoch + (Date.now() - clock.epoch) * SPEED
const MINUTE = 60_000
const HOUR = 60 * MINUTE
/** the outage of the incident, wall-clock */
const OUTAGE_MS = 31_000
/**
 * the documented bound for a quiet bus, in wall-clock ms here: BUS_STALE_MS of the shared clock, plus the writer's
 * persist tick and the API node's refresh tick of the store's newest events (timers run on the wall clock), plus
 * slack for a loaded machine
 */
const STALE_BOUND_MS = BUS_STALE_MS / SPEED + 2 * DATA_TICK_MS + 2000

interface Readyz {
  status: string
  writing: string[] | null
  bus: { connected: boolean; lag_ms: Record<string, number>; behind: string[] } | null
}
interface Candle {
  ts: number
  open: number
  high: number
  low: number
  close: number
  volume: number
  trades: number
}

describe('bus outage: a node cut off, then NATS restarted without its streams', () => {
  let skip: string | null = null
  const nodes: Node[] = []
  let db: Awaited<ReturnType<typeof freshDatabase>> | undefined
  let sql: pg.Pool | undefined
  let nats: OwnNats | undefined
  let proxy: TcpProxy | undefined
  let ingest: Node, apiA: Node, apiB: Node
  let key = ''
  const prefix = `o${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`

  const readyz = async (node: Node) => {
    const res = await fetch(`${node.url}/readyz`)
    return { code: res.status, body: (await res.json()) as Readyz }
  }
  const get = async <T>(node: Node, path: string) => {
    const res = await fetch(`${node.url}${path}`, { headers: { authorization: `Bearer ${key}` } })
    expect(res.status, `${node.name} ${path}`).toBe(200)
    return ((await res.json()) as { data: T }).data
  }
  /** every BTC row of both API nodes' ticker is at most 6 s old on the shared clock */
  const fresh = async (node: Node) => {
    const rows = await get<{ coin: string; exchange: string; age_ms: number | null; stale: boolean }[]>(node, '/v1/markets/ticker?coin=BTC')
    return rows.length === 5 && rows.every((r) => r.age_ms !== null && r.age_ms <= 6000 && !r.stale) ? true : undefined
  }
  const ready = async (node: Node) => ((await readyz(node)).code === 200 ? true : undefined)

  beforeAll(async () => {
    skip = (await scaleOutEngines({ redis: false, nats: false })) ?? ownNatsMissing()
    if (skip) {
      if (process.env.REQUIRE_NATS === '1') throw new Error(skip)
      return
    }
    nats = await startOwnNats()
    proxy = await startTcpProxy(nats.port)
    db = await freshDatabase('busout')
    sql = testPool(db.url)
    const env = {
      DATABASE_URL: db.url,
      BUS_PREFIX: prefix,
      SIM_COINS: 'BTC,ETH',
      SIM_SEED: '11',
      BACKFILL_DAYS: '0.01',
      LEASE_POLL_MS: '500',
      RATE_LIMIT_RPS: '100000',
      SIGNUP_LIMIT: '0',
      DEMO_CREDITS: '0',
      LOG_LEVEL: 'warn',
    }
    ingest = await startNode('ingest', { ...env, NATS_URL: nats.url, ROLE: 'ingest' }, clock)
    nodes.push(ingest)
    await until('the ingest node to hold every venue', async () => ((await readyz(ingest)).body.writing?.length === 5 ? true : undefined), 60_000)
    ;[apiA, apiB] = await Promise.all([
      startNode('api A', { ...env, NATS_URL: nats.url, ROLE: 'api' }, clock),
      startNode('api B', { ...env, NATS_URL: `nats://127.0.0.1:${proxy.port}`, ROLE: 'api' }, clock),
    ])
    nodes.push(apiA, apiB)
    for (const n of [apiA, apiB]) await until(`${n.name} ready`, () => ready(n), 60_000)
    const res = await fetch(`${apiA.url}/v1/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: `o${prefix}@example.com` }) })
    const { data } = (await res.json()) as { data: { api_key: string; account_id: string } }
    await sql.query('UPDATE account SET credits = 1000000 WHERE id = $1', [data.account_id])
    key = data.api_key
    for (const n of [apiA, apiB]) await until(`${n.name}: fresh tickers`, () => fresh(n), 30_000)
  }, 240_000)

  afterAll(async () => {
    for (const n of nodes) if (n.proc.exitCode === null) n.proc.kill('SIGKILL')
    await Promise.all(nodes.map((n) => n.exited))
    await sql?.end()
    await db?.drop()
    await proxy?.close()
    await nats?.close()
  })

  it(`a node whose bus goes quiet (its link hangs) answers /readyz 503 within ${BUS_STALE_MS / 1000} s + 2 data ticks, and is ready again once fed`, async (ctx) => {
    if (skip) return ctx.skip()
    const quietAt = Date.now()
    proxy!.freeze()
    try {
      const first = await until('api B to say it is not ready', async () => {
        const r = await readyz(apiB)
        return r.code === 503 ? r.body : undefined
      }, STALE_BOUND_MS + 5000, 200)
      expect(Date.now() - quietAt).toBeLessThanOrEqual(STALE_BOUND_MS)
      // the connection still looks open: it is the staleness that says so
      expect(first.bus!.behind.length, JSON.stringify(first.bus)).toBeGreaterThan(0)
      expect((await readyz(apiA)).code, 'the other node is unaffected').toBe(200)
    } finally {
      // the link comes back (the hung connection is dropped; the client connects again at once and makes its
      // consumers again: fed within seconds, not after a stalled pull's 30 s)
      proxy!.cut()
      proxy!.restore()
    }
    await until('api B ready again', () => ready(apiB), 10_000, 200)
    await until('api B: fresh tickers again', () => fresh(apiB), 10_000, 200)
  })

  it('NATS stopped for 31 s and started again empty: not ready while it is down; then streams and consumers made again, fresh and ready with no restart; every stored minute and hour served as stored', async (ctx) => {
    if (skip) return ctx.skip()
    const pids = nodes.map((n) => n.proc.pid)
    const downAt = Date.now()
    const outageFrom = Math.floor(warpedNow() / MINUTE) * MINUTE
    await nats!.stop()
    for (const n of [apiA, apiB]) await until(`${n.name} not ready while NATS is down`, async () => ((await readyz(n)).code === 503 ? true : undefined), 5000, 100)
    // the API keeps serving from the store meanwhile
    expect((await get<{ candles: Candle[] }>(apiA, '/v1/markets/ohlc?coin=BTC&exchange=binance&interval=1m&lookback=1h')).candles.length).toBeGreaterThan(0)
    await new Promise((r) => setTimeout(r, OUTAGE_MS - (Date.now() - downAt)))
    await nats!.start()
    const backAt = warpedNow()

    // the streams are made again by the nodes (nothing else makes them here), and both API nodes consume them
    const nc = await connect({ servers: nats!.url })
    try {
      const jsm = await jetstreamManager(nc)
      const up = prefix.toUpperCase()
      await until('the streams and both API nodes’ consumers made again', async () => {
        for (const s of ['LIVE', 'DATA', 'PUSH']) if ((await jsm.streams.info(`${up}_${s}`)).state.consumer_count < 2) return undefined
        return true
      }, 20_000, 200)
    } finally {
      await nc.close()
    }
    for (const n of [apiA, apiB]) {
      await until(`${n.name}: fresh tickers after the restart`, () => fresh(n), 20_000, 200)
      await until(`${n.name} ready after the restart`, () => ready(n), 20_000, 200)
    }
    expect(nodes.map((n) => n.proc.pid)).toEqual(pids)
    expect(nodes.every((n) => n.proc.exitCode === null)).toBe(true)

    // a window ending at a closed minute after NATS came back, once the store holds that minute
    const end = Math.floor(backAt / MINUTE) * MINUTE + 2 * MINUTE
    await until('the store to hold the minutes after the restart', async () => {
      const { rows } = await sql!.query(`SELECT 1 FROM candle_1m WHERE exchange = 'binance' AND coin = 'BTC' AND market_type = 'perp' AND ts = $1`, [end - MINUTE])
      return rows.length ? true : undefined
    }, 60_000, 200)
    await new Promise((r) => setTimeout(r, 2 * DATA_TICK_MS)) // the write's bus message (or the reload after a gap) reaches the API nodes

    const stored = async (table: 'candle_1m' | 'candle_1h', from: number, to: number) =>
      (await sql!.query<{ ts: string; open: number; high: number; low: number; close: number; volume: number; trades: number }>(
        `SELECT ts, open, high, low, close, volume, trades FROM ${table} WHERE exchange = 'binance' AND coin = 'BTC' AND market_type = 'perp' AND ts >= $1 AND ts < $2 AND trades > 0 ORDER BY ts`,
        [from, to],
      )).rows.map((r): Candle => ({ ts: Number(r.ts), open: r.open, high: r.high, low: r.low, close: r.close, volume: r.volume, trades: Number(r.trades) }))
    const pick = (c: Candle): Candle => ({ ts: c.ts, open: c.open, high: c.high, low: c.low, close: c.close, volume: c.volume, trades: c.trades })

    // minutes: the hour before `end`, the outage inside it
    const minutes = await stored('candle_1m', end - HOUR, end)
    expect(minutes.some((m) => m.ts >= outageFrom && m.ts < backAt), 'the store holds minutes written while NATS was down').toBe(true)
    // hours: whole hours from the store's hourly rollups, the hour in progress from its minutes (what the store holds)
    const h1 = Math.floor(end / HOUR) * HOUR
    const hoursWanted: Candle[] = [...(await stored('candle_1h', end - 24 * HOUR, h1))]
    const tail = await stored('candle_1m', h1, end)
    if (tail.length)
      hoursWanted.push({
        ts: h1, open: tail[0]!.open, high: Math.max(...tail.map((m) => m.high)), low: Math.min(...tail.map((m) => m.low)), close: tail.at(-1)!.close,
        volume: tail.reduce((s, m) => s + m.volume, 0), trades: tail.reduce((s, m) => s + m.trades, 0),
      })
    for (const n of [apiA, apiB]) {
      const m = await get<{ candles: Candle[] }>(n, `/v1/markets/ohlc?coin=BTC&exchange=binance&interval=1m&lookback=1h&end=${end}`)
      expect(m.candles.map(pick), `${n.name}: 1-minute candles`).toEqual(minutes)
      const h = await get<{ candles: Candle[] }>(n, `/v1/markets/ohlc?coin=BTC&exchange=binance&interval=1h&lookback=24h&end=${end}`)
      expect(h.candles.length, `${n.name}: hourly candles`).toBe(hoursWanted.length)
      for (const [i, c] of h.candles.entries()) {
        const want = hoursWanted[i]!
        expect({ ts: c.ts, trades: c.trades, open: c.open, close: c.close }, `${n.name}: the hour at ${new Date(c.ts).toISOString()}`).toEqual({ ts: want.ts, trades: want.trades, open: want.open, close: want.close })
        // summed in another order than the store's rollup: equal to the last few bits
        expect(Math.abs(c.volume - want.volume), `${n.name}: the hour's volume`).toBeLessThanOrEqual(1e-9 * Math.max(1, want.volume))
      }
    }
  }, 240_000)
})
