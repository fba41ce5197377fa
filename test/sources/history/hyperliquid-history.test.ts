// The Hyperliquid history against the Hyperliquid venue double (POST /info candleSnapshot and fundingHistory in the
// documented shapes: oldest first, the newest 5 000 candles of an interval only, 500 funding rows an answer; 1 200
// weight a minute per IP, candleSnapshot 20 + 1 per 60 candles; a plain 429 past it). The double's clock runs at the
// wall clock's pace so its minute windows slide (moved on to the end of a 429's pause rather than waited). A 4-day backfill: the candles end at the venue's retention (about 3.5
// days) and say so, the funding covers the window; no open-interest or long/short history exists; a 429 pauses the
// whole venue a minute (its window: Hyperliquid states no Retry-After) before anything is asked again.
import '../../helpers/no-network.js'
import { afterEach, describe, expect, it } from 'vitest'
import { startVenueDouble, type VenueDouble } from '../../helpers/venue-doubles/index.js'
import { startTestService, type TestService } from '../../helpers/service.js'
import { startVenueHistory, storeReads, type VenueLive } from './venue-double.js'

const MIN = 60_000
const T0 = Date.UTC(2026, 10, 20, 12, 0, 30)
const COINS = ['BTC', 'ETH']
const DAYS = 4

describe('Hyperliquid history on the venue double', () => {
  let double: VenueDouble
  let svc: TestService
  let live: VenueLive | null = null
  const real0 = Date.now()
  /** the time the test moved the clock on by (the venue's minute of a 429, not waited for on the wall clock) */
  let skipped = 0
  const clock = () => T0 + (Date.now() - real0) + skipped

  async function start(faults: Parameters<VenueDouble['fault']>[0][] = []) {
    double = await startVenueDouble('hyperliquid', { now: clock, seed: 17, coins: COINS })
    for (const f of faults) double.fault(f)
    svc = await startTestService({ clock })
    live = await startVenueHistory(svc.services, 'hyperliquid', double, { coins: COINS, days: DAYS, pollIntervalMs: 2000, budgetOnClock: true })
    await live.history.idle()
    return live.history.runners.get('hyperliquid')!.completeness()
  }
  afterEach(async () => {
    await live?.stop()
    live = null
    await svc?.close()
    await double?.close()
  })

  const info = (type: string) => double.requests.filter((r) => r.path === '/info' && JSON.parse(r.body ?? '{}').type === type)

  it('candles back to the retention (the newest 5 000) and funding over the window, each page once, inside the weight limit', async () => {
    const w = await start()
    expect(double.requests.filter((r) => r.status !== 200).map((r) => `${r.body} ${r.status}`)).toEqual([])
    const pages = [...info('candleSnapshot'), ...info('fundingHistory').filter((r) => JSON.parse(r.body!).endTime !== undefined)]
    expect(new Set(pages.map((r) => r.body)).size).toBe(pages.length)

    const read = storeReads(svc.services, 'hyperliquid')
    const progress = await read.progress()
    expect(progress.map((p) => [p.coin, p.kind, p.exhausted_reason])).toEqual(COINS.flatMap((c) => [[c, 'candles_perp', 'retention'], [c, 'funding', null]]))
    const h = double.history
    for (const coin of COINS) {
      // the series starts inside the venue's 5 000 candles (ten minutes' margin), after the window's start
      const cut = Number(progress.find((p) => p.coin === coin && p.kind === 'candles_perp')!.exhausted_before)
      expect(cut).toBeGreaterThan(w.windowFrom)
      expect(cut).toBeGreaterThanOrEqual(w.windowTo - 5000 * MIN)
      const want = h.candles(coin, 'perp', cut, w.windowTo)
      const got = (await read.candles(coin, 'perp')).filter((r) => Number(r.ts) < w.windowTo)
      expect(got.map((r) => Number(r.ts))).toEqual(want.map((c) => c.openTime))
      got.forEach((r, i) => {
        const c = want[i]!
        expect([r.open, r.high, r.low, r.close, r.trades, r.source]).toEqual([c.open, c.high, c.low, c.close, c.trades, 'venue_kline'])
        expect(r.volume).toBeCloseTo(c.volume, 8)
        // no taker split and no quote volume in a candleSnapshot: none invented
        expect([r.buy_volume, r.sell_volume, r.quote_volume]).toEqual([null, null, null])
      })
      // (the live poll adds the settlements after the window's end)
      const funding = (await read.funding(coin, w.windowFrom)).filter((r) => Number(r.ts) < w.windowTo)
      expect(funding).toHaveLength(DAYS * 24)
      expect(funding.map((r) => [Number(r.ts), r.rate, r.interval_hours])).toEqual(h.funding(coin, w.windowFrom, w.windowTo).map((p) => [p.ts, Number(p.rate.toFixed(8)), 1]))
      // Hyperliquid publishes no open-interest history: only the polls' own samples (live) exist
      expect((await read.openInterest(coin, w.windowTo)).every((r) => r.oi_source === 'live')).toBe(true)
    }
    const health = (await (await svc.get('/healthz')).json()) as { history: any }
    expect(Object.keys(health.history.hyperliquid.kinds).sort()).toEqual(['candles_perp', 'funding'])
    expect(health.history.hyperliquid.kinds.candles_perp.ends).toMatchObject({ reason: 'retention' })
  }, 120_000)

  it('a 429 pauses the whole venue for a minute (no Retry-After: the weight window), then the backfill completes', async () => {
    // once the venue is paused, the shared clock (the double's, the budget's, the service's) is moved to the pause's
    // end rather than waited for: the budget looks at its clock again every second
    let pausedUntil: number | null = null
    let done = false
    const mover = (async () => {
      while (!done && pausedUntil === null) {
        pausedUntil = live?.budget.stats().paused_until ?? null
        if (pausedUntil === null) await new Promise((r) => setTimeout(r, 20))
      }
      if (pausedUntil === null) return
      // nothing is asked while it is paused (a few seconds of the clock pass here, the test's own poll)
      await new Promise((r) => setTimeout(r, 1500))
      skipped += pausedUntil - clock()
    })()
    const w = await start([{ kind: 'rate_limit', times: 1, path: '/info' }]).finally(() => (done = true))
    await mover
    const i = double.requests.findIndex((r) => r.status === 429)
    expect(i).toBeGreaterThanOrEqual(0)
    // the venue was paused for its minute from the refusal
    expect(pausedUntil).not.toBeNull()
    expect(pausedUntil! - double.requests[i]!.at).toBeGreaterThanOrEqual(59_000)
    // the refused request was asked again only after the venue's minute, and so was every request after it
    // (those in flight at the refusal aside): the whole venue waited
    const refused = double.requests[i]!
    const again = double.requests.slice(i + 1).find((r) => r.body === refused.body)!
    expect(again.status).toBe(200)
    expect(again.at - refused.at).toBeGreaterThanOrEqual(59_000)
    expect(double.requests.slice(i + 1).filter((r) => r.at > refused.at + 5_000 && r.at < pausedUntil!)).toEqual([])
    expect(live!.budget.stats().rate_limited).toBeGreaterThanOrEqual(1)
    const read = storeReads(svc.services, 'hyperliquid')
    for (const coin of COINS) expect((await read.funding(coin, w.windowFrom)).filter((r) => Number(r.ts) < w.windowTo).map((r) => Number(r.ts))).toEqual(double.history.funding(coin, w.windowFrom, w.windowTo).map((p) => p.ts))
  }, 120_000)
})
