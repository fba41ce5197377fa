// MARKET_SOURCE=auto (issue 30, item 6): live when a venue answers within a few seconds, the simulator otherwise; one
// kind of source per store. The probes are real HTTP requests: to a closed loopback port (nothing answers), to a tiny
// loopback server answering a venue's probe path, and to the venues' own hosts, which this test process cannot reach
// (test/helpers/no-network.ts). The socket is the point here.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { EXCHANGE_IDS, type ExchangeId } from '../../src/domain/exchanges.js'
import { probeVenues, VENUE_PROBES, type ProbeResult } from '../../src/sources/connectors/probe.js'
import { chooseSource, StoreSourceError, unansweredVenues } from '../../src/sources/source-choice.js'
import { sourceBanner } from '../../src/sources/source-banner.js'
import { startMarketRuntime, type MarketRuntime } from '../../src/sources/runtime.js'
import { readStoreSource } from '../../src/store/market/store-source.js'
import type { Database } from '../../src/store/database.js'
import { openTestStore } from '../helpers/store.js'
import { startTestService, type TestService } from '../helpers/service.js'

/** a loopback port nothing listens on: a server bound and closed again */
async function closedPort(): Promise<number> {
  const s = createServer()
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r))
  const { port } = s.address() as AddressInfo
  await new Promise<void>((r) => s.close(() => r()))
  return port
}

/** answers exactly the probe of `venue` (its method and path) with 200, and 404 to anything else; counts what it saw */
async function probeAnswerer(venue: ExchangeId, status = 200): Promise<{ server: Server; origin: string; seen: string[] }> {
  const seen: string[] = []
  const p = VENUE_PROBES[venue]
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`)
    let body = ''
    req.on('data', (d: Buffer) => (body += d.toString()))
    req.on('end', () => {
      const hit = req.method === p.method && req.url === p.path && (p.body === undefined || body === p.body)
      res.writeHead(hit ? status : 404, { 'content-type': 'application/json' }).end(hit ? '{}' : '{"error":"unknown"}')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen }
}

const everyVenueAt = (origin: string) => Object.fromEntries(EXCHANGE_IDS.map((e) => [e, origin])) as Record<ExchangeId, string>
/** base-URL overrides as the config's venue access gives them (<VENUE>_REST_URL) */
const at = (origins: Partial<Record<ExchangeId, string>>) => Object.fromEntries(Object.entries(origins).map(([e, restUrl]) => [e, { restUrl }]))
const memory = { store: { kind: 'embedded' as const, engine: 'postgres' as const, dataDir: '/srv/perp' } }

describe('probeVenues', () => {
  let answerer: Awaited<ReturnType<typeof probeAnswerer>>
  beforeAll(async () => {
    answerer = await probeAnswerer('hyperliquid')
  })
  afterAll(() => new Promise<void>((r) => answerer.server.close(() => r())))

  it('nothing listening: every venue not ok, each with its network error, all within the timeout', async () => {
    const origin = `http://127.0.0.1:${await closedPort()}`
    const t0 = Date.now()
    const r = await probeVenues({ access: at(everyVenueAt(origin)), timeoutMs: 2_500 })
    expect(Date.now() - t0).toBeLessThan(2_500)
    expect(r.map((p) => [p.exchange, p.ok, p.status, p.reason])).toEqual(EXCHANGE_IDS.map((e) => [e, false, null, 'ECONNREFUSED']))
  })

  it("a venue answering its probe path is ok; the method, path and body are the venue's (Hyperliquid: POST /info exchangeStatus)", async () => {
    const r = await probeVenues({ venues: ['hyperliquid', 'binance'], access: at({ hyperliquid: answerer.origin, binance: answerer.origin }) })
    expect(r.map((p) => [p.exchange, p.ok, p.status])).toEqual([
      ['hyperliquid', true, 200],
      ['binance', false, 404],
    ])
    expect(answerer.seen).toEqual(expect.arrayContaining(['POST /info', 'GET /fapi/v1/ping']))
  })

  it('a refusal (451) is not an answer, and says so', async () => {
    const refusing = await probeAnswerer('bybit', 451)
    try {
      const [r] = await probeVenues({ venues: ['bybit'], access: at({ bybit: refusing.origin }) })
      expect(r).toMatchObject({ exchange: 'bybit', ok: false, status: 451, reason: 'refused: 451 (unavailable from this location)' })
    } finally {
      await new Promise<void>((r) => refusing.server.close(() => r()))
    }
  })

  it('a venue behind HTTP_PROXY is probed through the proxy, as its connector reaches it (the proxy sees the absolute URL)', async () => {
    const proxy = await probeAnswerer('binance')
    try {
      const [r] = await probeVenues({ venues: ['binance'], access: { binance: { restUrl: 'http://fapi.venue.invalid', httpProxy: proxy.origin } } })
      expect(r).toMatchObject({ exchange: 'binance', ok: false, status: 404 })
      expect(proxy.seen).toEqual(['GET http://fapi.venue.invalid/fapi/v1/ping'])
      const [direct] = await probeVenues({ venues: ['binance'], access: { binance: { restUrl: 'http://fapi.venue.invalid', httpProxy: proxy.origin, noProxy: ['.venue.invalid'] } }, timeoutMs: 500 })
      expect(direct!.ok).toBe(false)
      expect(proxy.seen).toHaveLength(1)
    } finally {
      await new Promise<void>((r) => proxy.server.close(() => r()))
    }
  })

  it('a venue that accepts the connection but never answers is cut at the timeout', async () => {
    const silent = createServer(() => {})
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r))
    try {
      const t0 = Date.now()
      const [r] = await probeVenues({ venues: ['okx'], access: at({ okx: `http://127.0.0.1:${(silent.address() as AddressInfo).port}` }), timeoutMs: 300 })
      expect(Date.now() - t0).toBeLessThan(1_500)
      expect(r).toMatchObject({ ok: false, status: null, reason: 'no answer within 300 ms' })
    } finally {
      silent.closeAllConnections()
      await new Promise<void>((r) => silent.close(() => r()))
    }
  })

  it("the venues' own hosts, unreachable from here: every probe fails, fast", async () => {
    const t0 = Date.now()
    const r = await probeVenues()
    expect(Date.now() - t0).toBeLessThan(3_000)
    expect(r.every((p) => !p.ok)).toBe(true)
  })
})

describe('chooseSource', () => {
  let db: Database
  beforeAll(async () => {
    db = await openTestStore()
  })
  afterAll(() => db.close())
  afterEach(async () => {
    await db.sql.query('DELETE FROM store_source')
    await db.sql.query('DELETE FROM backfill_day')
    await db.sql.query('DELETE FROM candle_1m')
  })

  const none = (reason = 'ECONNREFUSED'): ProbeResult[] => EXCHANGE_IDS.map((exchange) => ({ exchange, ok: false, status: null, reason, ms: 3 }))
  const answered = (...ok: ExchangeId[]): ProbeResult[] => EXCHANGE_IDS.map((exchange) => ({ exchange, ok: ok.includes(exchange), status: ok.includes(exchange) ? 200 : null, reason: ok.includes(exchange) ? null : 'ECONNREFUSED', ms: 40 }))
  const choose = (MARKET_SOURCE: string, probe: () => Promise<ProbeResult[]> = async () => none()) => chooseSource({ config: { ...memory, MARKET_SOURCE }, db, now: () => Date.UTC(2026, 10, 27), probe })

  it('auto, no venue answering: the simulator, and the store is recorded as simulated', async () => {
    const c = await choose('auto')
    expect(c.source).toEqual({ kind: 'simulator' })
    expect(c.reason).toMatch(/^MARKET_SOURCE=auto: no venue answered within 0\.0 s \(binance ECONNREFUSED; bybit ECONNREFUSED; .*\), so the simulator runs$/)
    expect(sourceBanner(c)).toMatch(/^SIMULATED data \(the market simulator, not real prices\)\n/)
    expect((await readStoreSource(db)).kind).toBe('simulator')
  })

  it('auto, venues answering: live with exactly those venues, in canonical order', async () => {
    const c = await choose('auto', async () => answered('okx', 'binance'))
    expect(c.source).toEqual({ kind: 'live', exchanges: ['binance', 'okx'] })
    expect(c.reason).toMatch(/^MARKET_SOURCE=auto: 2 of 5 venues answered within 0\.0 s \(not: bybit ECONNREFUSED; hyperliquid ECONNREFUSED; dydx ECONNREFUSED\)$/)
    expect(sourceBanner(c)).toMatch(/^LIVE venue data from binance, okx\n/)
    expect([...unansweredVenues(c).keys()]).toEqual(['bybit', 'hyperliquid', 'dydx'])
    expect((await readStoreSource(db)).kind).toBe('live')
  })

  it('never mixes: a simulated store keeps auto on the simulator without asking the venues, and refuses live', async () => {
    await choose('simulator')
    let asked = 0
    const c = await choose('auto', async () => (asked++, answered(...EXCHANGE_IDS)))
    expect(c.source).toEqual({ kind: 'simulator' })
    expect(asked).toBe(0)
    expect(c.reason).toMatch(/the embedded store in \/srv\/perp\/pg holds simulated data, so the simulator runs \(live data needs a store of its own/)
    await expect(choose('binance,okx')).rejects.toThrow(StoreSourceError)
    await expect(choose('live')).rejects.toThrow(/the embedded store in \/srv\/perp\/pg holds simulated market data \(simulator -> simulator\); MARKET_SOURCE=live would write live venue data into it, and the two must not mix\. Start with MARKET_SOURCE=simulator \(or auto\), or give this source a store of its own: another DATA_DIR/)
  })

  it('a live store refuses the simulator; under auto it stays live, every venue, even when none answers yet', async () => {
    await choose('binance')
    await expect(choose('simulator')).rejects.toThrow(/holds live venue market data .*MARKET_SOURCE=simulator would write simulated data into it/)
    const c = await choose('auto')
    expect(c.source).toEqual({ kind: 'live', exchanges: [...EXCHANGE_IDS] })
    expect(c.reason).toMatch(/holds live data; no venue answered yet .* the connectors keep trying$/)
    expect((await readStoreSource(db)).kind).toBe('live')
  })

  it('a replayed store takes replays only: auto and live are refused', async () => {
    await choose('replay:recordings/fixtures.jsonl')
    await expect(choose('auto')).rejects.toThrow(/holds replayed market data .* Start with MARKET_SOURCE=replay:<file> or none/)
    await expect(choose('live')).rejects.toThrow(StoreSourceError)
    expect((await choose('replay:recordings/other.jsonl')).source).toEqual({ kind: 'replay', file: 'recordings/other.jsonl' })
  })

  it('a store from before the marker: the simulator\'s backfill days make it simulated; other data without one keeps auto off the venues', async () => {
    await db.sql.query(`INSERT INTO backfill_day (source, day) VALUES ('simulator:42', $1)`, [Date.UTC(2026, 10, 1)])
    expect(await readStoreSource(db)).toMatchObject({ kind: 'simulator', inferred: true })
    await expect(choose('live')).rejects.toThrow(/holds simulated market data \(inferred: the simulator backfilled this store\)/)
    await db.sql.query('DELETE FROM backfill_day')
    await db.sql.query(`INSERT INTO candle_1m (exchange, coin, market_type, ts, open, high, low, close, volume, buy_volume, sell_volume, quote_volume, trades, vap) VALUES ('binance', 'BTC', 'perp', 0, 1, 1, 1, 1, 0, 0, 0, 0, 0, '')`)
    const c = await choose('auto', async () => answered(...EXCHANGE_IDS))
    expect(c.source).toEqual({ kind: 'simulator' })
    expect(c.reason).toMatch(/holds market data from before its source was recorded/)
  })

  it('none runs nothing and records nothing', async () => {
    expect((await choose('none')).source).toEqual({ kind: 'none' })
    expect((await readStoreSource(db)).kind).toBeNull()
  })
})

describe('the runtime under MARKET_SOURCE=auto', () => {
  let t: TestService | null = null
  let runtime: MarketRuntime | null = null
  afterEach(async () => {
    await runtime?.stop()
    await t?.close()
    runtime = t = null
  })
  const exchanges = async (s: TestService) => {
    const { apiKey } = await s.signup()
    return ((await (await s.get('/v1/markets/exchanges', apiKey)).json()) as { data: Array<{ id: string; source: string | null; status_reason: string | null }> }).data
  }

  it('with no venue reachable (the default probe, offline) it is on the simulator within seconds, and says so per venue', async () => {
    t = await startTestService({ env: { MARKET_SOURCE: 'auto', SIM_COINS: 'BTC', BACKFILL_DAYS: '0' } })
    const t0 = Date.now()
    runtime = await startMarketRuntime(t.services)
    expect(Date.now() - t0).toBeLessThan(3_000)
    expect(runtime.choice.source).toEqual({ kind: 'simulator' })
    expect(runtime.choice.probes).toHaveLength(5)
    expect((await exchanges(t)).map((e) => [e.id, e.source])).toEqual(EXCHANGE_IDS.map((e) => [e, 'simulator']))
  })

  it('with a venue answering (a loopback server on its probe path) it goes live with that venue only, never the simulator beside it', async () => {
    const answerer = await probeAnswerer('okx')
    const closed = `http://127.0.0.1:${await closedPort()}`
    try {
      t = await startTestService({ env: { MARKET_SOURCE: 'auto', BACKFILL_DAYS: '0' } })
      runtime = await startMarketRuntime(t.services, { probe: () => probeVenues({ access: at({ ...everyVenueAt(closed), okx: answerer.origin }) }) })
      expect(runtime.choice.source).toEqual({ kind: 'live', exchanges: ['okx'] })
      expect([...t.services.market.enabled]).toEqual(['okx'])
      const by = new Map((await exchanges(t)).map((e) => [e.id, e]))
      expect(by.get('okx')!.source).toBe('live')
      for (const e of ['binance', 'bybit', 'hyperliquid', 'dydx']) {
        expect(by.get(e)!.source).toBeNull()
        expect(by.get(e)!.status_reason).toBe('did not answer the start probe (ECONNREFUSED); restart to try it again')
      }
      expect(answerer.seen).toEqual(['GET /api/v5/public/time'])
    } finally {
      await new Promise<void>((r) => answerer.server.close(() => r()))
    }
  })
  it("probes a venue at its REST base-URL override (<VENUE>_REST_URL), the other venues at their own hosts", async () => {
    const answerer = await probeAnswerer('dydx')
    try {
      // the venue's base-URL override (item 5): where its connector and its probe reach it
      t = await startTestService({ env: { MARKET_SOURCE: 'auto', BACKFILL_DAYS: '0', DYDX_REST_URL: answerer.origin } })
      runtime = await startMarketRuntime(t.services)
      expect(runtime.choice.source).toEqual({ kind: 'live', exchanges: ['dydx'] })
      expect(answerer.seen).toEqual(['GET /v4/time'])
    } finally {
      await new Promise<void>((r) => answerer.server.close(() => r()))
    }
  })
})
