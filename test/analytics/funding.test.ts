import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../src/domain/time.js'
import { EXCHANGE_IDS, type ExchangeId } from '../../src/domain/exchanges.js'
import {
  FUNDING_MAX_SAMPLE_AGE_MS,
  FUNDING_STATS_WINDOW,
  annualizeFundingRate,
  buildWeightedFunding,
  fundingStatsHistory,
  normalizeFundingRate,
  sampleToVenueRate,
  weightedFunding,
  weightedFundingHistory,
  type FundingSample,
} from '../../src/analytics/funding.js'

const T0 = Date.UTC(2025, 0, 10)
const rel = (a: number | null, b: number, tol = 1e-12) => {
  expect(a).not.toBeNull()
  expect(Math.abs(a! - b)).toBeLessThanOrEqual(tol * Math.max(Math.abs(b), 1e-300))
}

const sample = (exchange: ExchangeId, ts: number, rate: number | null, intervalHours: number | null, oi: number | null, mark: number | null): FundingSample => ({
  exchange, ts, fundingRate: rate, fundingIntervalHours: intervalHours, openInterest: oi, markPrice: mark,
})

describe('normalize and annualize', () => {
  it('normalizes to 8 h: rate × 8 / intervalHours', () => {
    rel(normalizeFundingRate(0.0001, 1), 0.0008) // Hyperliquid-style hourly 0.01 % -> 0.08 % per 8 h
    expect(normalizeFundingRate(0.0001, 8)).toBe(0.0001)
    rel(normalizeFundingRate(0.0002, 4), 0.0004) // 0.0002 × 8 / 4
    rel(normalizeFundingRate(0.0008, 8, 1), 0.0001) // and back to 1 h
  })

  it('annualizes simply: rate × 24 × 365 / intervalHours', () => {
    rel(annualizeFundingRate(0.0001, 8), 0.1095) // 0.0001 × 8760 / 8 = 0.0001 × 1095
    rel(annualizeFundingRate(0.00001, 1), 0.0876) // 0.00001 × 8760
  })

  it('returns null, never NaN, on a missing rate or a bad interval', () => {
    for (const [r, h] of [[null, 8], [NaN, 8], [0.0001, 0], [0.0001, -8], [0.0001, NaN], [0.0001, null], [Infinity, 8]] as const) {
      expect(normalizeFundingRate(r, h)).toBeNull()
      expect(annualizeFundingRate(r, h)).toBeNull()
    }
  })

  it('property: normalizing then annualizing at 8 h = annualizing at the native interval', () => {
    fc.assert(
      fc.property(fc.double({ min: -0.01, max: 0.01, noNaN: true }), fc.constantFrom(1, 2, 4, 8), (r, h) => {
        const a = annualizeFundingRate(normalizeFundingRate(r, h), 8)!
        const b = annualizeFundingRate(r, h)!
        expect(Math.abs(a - b)).toBeLessThanOrEqual(1e-12 * Math.max(1e-300, Math.abs(b)))
      }),
    )
  })
})

describe('weightedFunding', () => {
  it('weights 8 h rates by OI in USD, by hand', () => {
    const w = weightedFunding([
      { exchange: 'binance', rate: 0.0001, intervalHours: 8, oiUsd: 600 },
      { exchange: 'hyperliquid', rate: 0.00002, intervalHours: 1, oiUsd: 200 }, // 0.00002 × 8 = 0.00016 per 8 h
      { exchange: 'okx', rate: null, intervalHours: 8, oiUsd: 200 }, // no rate: left out
      { exchange: 'dydx', rate: 0.0005, intervalHours: 1, oiUsd: null }, // no OI: left out
    ])
    // (0.0001 × 600 + 0.00016 × 200) / (600 + 200) = (0.06 + 0.032) / 800 = 0.000115
    rel(w.rate8h, 0.000115)
    expect(w.reason).toBeNull()
    const by = Object.fromEntries(w.venues.map((v) => [v.exchange, v]))
    expect(by.binance).toMatchObject({ weight: 0.75, rate: 0.0001, intervalHours: 8, rate8h: 0.0001, reason: null })
    expect(by.hyperliquid).toMatchObject({ weight: 0.25, rate: 0.00002, intervalHours: 1, reason: null })
    rel(by.hyperliquid!.rate8h, 0.00016)
    rel(by.hyperliquid!.annualizedRate, 0.1752) // 0.00002 × 8760
    expect(by.okx).toMatchObject({ weight: null, reason: 'no funding rate' })
    expect(by.dydx).toMatchObject({ weight: null, reason: 'no open interest in USD' })
    expect(w.venues.map((v) => v.exchange)).toEqual(['binance', 'okx', 'hyperliquid', 'dydx'])
  })

  it('one exchange: its own 8 h rate with weight 1', () => {
    const w = weightedFunding([{ exchange: 'dydx', rate: 0.00001, intervalHours: 1, oiUsd: 5 }])
    rel(w.rate8h, 0.00008)
    expect(w.venues[0]!.weight).toBe(1)
  })

  it('null with a reason when nothing can be weighted or total OI is zero', () => {
    expect(weightedFunding([])).toMatchObject({ rate8h: null, reason: 'no exchange with both a funding rate and open interest' })
    expect(weightedFunding([{ exchange: 'okx', rate: 0.0001, intervalHours: 0, oiUsd: 5 }]).venues[0]!.reason).toBe('no funding interval')
    const zero = weightedFunding([
      { exchange: 'okx', rate: 0.0001, intervalHours: 8, oiUsd: 0 },
      { exchange: 'bybit', rate: 0.0002, intervalHours: 8, oiUsd: 0 },
    ])
    expect(zero).toMatchObject({ rate8h: null, reason: 'total open interest is zero' })
    expect(zero.venues.every((v) => v.weight === null)).toBe(true)
  })

  it('a venue with zero OI has weight 0', () => {
    const w = weightedFunding([
      { exchange: 'okx', rate: 0.0001, intervalHours: 8, oiUsd: 0 },
      { exchange: 'bybit', rate: 0.0003, intervalHours: 8, oiUsd: 10 },
    ])
    expect(w.rate8h).toBe(0.0003)
    expect(w.venues.map((v) => [v.exchange, v.weight])).toEqual([['bybit', 1], ['okx', 0]]) // canonical order
  })

  const arbVenues = fc.uniqueArray(
    fc.record({
      exchange: fc.constantFrom(...EXCHANGE_IDS),
      rate: fc.oneof(fc.double({ min: -0.01, max: 0.01, noNaN: true }), fc.constant(NaN), fc.constant(null)),
      intervalHours: fc.oneof(fc.constantFrom(1, 4, 8), fc.constant(null), fc.constant(0)),
      oiUsd: fc.oneof(fc.double({ min: 0, max: 1e10, noNaN: true }), fc.constant(NaN), fc.constant(null)),
    }),
    { selector: (v) => v.exchange },
  )

  it('property: weights sum to 1, the rate lies between the venues’ 8 h rates, no NaN escapes', () => {
    fc.assert(
      fc.property(arbVenues, (venues) => {
        const w = weightedFunding(venues)
        for (const v of w.venues) for (const x of [v.rate, v.rate8h, v.oiUsd, v.weight, v.annualizedRate]) expect(x === null || Number.isFinite(x)).toBe(true)
        if (w.rate8h === null) {
          expect(w.reason).not.toBeNull()
          return
        }
        const used = w.venues.filter((v) => v.weight !== null)
        expect(Math.abs(used.reduce((a, v) => a + v.weight!, 0) - 1)).toBeLessThan(1e-9)
        const lo = Math.min(...used.map((v) => v.rate8h!))
        const hi = Math.max(...used.map((v) => v.rate8h!))
        expect(w.rate8h).toBeGreaterThanOrEqual(lo - 1e-15)
        expect(w.rate8h).toBeLessThanOrEqual(hi + 1e-15)
      }),
      { numRuns: 300 },
    )
  })

  it('a subnormal open interest does not underflow the weighted rate (found by the property above)', () => {
    const w = weightedFunding([{ exchange: 'binance', rate: 1.2500000000000003e-16, intervalHours: 1, oiUsd: 5e-324 }])
    expect(w.rate8h).toBe(1.2500000000000003e-16 * 8)
  })
})

describe('history and statistics', () => {
  it('window constants', () => {
    expect(FUNDING_STATS_WINDOW).toEqual({ lookbackMs: 7 * DAY_MS, stepMs: HOUR_MS, minPoints: 72 })
    expect(FUNDING_MAX_SAMPLE_AGE_MS).toBe(5 * MINUTE_MS)
  })

  it('sampleToVenueRate: OI in USD = coins × mark', () => {
    expect(sampleToVenueRate(sample('okx', 1, 0.0001, 8, 3, 50_000)).oiUsd).toBe(150_000)
    expect(sampleToVenueRate(sample('okx', 1, 0.0001, 8, 3, null)).oiUsd).toBeNull()
    expect(sampleToVenueRate(sample('okx', 1, 0.0001, 8, NaN, 10)).oiUsd).toBeNull()
  })

  it('hourly history: each venue’s last sample in the hour', () => {
    const h = weightedFundingHistory([
      sample('binance', T0 + 5 * MINUTE_MS, 0.0009, 8, 1, 100), // superseded by the 59th minute
      sample('binance', T0 + 59 * MINUTE_MS, 0.0001, 8, 1, 100), // oiUsd 100
      sample('hyperliquid', T0 + 30 * MINUTE_MS, 0.00005, 1, 3, 100), // 8 h: 0.0004, oiUsd 300
      sample('binance', T0 + HOUR_MS, null, 8, 1, 100), // hour T0+1h: nothing weightable -> no point
      sample('binance', T0 + 2 * HOUR_MS, 0.0002, 8, 1, 100),
    ])
    // hour T0: (0.0001 × 100 + 0.0004 × 300) / 400 = (0.01 + 0.12) / 400 = 0.000325
    expect(h.map((p) => p.ts)).toEqual([T0, T0 + 2 * HOUR_MS])
    rel(h[0]!.rate8h, 0.000325)
    expect(h[1]!.rate8h).toBe(0.0002)
  })

  it('fundingStatsHistory keeps [current hour - 7 d, current hour)', () => {
    const now = T0 + 10 * MINUTE_MS
    const pts = [
      { ts: T0, rate8h: 1 }, // current hour: out
      { ts: T0 - HOUR_MS, rate8h: 2 },
      { ts: T0 - 7 * DAY_MS, rate8h: 3 }, // oldest hour inside
      { ts: T0 - 7 * DAY_MS - HOUR_MS, rate8h: 4 }, // out
    ]
    expect(fundingStatsHistory(pts, now)).toEqual([2, 3])
  })

  // 72 hours before T0 alternating 0.0001 / 0.0003 (binance, 8 h, steady OI), then the current sample
  function history(n: number): FundingSample[] {
    const out: FundingSample[] = []
    for (let i = 1; i <= n; i++) out.push(sample('binance', T0 - i * HOUR_MS + 30 * MINUTE_MS, i % 2 === 0 ? 0.0001 : 0.0003, 8, 10, 100))
    return out
  }

  it('buildWeightedFunding: z-score and percentile by hand', () => {
    const now = T0 + 2 * MINUTE_MS
    const samples = [
      ...history(72),
      sample('binance', T0 + MINUTE_MS, 0.0002, 8, 30, 100), // oiUsd 3000
      sample('hyperliquid', T0 + MINUTE_MS, 0.0000375, 1, 10, 100), // 8 h: 0.0003, oiUsd 1000
      // 6 min old: left out of the current rate; in history it shares hour T0-1h with binance at the same 0.0003
      sample('okx', now - 6 * MINUTE_MS, 0.0003, 8, 1000, 100),
    ]
    const f = buildWeightedFunding({ coin: 'BTC', samples, now })
    // current = (0.0002 × 3000 + 0.0003 × 1000) / 4000 = (0.6 + 0.3) / 4000 = 0.000225; annualized 0.000225 × 1095 = 0.246375
    rel(f.weightedRate, 0.000225)
    rel(f.annualizedRate, 0.246375)
    expect(f.intervalHours).toBe(8)
    // history: 72 hourly points, 36 × 0.0001 and 36 × 0.0003: mean 0.0002, sample sd = 0.0001 × sqrt(72/71)
    // z = 0.000025 / sd = 0.25 × sqrt(71/72); percentile: 36 below, 0 equal -> 36 / 72 × 100 = 50
    expect(f.zScore.points).toBe(72)
    expect(f.zScore.value).toBeCloseTo(0.25 * Math.sqrt(71 / 72), 9)
    expect(f.percentile).toEqual({ value: 50, reason: null, points: 72 })
    expect(f.exchanges.map((e) => [e.exchange, e.weight, e.reason])).toEqual([
      ['binance', 0.75, null],
      ['bybit', null, 'no sample in the last 5 min'],
      ['okx', null, 'no sample in the last 5 min'],
      ['hyperliquid', 0.25, null],
      ['dydx', null, 'no sample in the last 5 min'],
    ])
    expect(f.exchanges[3]).toMatchObject({ rate: 0.0000375, intervalHours: 1, oiUsd: 1000 })
  })

  it('fewer than 72 hourly points: null statistics with a reason', () => {
    const now = T0 + 2 * MINUTE_MS
    const f = buildWeightedFunding({ coin: 'BTC', samples: [...history(71), sample('binance', T0, 0.0002, 8, 1, 1)], now })
    expect(f.weightedRate).toBe(0.0002)
    expect(f.zScore).toEqual({ value: null, reason: 'insufficient history: 71 of 72 points', points: 71 })
    expect(f.percentile).toEqual({ value: null, reason: 'insufficient history: 71 of 72 points', points: 71 })
  })

  it('no current data: null rate, null annualized, null statistics; samples after now are ignored', () => {
    const now = T0
    const f = buildWeightedFunding({ coin: 'BTC', samples: [...history(100), sample('okx', now + 1, 0.0001, 8, 1, 1)], now })
    expect(f).toMatchObject({ weightedRate: null, annualizedRate: null, reason: 'no exchange with both a funding rate and open interest' })
    expect(f.zScore.reason).toBe('no current value')
    expect(f.percentile.value).toBeNull()
    expect(f.exchanges).toHaveLength(5)
  })
})
