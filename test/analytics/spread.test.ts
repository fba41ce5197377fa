import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DAY_MS, MINUTE_MS } from '../../src/domain/time.js'
import { EXCHANGE_IDS } from '../../src/domain/exchanges.js'
import {
  SPREAD_MAX_PRICE_AGE_MS,
  SPREAD_Z_WINDOW,
  buildSpread,
  computeSpread,
  spreadHistory,
  spreadZScore,
  type PriceRow,
  type SpreadPoint,
} from '../../src/analytics/spread.js'

const T0 = Date.UTC(2025, 0, 2)

describe('computeSpread', () => {
  it('max - min in bps of the min/max mid, by hand', () => {
    const s = computeSpread([
      { exchange: 'okx', price: 101 },
      { exchange: 'binance', price: 100 },
      { exchange: 'bybit', price: 100.5 },
    ])
    // min 100 (binance), max 101 (okx), mid (100 + 101) / 2 = 100.5; spread = 1 / 100.5 × 10 000 = 99.5024875...
    expect(s.spreadBps).toBeCloseTo(99.50248756218906, 10)
    expect(s).toMatchObject({ cheapest: 'binance', dearest: 'okx', reason: null, exchanges: ['binance', 'bybit', 'okx'] })
  })

  it('min 99 and max 101 give exactly 200 bps (mid 100)', () => {
    expect(computeSpread([{ exchange: 'dydx', price: 99 }, { exchange: 'hyperliquid', price: 101 }]).spreadBps).toBe(200)
  })

  it('is null with a reason for fewer than two venues', () => {
    expect(computeSpread([])).toMatchObject({ spreadBps: null, cheapest: null, dearest: null, reason: 'fewer than 2 exchanges with a price (0)' })
    expect(computeSpread([{ exchange: 'okx', price: 10 }])).toMatchObject({ spreadBps: null, reason: 'fewer than 2 exchanges with a price (1)', exchanges: ['okx'] })
  })

  it('ignores missing, NaN, infinite and non-positive prices', () => {
    const s = computeSpread([
      { exchange: 'binance', price: NaN },
      { exchange: 'bybit', price: null },
      { exchange: 'okx', price: Infinity },
      { exchange: 'hyperliquid', price: 0 },
      { exchange: 'dydx', price: 50 },
    ])
    expect(s.spreadBps).toBeNull()
    expect(s.exchanges).toEqual(['dydx'])
  })

  it('breaks ties by canonical exchange order; equal prices give 0 bps', () => {
    const s = computeSpread([
      { exchange: 'dydx', price: 10 },
      { exchange: 'bybit', price: 10 },
      { exchange: 'okx', price: 10.2 },
      { exchange: 'binance', price: 10.2 },
    ])
    expect(s).toMatchObject({ cheapest: 'bybit', dearest: 'binance', outliers: [] })
    expect(computeSpread([{ exchange: 'okx', price: 7 }, { exchange: 'dydx', price: 7 }])).toMatchObject({ spreadBps: 0, cheapest: 'okx', dearest: 'okx' })
  })

  it('property: non-negative, below 20 000 bps, scale-free, and never NaN', () => {
    const arbPrices = fc.uniqueArray(
      fc.record({ exchange: fc.constantFrom(...EXCHANGE_IDS), price: fc.oneof(fc.double({ min: 1e-6, max: 1e6, noNaN: true }), fc.constant(NaN), fc.constant(null)) }),
      { selector: (p) => p.exchange },
    )
    fc.assert(
      fc.property(arbPrices, fc.integer({ min: 1, max: 1000 }), (prices, k) => {
        const s = computeSpread(prices)
        if (s.spreadBps === null) {
          expect(s.reason).not.toBeNull()
          return
        }
        expect(Number.isFinite(s.spreadBps)).toBe(true)
        expect(s.spreadBps).toBeGreaterThanOrEqual(0)
        expect(s.spreadBps).toBeLessThan(20_000)
        const scaled = computeSpread(prices.map((p) => ({ ...p, price: p.price === null ? null : p.price * k })))
        expect(Math.abs(scaled.spreadBps! - s.spreadBps)).toBeLessThanOrEqual(1e-9 * Math.max(1, s.spreadBps))
      }),
      { numRuns: 300 },
    )
  })
})

describe('spreadHistory', () => {
  it('one point per minute from each venue’s last price in it; minutes with one venue are skipped', () => {
    const rows: PriceRow[] = [
      { exchange: 'binance', ts: T0 + 1_000, price: 98, source: 'mark' },
      { exchange: 'binance', ts: T0 + 50_000, price: 99, source: 'mark' }, // last in minute T0 for binance
      { exchange: 'okx', ts: T0 + 30_000, price: 101, source: 'mark' },
      { exchange: 'okx', ts: T0 + MINUTE_MS, price: 100.5, source: 'mark' }, // minute T0+1m has okx only -> no point
      { exchange: 'okx', ts: T0 + 2 * MINUTE_MS, price: 100.5, source: 'mark' },
      { exchange: 'dydx', ts: T0 + 2 * MINUTE_MS + 5, price: 99.5, source: 'mark' },
      { exchange: 'dydx', ts: T0 + 3 * MINUTE_MS, price: NaN, source: 'mark' },
    ]
    // minute T0: 99 vs 101 -> 2 / 100 × 10 000 = 200; minute T0+2m: 99.5 vs 100.5 -> 1 / 100 × 10 000 = 100
    expect(spreadHistory(rows)).toEqual([
      { ts: T0, spreadBps: 200 },
      { ts: T0 + 2 * MINUTE_MS, spreadBps: 100 },
    ])
    expect(spreadHistory([])).toEqual([])
  })
})

describe('spreadZScore', () => {
  it('window constants', () => {
    expect(SPREAD_Z_WINDOW).toEqual({ lookbackMs: DAY_MS, stepMs: MINUTE_MS, minPoints: 720 })
  })

  const alternating = (n: number, endMinute: number): SpreadPoint[] =>
    Array.from({ length: n }, (_, i) => ({ ts: endMinute - (i + 1) * MINUTE_MS, spreadBps: i % 2 === 0 ? 100 : 200 }))

  it('by hand: 720 minutes alternating 100/200 bps, current 200', () => {
    const now = T0 + 30_000
    // mean 150; sample sd = sqrt(720 × 50² / 719) = 50 × sqrt(720/719); z = (200 - 150) / sd = sqrt(719/720) = 0.999305...
    const z = spreadZScore(200, alternating(720, T0), now)
    expect(z.points).toBe(720)
    expect(z.reason).toBeNull()
    expect(z.value).toBeCloseTo(Math.sqrt(719 / 720), 12)
  })

  it('is null with a reason below 720 points, and with no current spread', () => {
    expect(spreadZScore(200, alternating(719, T0), T0)).toEqual({ value: null, reason: 'insufficient history: 719 of 720 points', points: 719 })
    expect(spreadZScore(null, alternating(720, T0), T0).reason).toBe('no current value')
  })

  it('uses only [current minute - 24 h, current minute)', () => {
    const now = T0 + 10_000
    const inside = alternating(720, T0)
    const noise = [
      { ts: T0, spreadBps: 1e6 }, // the current minute: excluded
      { ts: T0 - DAY_MS - MINUTE_MS, spreadBps: 1e6 }, // older than 24 h: excluded
    ]
    expect(spreadZScore(200, [...inside, ...noise], now)).toEqual(spreadZScore(200, inside, now))
    // the oldest minute inside is exactly current minute - 24 h
    expect(spreadZScore(200, [{ ts: T0 - DAY_MS, spreadBps: 5 }], now).points).toBe(1)
  })
})

describe('buildSpread', () => {
  it('lists all five venues with their quote, drops stale ones, and scores against history', () => {
    const now = T0 + 20_000
    const history: PriceRow[] = []
    // 720 minutes of history before T0: binance 99 and okx 101 (200 bps) or 99.5 / 100.5 (100 bps), alternating
    for (let i = 1; i <= 720; i++) {
      const wide = i % 2 === 0
      history.push({ exchange: 'binance', ts: T0 - i * MINUTE_MS, price: wide ? 99 : 99.5, source: 'mark' })
      history.push({ exchange: 'okx', ts: T0 - i * MINUTE_MS, price: wide ? 101 : 100.5, source: 'mark' })
    }
    const current: PriceRow[] = [{ exchange: 'binance', ts: T0, price: 99, source: 'mark' }, { exchange: 'okx', ts: T0 + 1_000, price: 101, source: 'mark' }]
    // bybit's last mark is 6 min old: older than SPREAD_MAX_PRICE_AGE_MS (2 min), so missing now
    current.push({ exchange: 'bybit', ts: now - 6 * MINUTE_MS, price: 100, source: 'mark' })
    // a row after now is not "latest" at now
    current.push({ exchange: 'dydx', ts: now + 1, price: 1, source: 'mark' })
    expect(SPREAD_MAX_PRICE_AGE_MS).toBe(2 * MINUTE_MS)

    const s = buildSpread({ coin: 'BTC', current, history, now })
    const none = { outlier: false, outlierReason: null }
    expect(s.prices).toEqual([
      { exchange: 'binance', price: 99, priceSource: 'mark', quote: 'USDT', ts: T0, ...none },
      { exchange: 'bybit', price: null, priceSource: null, quote: 'USDT', ts: now - 6 * MINUTE_MS, ...none },
      { exchange: 'okx', price: 101, priceSource: 'mark', quote: 'USDT', ts: T0 + 1_000, ...none },
      { exchange: 'hyperliquid', price: null, priceSource: null, quote: 'USDC', ts: null, ...none },
      { exchange: 'dydx', price: null, priceSource: null, quote: 'USDC', ts: null, ...none },
    ])
    // current: 99 vs 101 -> 200 bps, both USDT. History: 720 alternating 200/100 bps, so z = sqrt(719/720) as in the hand case above.
    expect(s).toMatchObject({ coin: 'BTC', ts: now, spreadBps: 200, cheapest: 'binance', dearest: 'okx', reason: null, quotes: ['USDT'], mixedQuotes: false })
    expect(s.zScore.points).toBe(720)
    expect(s.zScore.value).toBeCloseTo(Math.sqrt(719 / 720), 12)
  })

  it('a spread across a USDT and a USDC venue says it mixes quotes', () => {
    const s = buildSpread({ coin: 'BTC', current: [{ exchange: 'bybit', ts: T0, price: 100, source: 'mark' }, { exchange: 'hyperliquid', ts: T0, price: 100.1, source: 'mark' }], history: [], now: T0 })
    expect(s).toMatchObject({ quotes: ['USDT', 'USDC'], mixedQuotes: true, cheapest: 'bybit', dearest: 'hyperliquid' })
  })

  it('one exchange or none: null spread and null z-score, each with a reason', () => {
    const s = buildSpread({ coin: 'ETH', current: [{ exchange: 'okx', ts: T0, price: 3000, source: 'mark' }], history: [], now: T0 })
    expect(s).toMatchObject({ spreadBps: null, cheapest: null, dearest: null, reason: 'fewer than 2 exchanges with a price (1)', mixedQuotes: false })
    expect(s.zScore).toMatchObject({ value: null, reason: 'no current value' })
    const empty = buildSpread({ coin: 'ETH', current: [], history: [], now: T0 })
    expect(empty.prices.every((p) => p.price === null)).toBe(true)
    expect(empty.spreadBps).toBeNull()
  })

  it('a flat history has no dispersion: null, not Infinity', () => {
    const history: PriceRow[] = []
    for (let i = 1; i <= 800; i++) history.push({ exchange: 'binance', ts: T0 - i * MINUTE_MS, price: 99, source: 'mark' }, { exchange: 'okx', ts: T0 - i * MINUTE_MS, price: 101, source: 'mark' })
    const s = buildSpread({ coin: 'BTC', current: [{ exchange: 'binance', ts: T0, price: 99, source: 'mark' }, { exchange: 'okx', ts: T0, price: 101, source: 'mark' }], history, now: T0 })
    expect(s.spreadBps).toBe(200)
    expect(s.zScore).toEqual({ value: null, reason: 'history has no dispersion', points: 800 })
  })
})

// issue 29 item 11: replaying the fixture recording, BTC prices of 46 816 / 51 444 / 84 660 / 98 818 / 89 919 made a
// 943 bps "spread"; a venue price far off the others is set aside and named, never compared silently
describe('outliers', () => {
  it('a venue more than 5 % from the median of the venues\' prices is set aside and named; the spread is over the others', () => {
    // median of 100, 100.1, 100.2, 100.3, 93 = 100.1; 93 / 100.1 − 1 = −7.09 %: out; the rest within 0.2 %
    const s = computeSpread([
      { exchange: 'binance', price: 100 }, { exchange: 'bybit', price: 100.1 }, { exchange: 'okx', price: 100.2 },
      { exchange: 'hyperliquid', price: 100.3 }, { exchange: 'dydx', price: 93 },
    ])
    expect(s.outliers).toEqual([{ exchange: 'dydx', price: 93, deviation: 93 / 100.1 - 1 }])
    expect(s.median).toBe(100.1)
    expect(s.exchanges).toEqual(['binance', 'bybit', 'okx', 'hyperliquid'])
    // 100 vs 100.3: 0.3 / 100.15 × 10 000
    expect(s.spreadBps).toBeCloseTo((0.3 / 100.15) * 1e4, 9)
    expect(s).toMatchObject({ cheapest: 'binance', dearest: 'hyperliquid' })
  })

  it('the replayed collage: no two venues agree, so every price but the median\'s is set aside and there is no spread', () => {
    const prices = [
      { exchange: 'binance' as const, price: 46_816 }, { exchange: 'bybit' as const, price: 51_444 }, { exchange: 'okx' as const, price: 84_660 },
      { exchange: 'hyperliquid' as const, price: 98_818 }, { exchange: 'dydx' as const, price: 89_919 },
    ]
    const s = computeSpread(prices)
    // median 84 660: 89 919 is +6.2 %, the others further; OKX alone is left
    expect(s.outliers.map((o) => o.exchange)).toEqual(['binance', 'bybit', 'hyperliquid', 'dydx'])
    expect(s.spreadBps).toBeNull()
    expect(s.reason).toContain('binance, bybit, hyperliquid, dydx set aside as outliers')
  })

  it('two venues, or a 5 % gap exactly, set nothing aside', () => {
    expect(computeSpread([{ exchange: 'okx', price: 100 }, { exchange: 'dydx', price: 120 }]).outliers).toEqual([])
    // median of 100, 100, 105 is 100: 105 is exactly +5 %, not beyond it
    expect(computeSpread([{ exchange: 'okx', price: 100 }, { exchange: 'bybit', price: 100 }, { exchange: 'dydx', price: 105 }]).outliers).toEqual([])
  })

  it('buildSpread flags the outlier\'s row with the reason and leaves it out of the quotes and of the history minutes', () => {
    const rows = (ts: number): PriceRow[] => [
      { exchange: 'bybit', ts, price: 100, source: 'mark' }, { exchange: 'okx', ts, price: 100.1, source: 'mark' },
      { exchange: 'dydx', ts, price: 80, source: 'last_trade' },
    ]
    // the last trade is known to its minute: the current one of the minute before now counts as of that minute's end
    const current = rows(T0).map((r) => (r.source === 'last_trade' ? { ...r, ts: T0 - MINUTE_MS } : r))
    const s = buildSpread({ coin: 'BTC', current, history: [...rows(T0 - MINUTE_MS), ...rows(T0 - 2 * MINUTE_MS)], now: T0 })
    const dydx = s.prices.find((p) => p.exchange === 'dydx')!
    expect(dydx).toMatchObject({ price: 80, priceSource: 'last_trade', outlier: true, outlierReason: expect.stringContaining('-20.00 % from the venues\' median 100') })
    expect(s).toMatchObject({ outliers: ['dydx'], quotes: ['USDT'], mixedQuotes: false })
    expect(s.spreadBps).toBeCloseTo((0.1 / 100.05) * 1e4, 9)
    expect(spreadHistory([...rows(T0 - MINUTE_MS)]).map((p) => p.spreadBps)).toEqual([s.spreadBps])
  })
})
