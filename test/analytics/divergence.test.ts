import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  computeDivergence,
  DIVERGENCE_MIN_POINTS,
  DIVERGENCE_Z_THRESHOLD,
  divergenceLookbackMinutes,
  type DivergenceMinute,
  type DivergencePair,
  type DivergenceTimeframe,
} from '../../src/analytics/divergence.js'

// Deterministic N(0,1) noise (mulberry32 + Box-Muller) so the hand-built markets are reproducible.
function gaussian(seed: number): () => number {
  let a = seed >>> 0
  const u = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return () => Math.sqrt(-2 * Math.log(u() + 1e-12)) * Math.cos(2 * Math.PI * u())
}

const T0 = Date.UTC(2025, 0, 1)
const MIN = 60_000

interface Shock {
  /** applied linearly over the last `minutes` minutes */
  minutes: number
  priceLog?: number
  oiLog?: number
  funding?: number
  /** extra taker flow per minute, coins */
  perpFlow?: number
  spotFlow?: number
  /** hold the price still over the shock (a flat leg) */
  flatPrice?: boolean
}

/**
 * A market of n minutes: independent random walks for price (sd 0.05 %/min), OI (0.02 %/min), funding (1e-6/min)
 * and taker flows (sd 10 coins/min for perp and spot), plus a deterministic shock over the final minutes.
 */
function market(n: number, shock: Shock | null, seed = 1): DivergenceMinute[] {
  const g = gaussian(seed)
  let lp = Math.log(100)
  let lo = Math.log(1e6)
  let f = 1e-4
  const out: DivergenceMinute[] = []
  for (let i = 0; i < n; i++) {
    const inShock = shock != null && i >= n - shock.minutes
    const k = inShock ? 1 / shock!.minutes : 0
    const step = 0.0005 * g() + k * (shock?.priceLog ?? 0)
    if (!(inShock && shock!.flatPrice)) lp += step
    lo += 0.0002 * g() + k * (shock?.oiLog ?? 0)
    f += 1e-6 * g() + k * (shock?.funding ?? 0)
    const perp = 10 * g() + (inShock ? (shock!.perpFlow ?? 0) : 0)
    const spot = 10 * g() + (inShock ? (shock!.spotFlow ?? 0) : 0)
    out.push({
      ts: T0 + i * MIN,
      price: Math.exp(lp),
      openInterest: Math.exp(lo),
      fundingRate: f,
      perpBuyVolume: 50 + Math.max(0, perp),
      perpSellVolume: 50 + Math.max(0, -perp),
      spotBuyVolume: 50 + Math.max(0, spot),
      spotSellVolume: 50 + Math.max(0, -spot),
    })
  }
  return out
}

const FULL = divergenceLookbackMinutes('4h') // 121 * 240 + 1 minutes
const pick = (r: ReturnType<typeof computeDivergence>, pair: DivergencePair, tf: DivergenceTimeframe) =>
  r.pairs.find((p) => p.pair === pair && p.timeframe === tf)!

describe('computeDivergence', () => {
  it('returns the 4 pairs on 2 timeframes', () => {
    const r = computeDivergence('BTC', market(FULL, null))
    expect(r.coin).toBe('BTC')
    expect(r.asOf).toBe(T0 + FULL * MIN)
    expect(r.pairs.map((p) => `${p.pair}/${p.timeframe}`)).toEqual([
      'oi_price/1h',
      'cvd_price/1h',
      'funding_price/1h',
      'spot_perp_cvd/1h',
      'oi_price/4h',
      'cvd_price/4h',
      'funding_price/4h',
      'spot_perp_cvd/4h',
    ])
    for (const p of r.pairs) expect(p.points).toBe(120)
  })

  it('price rising while OI falls is a bearish OI/price divergence', () => {
    // Last hour: price +3 % (log), OI -3 % (log). An hour's noise is 0.05 % * sqrt(60) = 0.39 % for price and
    // 0.15 % for OI, so the legs are ~ +7.7 and -19 standard deviations and d = z(price) - z(OI) is far beyond 2.
    const minutes = market(FULL, { minutes: 60, priceLog: 0.03, oiLog: -0.03 })
    const s = pick(computeDivergence('BTC', minutes), 'oi_price', '1h')
    const last = minutes.length - 1
    expect(s.legs[0]).toMatchObject({ series: 'price', change: expect.closeTo(Math.log(minutes[last]!.price! / minutes[last - 60]!.price!), 12) })
    expect(s.legs[1]).toMatchObject({ series: 'open_interest' })
    expect(s.legs[0].z!).toBeGreaterThan(3)
    expect(s.legs[1].z!).toBeLessThan(-3)
    expect(s.direction).toBe('bearish')
    expect(s.zScore!).toBeGreaterThan(DIVERGENCE_Z_THRESHOLD)
    expect(s.active).toBe(true)
    expect(s.divergence).toBeCloseTo(s.legs[0].z! - s.legs[1].z!, 12)
  })

  it('price falling while OI rises is bearish too (new shorts); price and OI rising together is bullish (new longs)', () => {
    const down = pick(computeDivergence('BTC', market(FULL, { minutes: 60, priceLog: -0.03, oiLog: 0.03 })), 'oi_price', '1h')
    expect(down).toMatchObject({ direction: 'bearish', active: true, statistic: 'difference' })
    const both = pick(computeDivergence('BTC', market(FULL, { minutes: 60, priceLog: 0.03, oiLog: 0.03 })), 'oi_price', '1h')
    expect(both).toMatchObject({ direction: 'bullish', active: true, statistic: 'sum' })
    expect(both.divergence).toBeCloseTo(both.legs[0].z! + both.legs[1].z!, 12)
  })

  // docs/methodology.md#divergence, the readings table: every quadrant with a reading must be able to fire.
  // Shocks over the last hour: price ±3 % (≈ 7.7 σ of an hour), OI ±3 % (≈ 19 σ), funding ±1e-4 (≈ 13 σ),
  // taker flow ±200 coins/min (≈ 150 σ); a flat leg is held still.
  const P = 0.03
  const F = 1e-4
  const FLOW = 200
  const QUADRANTS: [DivergencePair, string, Shock, 'bullish' | 'bearish' | 'none'][] = [
    ['oi_price', 'price up, OI up: new longs', { minutes: 60, priceLog: P, oiLog: P }, 'bullish'],
    ['oi_price', 'price up, OI down: short covering', { minutes: 60, priceLog: P, oiLog: -P }, 'bearish'],
    ['oi_price', 'price down, OI up: new shorts', { minutes: 60, priceLog: -P, oiLog: P }, 'bearish'],
    ['oi_price', 'price down, OI down: long liquidation', { minutes: 60, priceLog: -P, oiLog: -P }, 'bullish'],
    ['cvd_price', 'price down, CVD up: absorption', { minutes: 60, priceLog: -P, perpFlow: FLOW }, 'bullish'],
    ['cvd_price', 'price up, CVD down: rally without buyers', { minutes: 60, priceLog: P, perpFlow: -FLOW }, 'bearish'],
    ['cvd_price', 'price up, CVD up: confirmation', { minutes: 60, priceLog: P, perpFlow: FLOW }, 'none'],
    ['cvd_price', 'price down, CVD down: confirmation', { minutes: 60, priceLog: -P, perpFlow: -FLOW }, 'none'],
    ['funding_price', 'price up, funding down: shorts fade the rally', { minutes: 60, priceLog: P, funding: -F }, 'bullish'],
    ['funding_price', 'price down, funding down: shorts crowd in', { minutes: 60, priceLog: -P, funding: -F }, 'bullish'],
    ['funding_price', 'price flat, funding down', { minutes: 60, flatPrice: true, funding: -F }, 'bullish'],
    ['funding_price', 'price down, funding up: longs add into the fall', { minutes: 60, priceLog: -P, funding: F }, 'bearish'],
    ['funding_price', 'price up, funding up: crowded longs', { minutes: 60, priceLog: P, funding: F }, 'bearish'],
    ['funding_price', 'price flat, funding up', { minutes: 60, flatPrice: true, funding: F }, 'bearish'],
    ['spot_perp_cvd', 'spot buying, perp selling: spot-led', { minutes: 60, spotFlow: FLOW, perpFlow: -FLOW }, 'bullish'],
    ['spot_perp_cvd', 'spot selling, perp buying: perp-led', { minutes: 60, spotFlow: -FLOW, perpFlow: FLOW }, 'bearish'],
    ['spot_perp_cvd', 'both buying: aligned', { minutes: 60, spotFlow: FLOW, perpFlow: FLOW }, 'none'],
  ]
  for (const [pair, what, shock, direction] of QUADRANTS)
    it(`${pair}: ${what} -> ${direction}${direction === 'none' ? '' : ', active'}`, () => {
      const s = pick(computeDivergence('BTC', market(FULL, shock)), pair, '1h')
      expect(s.direction).toBe(direction)
      expect(s.active).toBe(direction !== 'none')
      if (direction !== 'none') expect(Math.abs(s.zScore!)).toBeGreaterThanOrEqual(DIVERGENCE_Z_THRESHOLD)
      // the statistic follows the quadrant: a sum when both legs moved the same way, else a difference
      const [za, zb] = [s.legs[0].z!, s.legs[1].z!]
      const same = Math.abs(za) >= 0.5 && Math.abs(zb) >= 0.5 && Math.sign(za) === Math.sign(zb)
      expect(s.statistic).toBe(same ? 'sum' : 'difference')
      expect(s.divergence).toBeCloseTo(same ? za + zb : za - zb, 12)
    })

  it('names the venues behind each leg of the current window (union of the minutes; OI/funding: the matched venues)', () => {
    const minutes = market(FULL, null).map((m, i, all) => ({
      ...m,
      exchanges: i >= all.length - 30 ? { price: ['okx', 'binance'], perp: ['binance', 'okx'], openInterest: ['bybit'], spot: [] } : { price: ['dydx'], perp: ['dydx'], openInterest: ['hyperliquid'] },
    }))
    const s = pick(computeDivergence('BTC', minutes), 'oi_price', '1h')
    // the window's first minute is the price leg's start too; the other legs count the 60 minutes after it
    expect(s.legs[0].exchanges).toEqual(['binance', 'okx', 'dydx'])
    expect(s.legs[1].exchanges).toEqual(['bybit', 'hyperliquid'])
    expect(pick(computeDivergence('BTC', market(FULL, null)), 'oi_price', '1h').legs[0].exchanges).toEqual([])
  })

  it('CVD up while price falls is bullish absorption; price up on CVD down is bearish', () => {
    // 200 coins/min extra net buying for an hour = 12 000 coins vs an hourly noise of ~ 10 * sqrt(60) = 77 coins
    const bull = pick(computeDivergence('ETH', market(FULL, { minutes: 60, priceLog: -0.03, perpFlow: 200 })), 'cvd_price', '1h')
    expect(bull).toMatchObject({ direction: 'bullish', active: true })
    const bear = pick(computeDivergence('ETH', market(FULL, { minutes: 60, priceLog: 0.03, perpFlow: -200 })), 'cvd_price', '1h')
    expect(bear).toMatchObject({ direction: 'bearish', active: true })
  })

  it('funding up while price falls is bearish; funding down while price rises is bullish', () => {
    // funding noise over an hour: 1e-6 * sqrt(60) = 7.7e-6; shock 1e-4
    const bear = pick(computeDivergence('SOL', market(FULL, { minutes: 60, priceLog: -0.02, funding: 1e-4 })), 'funding_price', '1h')
    expect(bear).toMatchObject({ direction: 'bearish', active: true })
    const bull = pick(computeDivergence('SOL', market(FULL, { minutes: 60, priceLog: 0.02, funding: -1e-4 })), 'funding_price', '1h')
    expect(bull).toMatchObject({ direction: 'bullish', active: true })
  })

  it('spot CVD up against perp CVD down is bullish (spot-led), the reverse bearish', () => {
    const bull = pick(computeDivergence('BTC', market(FULL, { minutes: 240, spotFlow: 100, perpFlow: -100 })), 'spot_perp_cvd', '4h')
    expect(bull).toMatchObject({ direction: 'bullish', active: true })
    const bear = pick(computeDivergence('BTC', market(FULL, { minutes: 240, spotFlow: -100, perpFlow: 100 })), 'spot_perp_cvd', '4h')
    expect(bear).toMatchObject({ direction: 'bearish', active: true })
  })

  it('short history: z is null with a reason and nothing is active', () => {
    // 600 minutes span 599 minute steps: the current hour and 8 earlier full hours, fewer than the 24 required
    const r = computeDivergence('BTC', market(600, { minutes: 60, priceLog: 0.03, oiLog: -0.03 }))
    const s = pick(r, 'oi_price', '1h')
    expect(s.points).toBe(8)
    expect(s).toMatchObject({ zScore: null, active: false, direction: 'none' })
    expect(s.reason).toMatch(/insufficient history: 8 of 24/)
    expect(pick(r, 'oi_price', '4h').reason).toMatch(/insufficient history/)
    expect(DIVERGENCE_MIN_POINTS).toBe(24)
  })

  it('no spot market: spot/perp CVD is null with a reason', () => {
    const minutes = market(FULL, null).map((m) => ({ ...m, spotBuyVolume: null, spotSellVolume: null }))
    const s = pick(computeDivergence('SUI', minutes), 'spot_perp_cvd', '1h')
    expect(s).toMatchObject({ zScore: null, active: false })
    expect(s.reason).toMatch(/spot_cvd/)
  })

  it('no data at all', () => {
    const r = computeDivergence('BTC', [])
    expect(r.asOf).toBeNull()
    expect(r.pairs).toHaveLength(8)
    for (const p of r.pairs) expect(p).toMatchObject({ zScore: null, active: false, direction: 'none', reason: 'no data' })
  })

  it('forward-fills gaps: a missing minute does not break the windows', () => {
    const full = market(FULL, { minutes: 60, priceLog: 0.03, oiLog: -0.03 })
    const gappy = full.filter((_, i) => i % 97 !== 5)
    expect(pick(computeDivergence('BTC', gappy), 'oi_price', '1h')).toMatchObject({ direction: 'bearish', active: true })
  })

  it('properties: active only with |z| >= threshold and a direction; z null never active', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1e6 }),
        fc.double({ min: -0.05, max: 0.05, noNaN: true }),
        fc.double({ min: -0.05, max: 0.05, noNaN: true }),
        fc.double({ min: -300, max: 300, noNaN: true }),
        (seed, priceLog, oiLog, perpFlow) => {
          const r = computeDivergence('X', market(60 * 40, { minutes: 60, priceLog, oiLog, perpFlow }, seed))
          expect(r.pairs).toHaveLength(8)
          for (const p of r.pairs) {
            if (p.zScore == null) expect(p.active).toBe(false)
            if (p.active) {
              expect(Math.abs(p.zScore!)).toBeGreaterThanOrEqual(DIVERGENCE_Z_THRESHOLD)
              expect(p.direction).not.toBe('none')
            }
          }
        },
      ),
      { numRuns: 40 },
    )
  })
})
