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
      { exchange: 'okx', price: 12 },
      { exchange: 'binance', price: 12 },
    ])
    expect(s).toMatchObject({ cheapest: 'bybit', dearest: 'binance' })
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
      { exchange: 'binance', ts: T0 + 1_000, price: 98 },
      { exchange: 'binance', ts: T0 + 50_000, price: 99 }, // last in minute T0 for binance
      { exchange: 'okx', ts: T0 + 30_000, price: 101 },
      { exchange: 'okx', ts: T0 + MINUTE_MS, price: 100.5 }, // minute T0+1m has okx only -> no point
      { exchange: 'okx', ts: T0 + 2 * MINUTE_MS, price: 100.5 },
      { exchange: 'dydx', ts: T0 + 2 * MINUTE_MS + 5, price: 99.5 },
      { exchange: 'dydx', ts: T0 + 3 * MINUTE_MS, price: NaN },
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
      history.push({ exchange: 'binance', ts: T0 - i * MINUTE_MS, price: wide ? 99 : 99.5 })
      history.push({ exchange: 'okx', ts: T0 - i * MINUTE_MS, price: wide ? 101 : 100.5 })
    }
    const current: PriceRow[] = [{ exchange: 'binance', ts: T0, price: 99 }, { exchange: 'okx', ts: T0 + 1_000, price: 101 }]
    // bybit's last mark is 6 min old: older than SPREAD_MAX_PRICE_AGE_MS (2 min), so missing now
    current.push({ exchange: 'bybit', ts: now - 6 * MINUTE_MS, price: 100 })
    // a row after now is not "latest" at now
    current.push({ exchange: 'dydx', ts: now + 1, price: 1 })
    expect(SPREAD_MAX_PRICE_AGE_MS).toBe(2 * MINUTE_MS)

    const s = buildSpread({ coin: 'BTC', current, history, now })
    expect(s.prices).toEqual([
      { exchange: 'binance', price: 99, quote: 'USDT', ts: T0 },
      { exchange: 'bybit', price: null, quote: 'USDT', ts: now - 6 * MINUTE_MS },
      { exchange: 'okx', price: 101, quote: 'USDT', ts: T0 + 1_000 },
      { exchange: 'hyperliquid', price: null, quote: 'USDC', ts: null },
      { exchange: 'dydx', price: null, quote: 'USDC', ts: null },
    ])
    // current: 99 vs 101 -> 200 bps, both USDT. History: 720 alternating 200/100 bps, so z = sqrt(719/720) as in the hand case above.
    expect(s).toMatchObject({ coin: 'BTC', ts: now, spreadBps: 200, cheapest: 'binance', dearest: 'okx', reason: null, quotes: ['USDT'], mixedQuotes: false })
    expect(s.zScore.points).toBe(720)
    expect(s.zScore.value).toBeCloseTo(Math.sqrt(719 / 720), 12)
  })

  it('a spread across a USDT and a USDC venue says it mixes quotes', () => {
    const s = buildSpread({ coin: 'BTC', current: [{ exchange: 'bybit', ts: T0, price: 100 }, { exchange: 'hyperliquid', ts: T0, price: 100.1 }], history: [], now: T0 })
    expect(s).toMatchObject({ quotes: ['USDT', 'USDC'], mixedQuotes: true, cheapest: 'bybit', dearest: 'hyperliquid' })
  })

  it('one exchange or none: null spread and null z-score, each with a reason', () => {
    const s = buildSpread({ coin: 'ETH', current: [{ exchange: 'okx', ts: T0, price: 3000 }], history: [], now: T0 })
    expect(s).toMatchObject({ spreadBps: null, cheapest: null, dearest: null, reason: 'fewer than 2 exchanges with a price (1)', mixedQuotes: false })
    expect(s.zScore).toMatchObject({ value: null, reason: 'no current value' })
    const empty = buildSpread({ coin: 'ETH', current: [], history: [], now: T0 })
    expect(empty.prices.every((p) => p.price === null)).toBe(true)
    expect(empty.spreadBps).toBeNull()
  })

  it('a flat history has no dispersion: null, not Infinity', () => {
    const history: PriceRow[] = []
    for (let i = 1; i <= 800; i++) history.push({ exchange: 'binance', ts: T0 - i * MINUTE_MS, price: 99 }, { exchange: 'okx', ts: T0 - i * MINUTE_MS, price: 101 })
    const s = buildSpread({ coin: 'BTC', current: [{ exchange: 'binance', ts: T0, price: 99 }, { exchange: 'okx', ts: T0, price: 101 }], history, now: T0 })
    expect(s.spreadBps).toBe(200)
    expect(s.zScore).toEqual({ value: null, reason: 'history has no dispersion', points: 800 })
  })
})
