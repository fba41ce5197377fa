// The OKX history against the OKX venue double (OKX v5's documented payloads, newest-first rows, after/before and
// end/begin paging, per-endpoint limits per 2 seconds answered with HTTP 429 + code 50011). The double's clock runs with
// the wall clock here, so its 2-second windows slide as OKX's do and the budget is really tested: 40 history-candles
// pages against a limit of 20 per 2 s. A backfill asks each page once and never trips a limit; what is stored equals the
// double's series as its pages carry them; a hole is recorded; a 50011 pauses the budget and the page is asked again.
import '../../helpers/no-network.js'
import { afterEach, describe, expect, it } from 'vitest'
import { startVenueDouble, type VenueDouble } from '../../helpers/venue-doubles/index.js'
import { startTestService, type TestService } from '../../helpers/service.js'
import { startVenueHistory, storeReads, type VenueLive } from './venue-double.js'

const MIN = 60_000
const T0 = Date.UTC(2026, 10, 20, 12, 0, 30)
const COINS = ['BTC', 'ETH']
const DAYS = 2
const HISTORY_PATHS = ['/api/v5/market/history-candles', '/api/v5/rubik/stat/contracts/open-interest-history', '/api/v5/public/funding-rate-history', '/api/v5/rubik/stat/contracts/long-short-account-ratio-contract']
/** the double's number strings: open interest in coins to 8 decimals, the realized rate to 5 */
const dp = (x: number, d: number) => Number(x.toFixed(d))

describe('OKX history on the venue double', () => {
  let double: VenueDouble
  let svc: TestService
  let live: VenueLive | null = null
  // the double's clock and the service's: T0 when the test starts, then the wall clock's pace
  const real0 = Date.now()
  const clock = () => T0 + (Date.now() - real0)

  async function start(faults: Parameters<VenueDouble['fault']>[0][] = []) {
    double = await startVenueDouble('okx', { now: clock, seed: 13, coins: COINS })
    for (const f of faults) double.fault(f)
    svc = await startTestService({ clock })
    live = await startVenueHistory(svc.services, 'okx', double, { coins: COINS, days: DAYS, pollIntervalMs: 2000 })
    await live.history.idle()
    return live.history.runners.get('okx')!.completeness()
  }
  afterEach(async () => {
    await live?.stop()
    live = null
    await svc?.close()
    await double?.close()
  })

  // the history's requests carry both bounds (the live polls ask the newest rows)
  const bounds = (q: URLSearchParams) => [q.get('after') ?? q.get('end'), q.get('before') ?? q.get('begin')]
  const historyRequests = () => double.requests.filter((r) => HISTORY_PATHS.includes(r.path) && bounds(r.query).every((b) => b !== null))
  const pageKey = (r: { path: string; query: URLSearchParams }) => `${r.path}?${r.query.get('instId')}&${bounds(r.query).join('&')}`

  it('a fresh backfill asks each page once inside every per-endpoint limit and stores exactly what the pages hold', async () => {
    const w = await start()
    const reqs = historyRequests()
    expect(new Set(reqs.map(pageKey)).size).toBe(reqs.length)
    // 2 coins x 2 markets x 2 days of 300-minute pages: far beyond 20 per 2 s, paced by the budget
    expect(reqs.filter((r) => r.path === '/api/v5/market/history-candles').length).toBeGreaterThanOrEqual(2 * 2 * Math.ceil((DAYS * 1440) / 300))
    expect(double.requests.filter((r) => r.status !== 200).map((r) => `${r.path} ${r.status}`)).toEqual([])
    expect(live!.budget.stats().rate_limited).toBe(0)

    const read = storeReads(svc.services, 'okx')
    const h = double.history
    for (const coin of COINS) {
      for (const mt of ['perp', 'spot'] as const) {
        const want = h.candles(coin, mt, w.windowFrom, w.windowTo)
        const got = (await read.candles(coin, mt)).filter((r) => Number(r.ts) < w.windowTo)
        expect(want.length).toBe(DAYS * 1440)
        expect(got.map((r) => Number(r.ts))).toEqual(want.map((c) => c.openTime))
        got.forEach((r, i) => {
          const c = want[i]!
          expect([r.open, r.high, r.low, r.close, r.source]).toEqual([c.open, c.high, c.low, c.close, 'venue_kline'])
          // a SWAP's volume is volCcy (coins), not vol (contracts)
          expect(r.volume).toBeCloseTo(c.volume, 7)
          expect(r.quote_volume).toBeCloseTo(c.quoteVolume, 4)
          expect([r.buy_volume, r.sell_volume, r.trades]).toEqual([null, null, null])
        })
      }
      const oi = await read.openInterest(coin, w.windowTo)
      expect(oi.map((r) => [Number(r.ts), r.open_interest, r.oi_source])).toEqual(h.openInterest(coin, w.windowFrom, w.windowTo).map((p) => [p.ts, dp(p.openInterest, 8), 'venue_history']))
      // (the live poll adds the settlements after the window's end)
      const funding = (await read.funding(coin, w.windowFrom)).filter((r) => Number(r.ts) < w.windowTo)
      expect(funding.length).toBeGreaterThan(0)
      expect(funding.map((r) => [Number(r.ts), r.rate, r.interval_hours])).toEqual(h.funding(coin, w.windowFrom, w.windowTo).map((p) => [p.ts, dp(p.rate, 5), p.intervalHours]))
      const ratio = await read.positioning(coin, 'account', w.windowTo)
      const wantRatio = h.longShort(coin, 'account', w.windowFrom, w.windowTo)
      expect(ratio.map((r) => [Number(r.ts), r.ratio])).toEqual(wantRatio.map((p) => [p.ts, p.ratio]))
      ratio.forEach((r) => expect(r.long_share).toBeCloseTo(r.ratio / (1 + r.ratio), 12))
    }
    expect(await read.holes()).toEqual([])
  }, 120_000)

  it('a hole the venue cannot serve is recorded; a 429 with code 50011 pauses the budget and the page is asked again', async () => {
    const hole = { from: Math.floor(T0 / MIN) * MIN - 200 * MIN, to: Math.floor(T0 / MIN) * MIN - 190 * MIN }
    const w = await start([
      { kind: 'hole', path: '/api/v5/market/history-candles', ...hole },
      { kind: 'rate_limit', times: 2, path: '/api/v5/rubik/stat/contracts/open-interest-history' },
    ])
    const read = storeReads(svc.services, 'okx')
    expect((await read.holes()).map((r) => [r.coin, r.kind, Number(r.from_ts), Number(r.to_ts)])).toEqual(COINS.flatMap((c) => [[c, 'candles_perp', hole.from, hole.to], [c, 'candles_spot', hole.from, hole.to]]))
    const got = (await read.candles('ETH', 'spot')).filter((r) => Number(r.ts) < w.windowTo)
    expect(got.map((r) => Number(r.ts))).toEqual(double.history.candles('ETH', 'spot', w.windowFrom, w.windowTo).filter((c) => c.openTime < hole.from || c.openTime >= hole.to).map((c) => c.openTime))
    // the two 50011 answers (HTTP 429) paused the venue; their pages were asked again and the open interest is whole
    expect(double.requests.filter((r) => r.status === 429)).toHaveLength(2)
    expect(live!.budget.stats().rate_limited).toBeGreaterThanOrEqual(2)
    for (const coin of COINS) expect((await read.openInterest(coin, w.windowTo)).map((r) => Number(r.ts))).toEqual(double.history.openInterest(coin, w.windowFrom, w.windowTo).map((p) => p.ts))
    const oiPages = historyRequests().filter((r) => r.path === '/api/v5/rubik/stat/contracts/open-interest-history')
    expect(oiPages.length - new Set(oiPages.map(pageKey)).size).toBe(2)
  }, 120_000)
})
