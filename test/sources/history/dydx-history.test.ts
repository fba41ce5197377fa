// The dYdX history against the dYdX indexer double (candles and historicalFunding in the indexer's shapes: newest
// first, fromISO/toISO and effectiveBeforeOrAt inclusive, at most 1 000 rows; 100 requests per 10 s per IP, a 429 past
// it). The double's clock runs at the wall clock's pace so its windows slide. A backfill asks each page once and stores
// the 1-minute candles, the open interest at each 5-minute candle's start (startingOpenInterest) and the hourly
// settlements exactly as the pages carry them; a hole is recorded for both kinds the candles serve; a 429 pauses the
// venue (10 s: the indexer's window) and the page is asked again.
import '../../helpers/no-network.js'
import { afterEach, describe, expect, it } from 'vitest'
import { startVenueDouble, type VenueDouble } from '../../helpers/venue-doubles/index.js'
import { startTestService, type TestService } from '../../helpers/service.js'
import { startVenueHistory, storeReads, type VenueLive } from './venue-double.js'

const MIN = 60_000
const T0 = Date.UTC(2026, 10, 20, 12, 0, 30)
const COINS = ['BTC', 'ETH']
const DAYS = 2
const iso = (ms: number) => new Date(ms).toISOString()

describe('dYdX history on the venue double', () => {
  let double: VenueDouble
  let svc: TestService
  let live: VenueLive | null = null
  const real0 = Date.now()
  const clock = () => T0 + (Date.now() - real0)

  async function start(faults: Parameters<VenueDouble['fault']>[0][] = [], streams?: Record<string, boolean>) {
    double = await startVenueDouble('dydx', { now: clock, seed: 19, coins: COINS })
    for (const f of faults) double.fault(f)
    svc = await startTestService({ clock })
    live = await startVenueHistory(svc.services, 'dydx', double, { coins: COINS, days: DAYS, pollIntervalMs: 2000, streams })
    await live.history.idle()
    return live.history.runners.get('dydx')!.completeness()
  }
  afterEach(async () => {
    await live?.stop()
    live = null
    await svc?.close()
    await double?.close()
  })

  const historyRequests = () => double.requests.filter((r) => (r.path.startsWith('/v4/candles/') && r.query.has('fromISO')) || (r.path.startsWith('/v4/historicalFunding/') && r.query.get('limit') === '1000'))
  const pageKey = (r: { path: string; query: URLSearchParams }) => `${r.path}?${r.query}`

  /** what the double's own page says, asked of it directly: the expected values come from the page, not the fetcher */
  async function served(ticker: string, resolution: string, from: number, to: number): Promise<Array<Record<string, string | number>>> {
    const out: Array<Record<string, string | number>> = []
    for (let t = from; t < to; t += 1000 * (resolution === '1MIN' ? MIN : 5 * MIN)) {
      const end = Math.min(to, t + 1000 * (resolution === '1MIN' ? MIN : 5 * MIN))
      const body = (await (await fetch(`${double.restUrl}/v4/candles/perpetualMarkets/${ticker}?resolution=${resolution}&fromISO=${iso(t)}&toISO=${iso(end - 1)}&limit=1000`)).json()) as { candles: Array<Record<string, string | number>> }
      out.push(...body.candles.reverse())
    }
    return out
  }

  it('a fresh backfill asks each page once inside the indexer limit and stores exactly what the pages hold', async () => {
    const w = await start()
    const reqs = historyRequests()
    expect(new Set(reqs.map(pageKey)).size).toBe(reqs.length)
    expect(double.requests.filter((r) => r.status !== 200).map((r) => `${r.path} ${r.status}`)).toEqual([])
    expect(live!.budget.stats().rate_limited).toBe(0)

    const read = storeReads(svc.services, 'dydx')
    for (const coin of COINS) {
      const ticker = `${coin}-USD`
      const minutes = await served(ticker, '1MIN', w.windowFrom, w.windowTo)
      expect(minutes).toHaveLength(DAYS * 1440)
      const got = (await read.candles(coin, 'perp')).filter((r) => Number(r.ts) < w.windowTo)
      expect(got.map((r) => [Number(r.ts), r.open, r.high, r.low, r.close, r.volume, r.quote_volume, r.trades, r.buy_volume, r.sell_volume, r.source])).toEqual(
        minutes.map((c) => [Date.parse(String(c['startedAt'])), Number(c['open']), Number(c['high']), Number(c['low']), Number(c['close']), Number(c['baseTokenVolume']), Number(c['usdVolume']), c['trades'], null, null, 'venue_kline']),
      )
      // open interest: each 5-minute candle's startingOpenInterest at its start
      const fives = await served(ticker, '5MINS', w.windowFrom, w.windowTo)
      const oi = await read.openInterest(coin, w.windowTo)
      expect(oi.map((r) => [Number(r.ts), r.open_interest, r.oi_source])).toEqual(fives.map((c) => [Date.parse(String(c['startedAt'])), Number(c['startingOpenInterest']), 'venue_history']))
      expect(oi.length).toBe(DAYS * 288)
      // (the live poll adds the settlements after the window's end)
      const funding = (await read.funding(coin, w.windowFrom)).filter((r) => Number(r.ts) < w.windowTo)
      expect(funding.map((r) => [Number(r.ts), r.rate, r.interval_hours])).toEqual(double.history.funding(coin, w.windowFrom, w.windowTo).map((p) => [p.ts, p.rate, 1]))
      expect(funding).toHaveLength(DAYS * 24)
    }
    expect(await read.holes()).toEqual([])
  }, 120_000)

  it('a hole of the candles is recorded for the minutes and the open interest; a 429 pauses the venue and the page is asked again', async () => {
    const base = Math.floor(T0 / (5 * MIN)) * 5 * MIN
    const hole = { from: base - 300 * MIN, to: base - 280 * MIN }
    const w = await start([
      { kind: 'hole', path: '/v4/candles', ...hole },
      { kind: 'rate_limit', times: 1, path: '/v4/historicalFunding' },
      // (no settled-funding poll: the 429 meets a history page)
    ], { funding: false })
    const read = storeReads(svc.services, 'dydx')
    expect((await read.holes()).map((r) => [r.coin, r.kind, Number(r.from_ts), Number(r.to_ts)])).toEqual(COINS.flatMap((c) => [[c, 'candles_perp', hole.from, hole.to], [c, 'open_interest', hole.from, hole.to]]))
    const i = double.requests.findIndex((r) => r.status === 429)
    expect(double.requests[i]!.path).toMatch(/^\/v4\/historicalFunding\//)
    // the refused page was asked again only after the indexer's 10-second window (the double's clock runs at the
    // wall clock's pace)
    const refused = double.requests[i]!
    const again = double.requests.slice(i + 1).find((r) => r.path === refused.path && r.query.toString() === refused.query.toString())!
    expect(again.status).toBe(200)
    expect(again.at - refused.at).toBeGreaterThanOrEqual(9_900)
    expect(live!.budget.stats().rate_limited).toBeGreaterThanOrEqual(1)
    for (const coin of COINS) expect((await read.funding(coin, w.windowFrom)).filter((r) => Number(r.ts) < w.windowTo).map((r) => Number(r.ts))).toEqual(double.history.funding(coin, w.windowFrom, w.windowTo).map((p) => p.ts))
  }, 120_000)
})
