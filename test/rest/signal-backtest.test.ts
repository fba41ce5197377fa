// /v1/signals/backtest: the statistics recomputed here by hand on a constructed case (events, closes), regime events
// against /v1/signals/regime's history, each signal's full-history span against the stored hours, the fee, as_of,
// reproducibility (same data → same table), 90d accepted, bad parameters → 400 naming the parameter, nothing charged.
// Full history, fees and overlapping events by hand: test/analytics/backtest.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { backtestSignal, onsets } from '../../src/analytics/backtest.js'
import { TEST_NOW, seedMarket } from '../helpers/market.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { HOUR, callBad, callOk, type Json } from './markets/helpers.js'

const H = 3_600_000
/** full history from the start, no fee: the statistics as they were before those two were added */
const PLAIN = { history: { hours: 0, dataFrom: 0 }, feeRoundTrip: 0 }

describe('backtest statistics (constructed case)', () => {
  // closes: 100, 101, 99, 102, 102, ... every hour
  const closes = new Map<number, number>([100, 101, 99, 102, 102, 98, 103, 104].map((c, i) => [i * H, c]))

  it('onsets: a signal active over consecutive hours is one event; a new direction is a new one', () => {
    const hours = [
      { ts: 0, active: true, direction: 'bullish' as const },
      { ts: H, active: true, direction: 'bullish' as const },
      { ts: 2 * H, active: true, direction: 'bearish' as const },
      { ts: 3 * H, active: false, direction: 'none' as const },
      { ts: 4 * H, active: true, direction: 'bullish' as const },
    ]
    expect(onsets(hours).map((e) => e.ts)).toEqual([0, 2 * H, 4 * H])
  })

  it('hit rate, signed mean return, Wilson interval and the baseline, by hand', () => {
    const events = [
      { ts: 0, active: true, direction: 'bullish' as const }, // 1h: 101/100 − 1 = +0.01 → hit
      { ts: 2 * H, active: true, direction: 'bearish' as const }, // 1h: 102/99 − 1 = +0.0303 → miss, signed −0.0303
      { ts: 4 * H, active: true, direction: 'bullish' as const }, // 1h: 98/102 − 1 = −0.0392 → miss
    ]
    const row = backtestSignal('x', events, closes, { from: 0, to: 7 * H }, PLAIN)
    const h1 = row.horizons[0]!
    expect(row.events).toBe(3)
    expect(h1).toMatchObject({ hours: 1, n: 3 })
    expect(h1.hitRate).toBeCloseTo(1 / 3, 12)
    const signed = [0.01, -(102 / 99 - 1), 98 / 102 - 1]
    const m = signed.reduce((s, x) => s + x, 0) / 3
    expect(h1.meanReturn).toBeCloseTo(m, 12)
    const sd = Math.sqrt(signed.reduce((s, x) => s + (x - m) ** 2, 0) / 2)
    expect(h1.meanReturnCi![0]).toBeCloseTo(m - 1.959963984540054 * (sd / Math.sqrt(3)), 12)
    // Wilson, p = 1/3, n = 3, z = 1.96
    const z = 1.959963984540054
    const p = 1 / 3
    const centre = (p + (z * z) / 6) / (1 + (z * z) / 3)
    const half = (z * Math.sqrt((p * (1 - p)) / 3 + (z * z) / 36)) / (1 + (z * z) / 3)
    expect(h1.hitRateCi![0]).toBeCloseTo(centre - half, 12)
    expect(h1.hitRateCi![1]).toBeCloseTo(centre + half, 12)
    // baseline: the 7 hours 0..6 with a close an hour later: returns +,−,+,0,−,+,+ → up 4/7, down 2/7; 2 bullish 1 bearish
    expect(h1.baselineHitRate).toBeCloseTo((2 / 3) * (4 / 7) + (1 / 3) * (2 / 7), 12)
    const rets = [101 / 100, 99 / 101, 102 / 99, 1, 98 / 102, 103 / 98, 104 / 103].map((x) => x - 1)
    expect(h1.baselineMeanReturn).toBeCloseTo((1 / 3) * (rets.reduce((s, x) => s + x, 0) / 7), 12)
    // 24h: no close a day later → no event counted
    expect(row.horizons[2]).toMatchObject({ hours: 24, n: 0, hitRate: null, meanReturn: null })
  })

  it('a signal without a direction has no hit rate, only raw returns', () => {
    const row = backtestSignal('r', [{ ts: 0, active: true, direction: 'none' }], closes, { from: 0, to: 7 * H }, PLAIN)
    expect(row.horizons[0]).toMatchObject({ hitRate: null, hitRateCi: null, baselineHitRate: null })
    expect(row.horizons[0]!.meanReturn).toBeCloseTo(0.01, 12)
  })
})

describe('GET /v1/signals/backtest', () => {
  let t: TestService
  let acct: { apiKey: string; accountId: string }
  beforeAll(async () => {
    t = await startTestService({ clock: () => TEST_NOW })
    await seedMarket(t, { hours: 24 * 8, coins: ['BTC'], sampleEveryMs: 5 * 60_000 })
    acct = await t.signup()
    await t.setCredits(acct.accountId, 100_000)
  }, 240_000)
  afterAll(() => t?.close())

  it('every signal listed; reproducible: the same stored data gives the same table', async () => {
    const a = (await callOk(t, acct, '/v1/signals/backtest?coin=BTC&lookback=7d', 10)).data
    const b = (await callOk(t, acct, '/v1/signals/backtest?coin=BTC&lookback=7d', 10)).data
    expect(b).toEqual(a)
    const names = (a.signals as Json[]).map((s) => s.signal)
    for (const pair of ['oi_price', 'cvd_price', 'funding_price', 'spot_perp_cvd']) for (const tf of ['1h', '4h']) expect(names).toContain(`divergence_${pair}_${tf}`)
    for (const r of ['trending_up', 'trending_down', 'ranging', 'high_volatility', 'squeeze']) expect(names).toContain(`regime_${r}`)
    expect(names).toContain('funding_extreme')
    expect(a.signals.find((s: Json) => s.signal === 'imbalance_extreme')).toMatchObject({ testable: false, events: 0 })
    expect(a.to).toBe(Math.floor(TEST_NOW / HOUR) * HOUR)
    expect(a.from).toBe(a.to - 7 * 24 * HOUR)
    for (const s of a.signals as Json[]) {
      expect(s.horizons.map((h: Json) => h.hours)).toEqual([1, 4, 24])
      for (const h of s.horizons) {
        expect(h.n).toBeLessThanOrEqual(s.events)
        if (h.hit_rate !== null) expect(h.hit_rate_ci.low).toBeLessThanOrEqual(h.hit_rate)
      }
    }
    // at least one regime switched on in a week of simulated history
    expect(a.signals.filter((s: Json) => s.family === 'regime').reduce((n: number, s: Json) => n + s.events, 0)).toBeGreaterThan(0)
  })

  it("regime events are the hours /v1/signals/regime's history switches into each regime", async () => {
    const a = (await callOk(t, acct, '/v1/signals/backtest?coin=BTC&lookback=7d', 10)).data
    const history: Json[] = []
    let path = `/v1/signals/regime?coin=BTC&interval=1h&start_time=${a.from}&end_time=${a.to}&limit=5000`
    const { data } = await callOk(t, acct, path, 3)
    history.push(...data.history)
    path = ''
    const onsetsOf = (name: string) => history.filter((h, i) => h.regime === name && !(i > 0 && history[i - 1]!.regime === name && history[i - 1]!.ts === h.ts - HOUR)).length
    for (const r of ['trending_up', 'trending_down', 'ranging', 'high_volatility', 'squeeze'])
      expect(a.signals.find((s: Json) => s.signal === `regime_${r}`).events, r).toBe(onsetsOf(r))
  })

  it('says per signal how much of the window had its full history, tests only those hours, nets the fee and says funding is not in; as_of is when it answered', async () => {
    const { data: a, meta } = await callOk(t, acct, '/v1/signals/backtest?coin=BTC&lookback=7d', 10)
    // docs/contract.md#envelope: as_of is when the answer was made (the window still ends at the last whole hour)
    expect(meta.as_of).toBe(TEST_NOW)
    expect(a.as_of).toBe(TEST_NOW)
    // the first stored hour of BTC perp closes (8 days of history here, inside the hot series' 31 days)
    const rows = await t.services.db.sql.query<{ first: string }>(`SELECT min(ts) AS first FROM candle_1h WHERE coin = 'BTC' AND market_type = 'perp'`)
    const dataFrom = Number(rows[0]!.first)
    expect(dataFrom).toBe(Math.floor(TEST_NOW / HOUR) * HOUR - 8 * 24 * HOUR)
    // docs/methodology.md#divergence (121 windows of W), #regime (720 h of volatility history + the 24 h window), funding's previous week
    const needs: Record<string, number> = { '1h': 121, '4h': 484, regime: 744, funding: 168 }
    for (const s of a.signals as Json[]) {
      if (!s.testable) continue
      const hours = s.family === 'divergence' ? needs[s.signal.slice(-2)]! : needs[s.family]!
      expect(s.history_hours, s.signal).toBe(hours)
      const first = Math.max(a.from, dataFrom + hours * HOUR)
      const full = first < a.to ? first : null
      expect(s.full_history_from, s.signal).toBe(full)
      expect(s.full_history_share, s.signal).toBeCloseTo(full === null ? 0 : (a.to - full) / (a.to - a.from), 14)
      expect(s.short_history_events).toBeLessThanOrEqual(s.events)
      for (const h of s.horizons) expect(h.n).toBeLessThanOrEqual(s.events - s.short_history_events)
      expect(s.note === null, s.signal).toBe(s.full_history_share === 1)
    }
    // 4 h divergence and the regime never have their history in 8 days: nothing of theirs is tested
    for (const s of (a.signals as Json[]).filter((x) => x.signal.endsWith('_4h') || x.family === 'regime')) {
      expect(s.full_history_from).toBeNull()
      expect(s.short_history_events).toBe(s.events)
      for (const h of s.horizons) expect(h).toMatchObject({ n: 0, mean_return: null, baseline_mean_return: null })
    }
    // the regime switched on in the week, but on shortened history
    expect(a.signals.filter((s: Json) => s.family === 'regime').reduce((n: number, s: Json) => n + s.short_history_events, 0)).toBeGreaterThan(0)
    // fee table (docs/methodology.md#funding-arbitrage): Bybit's 0.055 % is the dearest of the five venues, paid both ways
    expect(a.costs).toMatchObject({ fee_exchange: 'bybit', funding_included: false })
    expect(a.costs.fee_round_trip).toBeCloseTo(2 * 0.00055, 15)
    expect(a.costs.note).toMatch(/funding/)
  })

  it('90d is accepted; bad parameters are 400 naming the parameter; nothing charged', async () => {
    await callOk(t, acct, '/v1/signals/backtest?coin=BTC&lookback=90d', 10)
    await callBad(t, acct, '/v1/signals/backtest', 'coin')
    await callBad(t, acct, '/v1/signals/backtest?coin=BTC&lookback=24h', 'lookback')
    await callBad(t, acct, '/v1/signals/backtest?coin=BTC&lookback=1y', 'lookback')
  })
})
