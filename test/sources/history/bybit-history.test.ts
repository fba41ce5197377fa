// The Bybit history against the Bybit venue double (Bybit v5's documented payloads, newest-first lists, page sizes,
// its 600-requests-per-5-s IP limit with the "403 access too frequent" ban, retCode 10006): a backfill asks each page
// once and never trips a limit; what is stored equals the double's series as its pages carry them (klines with no
// taker split, one-sided open interest, settlements with their interval, the accounts ratio); a hole the venue cannot
// serve is recorded; a retCode 10006 pauses the venue's budget and the page is asked again.
import '../../helpers/no-network.js'
import { afterEach, describe, expect, it } from 'vitest'
import { startVenueDouble, type VenueDouble } from '../../helpers/venue-doubles/index.js'
import { startTestService, type TestService } from '../../helpers/service.js'
import { startVenueHistory, storeReads, type VenueLive } from './venue-double.js'

const MIN = 60_000
const DAY = 86_400_000
const T0 = Date.UTC(2026, 10, 20, 12, 0, 30)
const COINS = ['BTC', 'ETH']
const DAYS = 2
const HISTORY_PATHS = ['/v5/market/kline', '/v5/market/open-interest', '/v5/market/funding/history', '/v5/market/account-ratio']
/** Bybit's payload carries the account shares with 4 decimals */
const dp4 = (x: number) => Number(x.toFixed(4))

describe('Bybit history on the venue double', () => {
  const clock = T0
  let double: VenueDouble
  let svc: TestService
  let live: VenueLive | null = null
  const start = Math.ceil((Math.floor(clock / MIN) * MIN - DAYS * DAY) / MIN) * MIN
  const end = Math.floor(clock / MIN) * MIN

  async function setup() {
    double = await startVenueDouble('bybit', { now: () => clock, seed: 11, coins: COINS })
    svc = await startTestService({ clock: () => clock })
  }
  afterEach(async () => {
    await live?.stop()
    live = null
    await svc?.close()
    await double?.close()
  })

  // the history's requests: the ones with a time range (the live polls ask the newest rows only)
  const historyRequests = () => double.requests.filter((r) => HISTORY_PATHS.includes(r.path) && (r.query.has('start') || r.query.has('startTime')))
  const pageKey = (r: { path: string; query: URLSearchParams }) => `${r.path}?${r.query.get('category')}&${r.query.get('symbol')}&${r.query.get('start') ?? r.query.get('startTime')}&${r.query.get('end') ?? r.query.get('endTime')}`

  it('a fresh backfill asks each page once inside the IP limit and stores exactly what the pages hold', async () => {
    await setup()
    live = await startVenueHistory(svc.services, 'bybit', double, { coins: COINS, days: DAYS })
    await live.history.idle()
    const reqs = historyRequests()
    expect(reqs.length).toBeGreaterThan(0)
    expect(new Set(reqs.map(pageKey)).size).toBe(reqs.length)
    // every page at most Bybit's page size, asked by time range
    for (const r of reqs) expect(Number(r.query.get('limit'))).toBeLessThanOrEqual(r.path === '/v5/market/kline' ? 1000 : r.path === '/v5/market/account-ratio' ? 500 : 200)
    // inside the limits: no 403 ban and no retCode 10006 (polls and history drew from one budget)
    expect(double.requests.filter((r) => r.status !== 200).map((r) => `${r.path} ${r.status}`)).toEqual([])
    expect(live.budget.stats().rate_limited + live.budget.stats().bans).toBe(0)

    const read = storeReads(svc.services, 'bybit')
    const h = double.history
    for (const coin of COINS) {
      for (const mt of ['perp', 'spot'] as const) {
        const want = h.candles(coin, mt, start, end).filter((c) => c.closed)
        const got = await read.candles(coin, mt)
        expect(want.length).toBe(DAYS * 1440)
        expect(got.map((r) => Number(r.ts))).toEqual(want.map((c) => c.openTime))
        got.forEach((r, i) => {
          const c = want[i]!
          expect([r.open, r.high, r.low, r.close, r.source]).toEqual([c.open, c.high, c.low, c.close, 'venue_kline'])
          expect(r.volume).toBeCloseTo(c.volume, 8)
          expect(r.quote_volume).toBeCloseTo(c.quoteVolume, 3)
          // Bybit's klines carry no taker split and no trade count: none is invented
          expect([r.buy_volume, r.sell_volume, r.trades]).toEqual([null, null, null])
        })
      }
      const oi = await read.openInterest(coin, end)
      expect(oi.map((r) => [Number(r.ts), r.open_interest, r.oi_source])).toEqual(h.openInterest(coin, start, end).map((p) => [p.ts, p.openInterest, 'venue_history']))
      const funding = await read.funding(coin, start)
      expect(funding.length).toBeGreaterThan(0)
      expect(funding.map((r) => [Number(r.ts), r.rate, r.interval_hours])).toEqual(h.funding(coin, start, end).map((p) => [p.ts, p.rate, p.intervalHours]))
      const ratio = await read.positioning(coin, 'account', end)
      const wantRatio = h.longShort(coin, 'account', start, end)
      expect(ratio.map((r) => [Number(r.ts), r.long_share, r.short_share])).toEqual(wantRatio.map((p) => [p.ts, dp4(p.longShare), dp4(p.shortShare)]))
      ratio.forEach((r) => expect(r.ratio).toBeCloseTo(r.long_share / r.short_share, 12))
    }
    // every series covers the window; Bybit publishes no top-trader ratio, so no period waits for one
    const progress = await read.progress()
    expect(progress).toHaveLength(COINS.length * 5)
    for (const p of progress) expect([p.kind, Number(p.covered_from) <= start, Number(p.covered_to)]).toEqual([p.kind, true, end])
    expect(await read.holes()).toEqual([])
  }, 90_000)

  it('a hole the venue cannot serve is recorded; a retCode 10006 pauses the budget and the page is asked again', async () => {
    await setup()
    const hole = { from: end - 300 * MIN, to: end - 280 * MIN }
    double.fault({ kind: 'hole', path: '/v5/market/kline', ...hole })
    double.fault({ kind: 'bybit10006', resetInMs: 1000, times: 2, path: '/v5/market/open-interest' })
    live = await startVenueHistory(svc.services, 'bybit', double, { coins: COINS, days: DAYS })
    await live.history.idle()
    const read = storeReads(svc.services, 'bybit')
    // the kline endpoint serves both markets: both series record the span, nothing else
    expect((await read.holes()).map((r) => [r.coin, r.kind, Number(r.from_ts), Number(r.to_ts)])).toEqual(
      COINS.flatMap((c) => [[c, 'candles_perp', hole.from, hole.to], [c, 'candles_spot', hole.from, hole.to]]),
    )
    const got = await read.candles('BTC', 'perp')
    expect(got.map((r) => Number(r.ts))).toEqual(double.history.candles('BTC', 'perp', start, end).filter((c) => c.closed && (c.openTime < hole.from || c.openTime >= hole.to)).map((c) => c.openTime))
    // the two 10006 answers paused the venue; the pages were asked again and the open interest is whole
    expect(live.budget.stats().rate_limited).toBeGreaterThanOrEqual(2)
    for (const coin of COINS) expect((await read.openInterest(coin, end)).map((r) => Number(r.ts))).toEqual(double.history.openInterest(coin, start, end).map((p) => p.ts))
    const oiPages = historyRequests().filter((r) => r.path === '/v5/market/open-interest')
    expect(oiPages.length - new Set(oiPages.map(pageKey)).size).toBe(2)
  }, 90_000)
})
