// Every liquidation figure says which venues it covers completely, which as a lower bound and which not at all, over
// its window (docs/methodology.md#liquidation-coverage): Binance's forceOrder and OKX's liquidation-orders publish
// samples, Bybit's allLiquidation and dYdX's trades every liquidation, Hyperliquid none (the venues' docs); and a
// venue whose liquidation stream went down inside the window is in it only in part. The streams' uptime is fed in by
// hand as the sources report it; every expected figure is written here from those inputs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { LiquidationEvent } from '../../src/domain/events.js'
import { Ingest } from '../../src/ingest/ingest.js'
import { TEST_NOW, seedMarket } from '../helpers/market.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { HOUR, MINUTE, callOk, type Json } from './markets/helpers.js'

const T = TEST_NOW // 2026-03-02 12:00:30 UTC
const PUBLISHING = ['binance', 'bybit', 'okx', 'dydx'] as const

const order = (exchange: LiquidationEvent['exchange'], ts: number, side: 'long' | 'short', price: number, size: number): LiquidationEvent => ({
  type: 'liquidation', exchange, coin: 'ETH', marketType: 'perp', ts, id: `${exchange}-${ts}`, side, price, size, usd: price * size,
})
/** ETH orders, all inside the last 4 h; Bybit's before its stream died, dYdX quiet */
const ORDERS = [order('binance', T - 3 * HOUR, 'long', 2000, 2), order('bybit', T - 3 * HOUR + 1000, 'short', 2010, 1), order('okx', T - 150 * MINUTE, 'long', 1990, 3), order('bybit', T - 130 * MINUTE, 'long', 2020, 0.5)]

let t: TestService
let acct: { apiKey: string; accountId: string }

beforeAll(async () => {
  t = await startTestService({ clock: () => T })
  // BTC: the simulator's market and feeds of the last 6 h (for the cascade)
  await seedMarket(t, { hours: 6, coins: ['BTC'] })
  // ETH: every venue's liquidation stream up from 5 h ago; Bybit's dies 2 h ago
  const ingest = new Ingest({ db: t.services.db, market: t.services.market, trackLive: false })
  for (const e of PUBLISHING) ingest.feed({ exchange: e, stream: 'liquidations', coins: ['ETH'], ts: T - 5 * HOUR, up: true })
  for (const o of ORDERS) ingest.emit(o)
  ingest.feed({ exchange: 'bybit', stream: 'liquidations', coins: ['ETH'], ts: T - 2 * HOUR, up: false })
  ingest.advance(T)
  await ingest.flush({ final: true })
  acct = await t.signup()
  await t.setCredits(acct.accountId, 100_000)
}, 120_000)
afterAll(() => t?.close())

const venue = (lc: Json, e: string) => (lc.exchanges as Json[]).find((v) => v.exchange === e)!
const sum = (os: LiquidationEvent[]) => os.reduce((a, o) => a + o.usd, 0)

/** the classification every ETH figure over the last 4 h must carry */
function expectEthWindow(lc: Json, from: number) {
  expect([lc.basis, lc.complete, lc.lower_bound, lc.none]).toEqual(['lower_bound', ['dydx'], ['binance', 'bybit', 'okx'], ['hyperliquid']])
  expect([lc.from, lc.to]).toEqual([from, T])
  expect(venue(lc, 'binance')).toMatchObject({ completeness: 'sample', stream: 'up', outages: [], counts: 'lower_bound' })
  expect(venue(lc, 'okx')).toMatchObject({ completeness: 'sample', stream: 'up', outages: [], counts: 'lower_bound' })
  // Bybit publishes every liquidation, but its stream was down for the last 2 h of the window
  expect(venue(lc, 'bybit')).toMatchObject({ completeness: 'complete', stream: 'partial', up_ms: T - 2 * HOUR - from, outages: [{ from: T - 2 * HOUR, to: T }], counts: 'lower_bound' })
  // no dYdX liquidation in the window, its stream up throughout: complete (zero), not missing
  expect(venue(lc, 'dydx')).toMatchObject({ completeness: 'complete', stream: 'up', up_ms: T - from, counts: 'complete', reason: null })
  expect(venue(lc, 'hyperliquid')).toMatchObject({ completeness: 'none', stream: 'not_published', counts: 'none' })
}

function expectBybitDown(coverage: Json) {
  expect(coverage.partial).toBe(true)
  expect(coverage.exchanges).toEqual([...PUBLISHING])
  const bybit = (coverage.missing as Json[]).find((m) => m.exchange === 'bybit')!
  expect(bybit.status).toBe('down')
  expect(bybit.reason).toBe('the Bybit liquidation stream was down for 2 h of the window (2026-03-02T10:00Z to 2026-03-02T12:00Z)')
  expect((coverage.missing as Json[]).map((m) => m.exchange)).toEqual(['bybit', 'hyperliquid'])
}

describe('liquidation figures: which venues they cover, and when each stream was up', () => {
  it('history: a quiet stream is complete; a stream dead halfway is in only in part, with its outage; samples are a lower bound', async () => {
    const { data } = await callOk(t, acct, '/v1/liquidations/history?coin=ETH&interval=1h&lookback=4h', 3)
    const from = Math.ceil((T - 4 * HOUR) / HOUR) * HOUR
    expect(data.total_long_usd + data.total_short_usd).toBeCloseTo(sum(ORDERS), 9)
    expect([data.coverage.requested_from, data.coverage.requested_to]).toEqual([from, T])
    expectBybitDown(data.coverage)
    expectEthWindow(data.liquidation_coverage, from)
    // dYdX published nothing and is not missing: its stream was up
    expect(data.missing).toEqual([{ exchange: 'hyperliquid', reason: 'Hyperliquid publishes no public liquidation feed' }])
    // the complete venue alone: a complete figure, zero, not partial
    const dydx = (await callOk(t, acct, '/v1/liquidations/history?coin=ETH&exchange=dydx&interval=1h&lookback=4h', 3)).data
    expect([dydx.total_long_usd, dydx.total_short_usd, dydx.coverage.partial, dydx.liquidation_coverage.basis]).toEqual([0, 0, false, 'complete'])
    expect(dydx.coverage.missing).toEqual([])
  })

  it('orders: the same venues, complete, lower bound or none, over the window', async () => {
    const { data } = await callOk(t, acct, '/v1/liquidations/orders?coin=ETH&lookback=4h&limit=100', 2)
    expect(data.orders.map((o: Json) => o.id).sort()).toEqual(ORDERS.map((o) => o.id).sort())
    expectBybitDown(data.coverage)
    expectEthWindow(data.liquidation_coverage, T - 4 * HOUR)
  })

  it("heatmap: the observed side says which venues' published liquidations it holds", async () => {
    const { data } = await callOk(t, acct, '/v1/liquidations/heatmap?coin=ETH&interval=1h&lookback=4h&bins=10', 10)
    expect(data.buckets.reduce((a: number, b: Json) => a + b.observed_usd, 0)).toBeCloseTo(sum(ORDERS), 9)
    expectEthWindow(data.liquidation_coverage, Math.ceil((T - 4 * HOUR) / HOUR) * HOUR)
  })

  it('a window before any stream was up: nothing collected, partial', async () => {
    const { data } = await callOk(t, acct, `/v1/liquidations/history?coin=ETH&interval=1h&start_time=${T - 8 * HOUR}&end_time=${T - 6 * HOUR}`, 3)
    const lc = data.liquidation_coverage
    expect([lc.basis, lc.complete, lc.lower_bound, lc.none]).toEqual(['none', [], [], ['binance', 'bybit', 'okx', 'hyperliquid', 'dydx']])
    for (const e of PUBLISHING) expect(venue(lc, e)).toMatchObject({ stream: 'down', up_ms: 0 })
    expect(data.coverage.partial).toBe(true)
    expect(data.coverage.exchanges).toEqual([])
  })

  it("cascade: the calibration's observed liquidations say which venues they are complete for; each venue's completeness", async () => {
    const price = Math.round(t.services.market.live.tickers.get('binance:BTC:perp')!.markPrice! * 0.97)
    const { data } = await callOk(t, acct, `/v1/signals/liquidation-cascade?coin=BTC&trigger_price=${price}`, 5)
    const c = data.calibration
    const lc = c.liquidation_coverage
    // the week of build-up: the BTC streams were up for its last 6 h only (seeded from 6 h before the current minute),
    // so every venue is a lower bound
    expect([lc.basis, lc.complete, lc.lower_bound, lc.none]).toEqual(['lower_bound', [], [...PUBLISHING], ['hyperliquid']])
    for (const e of PUBLISHING) expect(venue(lc, e).outages, e).toEqual([{ from: c.from, to: Math.floor(T / MINUTE) * MINUTE - 6 * HOUR }])
    expect(Object.fromEntries((data.by_exchange as Json[]).map((v) => [v.exchange, v.calibration.completeness]))).toEqual({ binance: 'sample', bybit: 'complete', okx: 'sample', hyperliquid: 'none', dydx: 'complete' })
  })

  it('GraphQL answers the same coverage', async () => {
    const r = await t.graphql('{ liquidationHistory(coin: "ETH", interval: H1, lookback: H4) { liquidationCoverage { basis complete lowerBound none exchanges { exchange stream outages { from to } } } } }', {}, acct.apiKey)
    const lc = r.data.liquidationHistory.liquidationCoverage
    expect([lc.basis, lc.complete, lc.lowerBound, lc.none]).toEqual(['lower_bound', ['dydx'], ['binance', 'bybit', 'okx'], ['hyperliquid']])
    expect(lc.exchanges.find((v: Json) => v.exchange === 'bybit').outages).toEqual([{ from: T - 2 * HOUR, to: T }])
  })
})

describe("/v1/markets/exchanges: a venue's liquidation status is its liquidation stream's", () => {
  let t2: TestService
  let key: string
  beforeAll(async () => {
    t2 = await startTestService({ clock: () => T })
    const ingest = new Ingest({ db: t2.services.db, market: t2.services.market, trackLive: false })
    for (const e of ['binance', 'bybit'] as const) ingest.feed({ exchange: e, stream: 'liquidations', coins: ['BTC'], ts: T - HOUR, up: true })
    ingest.feed({ exchange: 'bybit', stream: 'liquidations', coins: ['BTC'], ts: T - 5 * MINUTE, up: false })
    ingest.advance(T)
    await ingest.flush({ final: true })
    key = (await t2.signup()).apiKey
  }, 60_000)
  afterAll(() => t2?.close())

  it("Bybit's tickers are live and its liquidation stream died 5 minutes ago: the venue is operational, its liquidations are down", async () => {
    t2.services.market.touch('bybit', T)
    t2.services.market.touch('binance', T)
    const { data } = (await (await t2.get('/v1/markets/exchanges', key)).json()) as { data: Json[] }
    const by = Object.fromEntries(data.map((e) => [e.id, e]))
    expect(by.bybit.status).toBe('operational')
    expect(by.bybit.liquidations).toMatchObject({ status: 'down', status_reason: `the liquidation stream has not been up since ${new Date(T - 5 * MINUTE).toISOString()}`, up_since: null })
    expect(by.binance.liquidations).toMatchObject({ status: 'operational', status_reason: null, up_since: T - HOUR })
    expect(by.okx.liquidations).toMatchObject({ status: 'down', status_reason: 'not collected by this deployment (MARKET_SOURCE)' })
    expect(by.hyperliquid.liquidations).toMatchObject({ published: false, status: null })
    // its figures over the last hour say so too
    const h = (await (await t2.get('/v1/liquidations/history?coin=BTC&exchange=bybit&interval=15m&lookback=1h', key)).json()) as { data: Json }
    expect(h.data.coverage.partial).toBe(true)
    expect(venue(h.data.liquidation_coverage, 'bybit')).toMatchObject({ stream: 'partial', outages: [{ from: T - 5 * MINUTE, to: T }] })
  })
})
