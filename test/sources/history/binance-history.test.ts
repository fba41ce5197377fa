// The Binance history against the Binance venue double (a loopback HTTP server serving Binance's documented
// payloads, paging, limits and faults): a backfill asks each page once inside the budget, resumes after a kill,
// repairs an outage, flags a hole the venue cannot serve; what is stored equals the double's series.
import '../../helpers/no-network.js'
import { afterEach, describe, expect, it } from 'vitest'
import { startVenueDouble, type VenueDouble } from '../../helpers/venue-doubles/index.js'
import { startTestService, type TestService } from '../../helpers/service.js'
import { startVenueHistory, type VenueLive } from './venue-double.js'

const MIN = 60_000
const DAY = 86_400_000
const T0 = Date.UTC(2026, 10, 20, 12, 0, 30)
const COINS = ['BTC', 'ETH']
const DAYS = 2
const HISTORY_PATHS = ['/fapi/v1/klines', '/api/v3/klines', '/futures/data/openInterestHist', '/futures/data/globalLongShortAccountRatio', '/futures/data/topLongShortPositionRatio', '/fapi/v1/fundingRate']

async function until(cond: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms
  while (!(await cond())) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 25))
  }
}

describe('Binance history on the venue double', () => {
  let clock = T0
  let double: VenueDouble
  let svc: TestService
  let live: VenueLive | null = null
  const start = () => Math.ceil((Math.floor(clock / MIN) * MIN - DAYS * DAY) / MIN) * MIN
  const end = () => Math.floor(clock / MIN) * MIN

  async function boot(concurrency?: number) {
    live = await startVenueHistory(svc.services, 'binance', double, { coins: COINS, days: DAYS, concurrency, pollIntervalMs: 200 })
    return live
  }
  async function setup() {
    clock = T0
    double = await startVenueDouble('binance', { now: () => clock, seed: 5, coins: COINS })
    svc = await startTestService({ clock: () => clock })
  }
  afterEach(async () => {
    await live?.stop()
    live = null
    await svc?.close()
    await double?.close()
  })

  const historyRequests = () => double.requests.filter((r) => HISTORY_PATHS.includes(r.path) && r.query.has('startTime') && r.query.get('startTime') !== '0')
  const pageKey = (r: { path: string; query: URLSearchParams }) => `${r.path}?${r.query.get('symbol')}&${r.query.get('startTime')}&${r.query.get('endTime')}`

  async function storedCandles(coin: string, marketType: 'perp' | 'spot') {
    return svc.services.db.sql.query<{ ts: string; open: number; high: number; low: number; close: number; volume: number; buy_volume: number; sell_volume: number; quote_volume: number; trades: number; source: string }>(
      "SELECT ts, open, high, low, close, volume, buy_volume, sell_volume, quote_volume, trades, source FROM candle_1m WHERE exchange = 'binance' AND coin = $1 AND market_type = $2 ORDER BY ts",
      [coin, marketType],
    )
  }

  it('a fresh backfill asks each page once inside the budget, and stores exactly what the pages hold', async () => {
    await setup()
    const h = await boot()
    await h.history.idle()
    const reqs = historyRequests()
    expect(reqs.length).toBeGreaterThan(0)
    expect(new Set(reqs.map(pageKey)).size).toBe(reqs.length)
    // inside the budget: the double never answered 429 or 418
    expect(double.requests.filter((r) => r.status === 429 || r.status === 418)).toEqual([])
    // the polls drew from the same budget (live priority) as the history (backfill)
    expect(h.budget.stats().pools.find((p) => p.name === 'fapi')!.used).toBeGreaterThan(0)

    for (const coin of COINS) {
      for (const mt of ['perp', 'spot'] as const) {
        const want = double.history.candles(coin, mt, start(), end()).filter((c) => c.closed)
        const got = await storedCandles(coin, mt)
        expect(want.length).toBe(DAYS * 1440)
        expect(got.map((r) => Number(r.ts))).toEqual(want.map((c) => c.openTime))
        // provenance: every minute says it came from the venue's klines
        expect(new Set(got.map((r) => r.source))).toEqual(new Set(['venue_kline']))
        got.forEach((r, i) => {
          const c = want[i]!
          expect([r.open, r.high, r.low, r.close, r.trades]).toEqual([c.open, c.high, c.low, c.close, c.trades])
          expect(r.volume).toBeCloseTo(c.volume, 8)
          expect(r.buy_volume).toBeCloseTo(c.takerBuyVolume, 8)
          expect(r.sell_volume).toBeCloseTo(c.volume - c.takerBuyVolume, 8)
          expect(r.quote_volume).toBeCloseTo(c.quoteVolume, 4)
        })
      }
      const oi = await svc.services.db.sql.query<{ ts: string; open_interest: number }>("SELECT ts, open_interest FROM market_sample WHERE exchange = 'binance' AND coin = $1 AND market_type = 'perp' AND ts < $2 AND open_interest IS NOT NULL ORDER BY ts", [coin, end()])
      const wantOi = double.history.openInterest(coin, start(), end())
      expect(oi.map((r) => [Number(r.ts), r.open_interest])).toEqual(wantOi.map((p) => [p.ts, p.openInterest]))
      const funding = await svc.services.db.sql.query<{ ts: string; rate: number; interval_hours: number }>("SELECT ts, rate, interval_hours FROM funding_rate WHERE exchange = 'binance' AND coin = $1 AND ts >= $2 ORDER BY ts", [coin, start()])
      expect(funding.map((r) => [Number(r.ts), r.rate, r.interval_hours])).toEqual(double.history.funding(coin, start(), end()).map((p) => [p.ts, p.rate, p.intervalHours]))
      for (const kind of ['account', 'top_position'] as const) {
        const rows = await svc.services.db.sql.query<{ ts: string; long_share: number; short_share: number; ratio: number }>("SELECT ts, long_share, short_share, ratio FROM positioning_sample WHERE exchange = 'binance' AND coin = $1 AND kind = $2 AND ts < $3 ORDER BY ts", [coin, kind, end()])
        expect(rows.map((r) => [Number(r.ts), r.long_share, r.short_share, r.ratio])).toEqual(double.history.longShort(coin, kind, start(), end()).map((p) => [p.ts, p.longShare, p.shortShare, p.ratio]))
      }
    }
    // progress: every series covers the window; /healthz says so
    const progress = await svc.services.db.sql.query<{ covered_from: string; covered_to: string }>("SELECT covered_from, covered_to FROM history_progress WHERE exchange = 'binance'")
    expect(progress).toHaveLength(COINS.length * 5)
    for (const p of progress) expect([Number(p.covered_from) <= start(), Number(p.covered_to)]).toEqual([true, end()])
    // the service's figures: /v1/markets/ohlc's hourly candles are the double's minutes folded by hand
    const key = (await svc.signup()).apiKey
    const res = await svc.get('/v1/markets/ohlc?coin=BTC&exchange=binance&interval=1h&lookback=24h', key)
    expect(res.status).toBe(200)
    const ohlc = ((await res.json()) as { data: any }).data
    const hours = ohlc.candles as { ts: number; open: number; high: number; low: number; close: number; volume: number; buy_volume: number }[]
    // the window's whole hours: from the first hour opening inside it to the last closed one
    const first = Math.ceil((clock - DAY) / (60 * MIN)) * 60 * MIN
    expect(hours.map((c) => c.ts)).toEqual(Array.from({ length: (end() - first) / (60 * MIN) }, (_, i) => first + i * 60 * MIN))
    for (const c of hours) {
      const ms = double.history.candles('BTC', 'perp', c.ts, c.ts + 60 * MIN).filter((x) => x.closed)
      expect([c.open, c.high, c.low, c.close]).toEqual([ms[0]!.open, Math.max(...ms.map((x) => x.high)), Math.min(...ms.map((x) => x.low)), ms.at(-1)!.close])
      expect(c.volume).toBeCloseTo(ms.reduce((a, x) => a + x.volume, 0), 6)
      expect(c.buy_volume).toBeCloseTo(ms.reduce((a, x) => a + x.takerBuyVolume, 0), 6)
    }
    expect(ohlc.coverage).toMatchObject({ exchanges: ['binance'], partial: false })
    const health = (await (await svc.get('/healthz')).json()) as { history: any; backfill: any }
    expect(health.history.binance.kinds.candles_perp).toMatchObject({ coins: 2, pages_remaining: 0, covered_to: end() })
    expect(health.backfill).toMatchObject({ done: true, window_to: end() })
  }, 60_000)

  it('resumes after a kill mid-way without asking any page twice', async () => {
    await setup()
    const first = await boot(1)
    await until(() => first.history.runners.get('binance')!.fetched >= 4)
    await first.stop()
    live = null
    const before = historyRequests().length
    expect(before).toBeLessThan(20)
    await boot(2)
    await live!.history.idle()
    const reqs = historyRequests()
    expect(reqs.length).toBeGreaterThan(before)
    expect(new Set(reqs.map(pageKey)).size).toBe(reqs.length)
    const got = await storedCandles('ETH', 'perp')
    expect(got).toHaveLength(DAYS * 1440)
  }, 60_000)

  it('a hole the venue cannot serve is recorded with its span; an outage of the feed is repaired from the history', async () => {
    await setup()
    const hole = { from: end() - 300 * MIN, to: end() - 280 * MIN }
    double.fault({ kind: 'hole', path: '/fapi/v1/klines', ...hole })
    const h = await boot()
    await h.history.idle()
    const holes = await svc.services.db.sql.query<{ coin: string; kind: string; from_ts: string; to_ts: string }>("SELECT coin, kind, from_ts, to_ts FROM history_hole WHERE exchange = 'binance' ORDER BY coin")
    expect(holes.map((r) => [r.coin, r.kind, Number(r.from_ts), Number(r.to_ts)])).toEqual(COINS.map((c) => [c, 'candles_perp', hole.from, hole.to]))
    await until(() => svc.services.market.historyHoles.length === 2)
    // the figures over it say so: binance is in only in part, the span named
    const key = (await svc.signup()).apiKey
    const ohlc = ((await (await svc.get('/v1/markets/ohlc?coin=BTC&exchange=binance&interval=1h&lookback=24h', key)).json()) as { data: any }).data
    expect(ohlc.coverage.partial).toBe(true)
    const gap = ohlc.coverage.missing.find((g: { exchange: string }) => g.exchange === 'binance')
    expect(gap).toMatchObject({ status: 'truncated' })
    expect(gap.reason).toContain(new Date(hole.from).toISOString())
    expect(gap.reason).toContain(new Date(hole.to).toISOString())
    // the venue's feed goes down for 25 minutes of its time, then comes back: the minutes between are repaired
    double.fault({ kind: 'down' })
    await until(() => h.connector.health().failing.includes('tickers'))
    clock += 25 * MIN
    double.fault(null)
    await until(async () => (await storedCandles('BTC', 'perp')).some((r) => Number(r.ts) === end() - MIN))
    await h.history.idle()
    const want = double.history.candles('BTC', 'perp', start(), end()).filter((c) => c.closed && (c.openTime < hole.from || c.openTime >= hole.to))
    const got = await storedCandles('BTC', 'perp')
    expect(got.filter((r) => Number(r.ts) >= start()).map((r) => [Number(r.ts), r.close])).toEqual(want.map((c) => [c.openTime, c.close]))
    // the hole stays: the venue still has nothing there
    expect((await svc.services.db.sql.query("SELECT 1 FROM history_hole WHERE coin = 'BTC'")).length).toBe(1)
  }, 60_000)
})
