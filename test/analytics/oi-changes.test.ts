import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../src/domain/time.js'
import { EXCHANGE_IDS, type ExchangeId } from '../../src/domain/exchanges.js'
import { OI_HORIZON_MS, OI_SAMPLE_TOLERANCE_MS, buildOiChanges, oiChangePct, type OiSample } from '../../src/analytics/oi-changes.js'

const NOW = Date.UTC(2025, 0, 20, 12)
const s = (exchange: ExchangeId, ts: number, openInterest: number | null, markPrice: number | null = 100): OiSample => ({ exchange, ts, openInterest, markPrice })

describe('oiChangePct', () => {
  it('by hand, and null with a reason', () => {
    expect(oiChangePct(1000, 800)).toEqual({ pct: 25, reason: null }) // (1000 - 800) / 800 × 100
    expect(oiChangePct(1000, 1250)).toEqual({ pct: -20, reason: null }) // (1000 - 1250) / 1250 × 100
    expect(oiChangePct(5, 0)).toEqual({ pct: null, reason: 'reference open interest is zero' })
    expect(oiChangePct(5, null)).toEqual({ pct: null, reason: 'no reference open interest' })
    expect(oiChangePct(NaN, 5)).toEqual({ pct: null, reason: 'no current open interest' })
  })
})

describe('buildOiChanges', () => {
  it('constants', () => {
    expect(OI_HORIZON_MS).toEqual({ '1h': HOUR_MS, '4h': 4 * HOUR_MS, '24h': DAY_MS })
    expect(OI_SAMPLE_TOLERANCE_MS).toBe(5 * MINUTE_MS)
  })

  it('per exchange and aggregate, by hand', () => {
    const samples = [
      s('binance', NOW - 30_000, 1000, 50), // current: 1000 coins × 50 = 50 000 USD
      s('binance', NOW - HOUR_MS, 800),
      s('binance', NOW - 4 * HOUR_MS - MINUTE_MS, 1250), // 1 min before the 4 h mark: within the 5 min tolerance
      // no binance sample near NOW - 24h -> null
      s('okx', NOW - MINUTE_MS, 500, 52), // current: 500 × 52 = 26 000 USD
      s('okx', NOW - HOUR_MS - 2 * MINUTE_MS, 500),
      s('okx', NOW - DAY_MS - 6 * MINUTE_MS, 100), // 6 min before the 24 h mark: outside tolerance -> null
    ]
    const r = buildOiChanges({ coin: 'BTC', samples, now: NOW })
    expect(r.exchanges.map((e) => e.exchange)).toEqual([...EXCHANGE_IDS])
    const binance = r.exchanges[0]!
    expect(binance).toMatchObject({ exchange: 'binance', ts: NOW - 30_000, oi: 1000, oiUsd: 50_000, reason: null })
    expect(binance.changes['1h']).toEqual({ pct: 25, reason: null, referenceTs: NOW - HOUR_MS }) // (1000 - 800) / 800
    expect(binance.changes['4h']).toEqual({ pct: -20, reason: null, referenceTs: NOW - 4 * HOUR_MS - MINUTE_MS }) // (1000 - 1250) / 1250
    expect(binance.changes['24h']).toEqual({ pct: null, reason: 'no sample within 5 min before now - 24h', referenceTs: null })
    const okx = r.exchanges[2]!
    expect(okx).toMatchObject({ oi: 500, oiUsd: 26_000 })
    expect(okx.changes['1h'].pct).toBe(0)
    expect(okx.changes['4h'].pct).toBeNull()
    expect(okx.changes['24h'].pct).toBeNull()
    expect(r.exchanges[1]).toMatchObject({ exchange: 'bybit', oi: null, oiUsd: null, reason: 'no sample in the last 5 min' })
    expect(r.exchanges[1]!.changes['1h'].reason).toBe('no current open interest')

    // aggregate now: 1000 + 500 = 1500 coins, 50 000 + 26 000 = 76 000 USD
    expect(r.aggregate).toMatchObject({ oi: 1500, oiUsd: 76_000, reason: null, exchanges: ['binance', 'okx'] })
    // 1h: both venues at both ends: (1500 - (800 + 500)) / 1300 × 100 = 200 / 1300 × 100 = 15.3846...
    expect(r.aggregate.changes['1h'].exchanges).toEqual(['binance', 'okx'])
    expect(r.aggregate.changes['1h'].pct).toBeCloseTo((200 / 1300) * 100, 12)
    // 4h: only binance at both ends, so okx's 500 coins are not counted as new OI: (1000 - 1250) / 1250 = -20 %
    expect(r.aggregate.changes['4h']).toEqual({ pct: -20, reason: null, referenceTs: null, exchanges: ['binance'] })
    expect(r.aggregate.changes['24h']).toEqual({ pct: null, reason: 'no exchange with open interest at both ends', referenceTs: null, exchanges: [] })
  })

  it('measures in coins: a price move alone is a 0 % change', () => {
    const r = buildOiChanges({ coin: 'ETH', samples: [s('dydx', NOW, 10, 4000), s('dydx', NOW - HOUR_MS, 10, 2000)], now: NOW })
    expect(r.exchanges[4]!.changes['1h'].pct).toBe(0)
    expect(r.aggregate.changes['1h'].pct).toBe(0)
    expect(r.exchanges[4]!.oiUsd).toBe(40_000) // USD uses the current mark
  })

  it('takes the latest sample at or before each time, never one after it', () => {
    const r = buildOiChanges({
      coin: 'BTC',
      samples: [
        s('okx', NOW, 110),
        s('okx', NOW + 1, 999), // after now: ignored
        s('okx', NOW - HOUR_MS - 3 * MINUTE_MS, 50),
        s('okx', NOW - HOUR_MS, 100), // latest at or before NOW - 1h
        s('okx', NOW - HOUR_MS + 1, 70), // after the 1 h mark: not a reference
      ],
      now: NOW,
    })
    expect(r.exchanges[2]!.oi).toBe(110)
    expect(r.exchanges[2]!.changes['1h']).toEqual({ pct: 10, reason: null, referenceTs: NOW - HOUR_MS }) // (110 - 100) / 100
  })

  it('edge cases: empty input, zero reference, NaN OI, missing mark price', () => {
    const empty = buildOiChanges({ coin: 'BTC', samples: [], now: NOW })
    expect(empty.aggregate).toMatchObject({ oi: null, oiUsd: null, reason: 'no exchange with a sample in the last 5 min', exchanges: [] })
    expect(empty.exchanges.every((e) => e.oi === null)).toBe(true)

    const r = buildOiChanges({
      coin: 'BTC',
      samples: [
        s('binance', NOW, 10),
        s('binance', NOW - HOUR_MS, 0), // zero reference
        s('bybit', NOW, 20, null), // no mark: OI in coins yes, USD no
        s('bybit', NOW - 10, NaN), // NaN is skipped, the earlier good sample stays current
        s('bybit', NOW - HOUR_MS, 40),
      ],
      now: NOW,
    })
    expect(r.exchanges[0]!.changes['1h']).toMatchObject({ pct: null, reason: 'reference open interest is zero' })
    expect(r.exchanges[1]).toMatchObject({ oi: 20, oiUsd: null })
    expect(r.exchanges[1]!.changes['1h'].pct).toBe(-50) // (20 - 40) / 40
    // aggregate coins 10 + 20 = 30; USD unknown because bybit has no mark
    expect(r.aggregate).toMatchObject({ oi: 30, oiUsd: null })
    // aggregate 1h: (30 - (0 + 40)) / 40 × 100 = -25
    expect(r.aggregate.changes['1h'].pct).toBe(-25)
  })

  it('property: the aggregate change lies between the changes of the venues at both ends; no NaN escapes', () => {
    const arbSamples = fc.array(
      fc.record({
        exchange: fc.constantFrom(...EXCHANGE_IDS),
        ts: fc.integer({ min: NOW - DAY_MS - 10 * MINUTE_MS, max: NOW }),
        openInterest: fc.oneof(fc.double({ min: 0, max: 1e9, noNaN: true }), fc.constant(NaN), fc.constant(null)),
        markPrice: fc.oneof(fc.double({ min: 0.01, max: 1e5, noNaN: true }), fc.constant(null)),
      }),
      { maxLength: 60 },
    )
    // cluster some samples right at the reference marks so references are found
    const arbMarks = fc.array(
      fc.record({
        exchange: fc.constantFrom(...EXCHANGE_IDS),
        ts: fc.constantFrom(NOW, NOW - HOUR_MS, NOW - 4 * HOUR_MS, NOW - DAY_MS),
        openInterest: fc.double({ min: 1, max: 1e6, noNaN: true }),
        markPrice: fc.constant(10),
      }),
      { maxLength: 20 },
    )
    fc.assert(
      fc.property(arbSamples, arbMarks, (a, b) => {
        const r = buildOiChanges({ coin: 'X', samples: [...a, ...b], now: NOW })
        for (const e of r.exchanges) {
          for (const x of [e.oi, e.oiUsd, ...Object.values(e.changes).map((c) => c.pct)]) expect(x === null || Number.isFinite(x)).toBe(true)
        }
        for (const h of ['1h', '4h', '24h'] as const) {
          const agg = r.aggregate.changes[h]
          const both = r.exchanges.filter((e) => agg.exchanges.includes(e.exchange))
          if (agg.pct === null) {
            expect(agg.reason).not.toBeNull()
            continue
          }
          // Σcur/Σref - 1 = Σ ref_e × pct_e / Σ ref_e: a reference-weighted mean, so it lies between the venues' changes
          const pcts = both.map((e) => e.changes[h].pct)
          if (pcts.some((p) => p === null)) continue // a zero reference inside the set: no per-venue pct to compare
          const lo = Math.min(...(pcts as number[]))
          const hi = Math.max(...(pcts as number[]))
          expect(agg.pct).toBeGreaterThanOrEqual(lo - 1e-9 * Math.max(1, Math.abs(lo)))
          expect(agg.pct).toBeLessThanOrEqual(hi + 1e-9 * Math.max(1, Math.abs(hi)))
        }
      }),
      { numRuns: 200 },
    )
  })
})
