import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  continuousMaintenanceAmounts,
  DEFAULT_LEVERAGE_MIX,
  DEFAULT_TIERS,
  positionClasses,
  tiersInUsd,
  type LeverageTier,
} from '../../src/analytics/leverage-tiers.js'

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0)
const tier = (minNotional: number, maxNotional: number, mmr: number, maxLeverage: number, amount = 0): LeverageTier => ({
  minNotional, maxNotional, maintenanceMarginRate: mmr, maxLeverage, maintenanceAmount: amount,
})

describe('positionClasses', () => {
  it('spreads new OI over tiers by the Pareto(1.5, $1 000) notional share, then over the leverage mix capped at each tier', () => {
    // tiers [0, 50k) 4 % / 125x, [50k, ∞) 1 % / 20x (cum 50k·(0.01 − 0.004) = 300)
    const tiers = [tier(0, 50_000, 0.004, 125), tier(50_000, Infinity, 0.01, 20, 300)]
    const classes = positionClasses(tiers)
    // notional share of [a, b) = (a^-0.5 − b^-0.5) / 1000^-0.5
    const s1 = (1000 ** -0.5 - 50_000 ** -0.5) / 1000 ** -0.5
    const s2 = 50_000 ** -0.5 / 1000 ** -0.5
    expect(s1 + s2).toBeCloseTo(1, 12)
    const t1 = classes.filter((c) => c.tier === 1)
    const t2 = classes.filter((c) => c.tier === 2)
    expect(sum(t1.map((c) => c.weight))).toBeCloseTo(s1, 12)
    expect(sum(t2.map((c) => c.weight))).toBeCloseTo(s2, 12)
    // tier 1 keeps the whole mix (max 125x); tier 2 caps 50x at 20x: 20x holds 0.043 + 0.022 (docs/methodology.md#leverage-mix)
    expect(t1.map((c) => [c.leverage, c.weight / s1])).toEqual(DEFAULT_LEVERAGE_MIX.map((m) => [m.leverage, expect.closeTo(m.weight, 12)]))
    expect(t2.map((c) => [c.leverage, c.weight / s2])).toEqual([
      [2, expect.closeTo(0.363, 12)],
      [5, expect.closeTo(0.485, 12)],
      [10, expect.closeTo(0.087, 12)],
      [20, expect.closeTo(0.065, 12)],
    ])
    // the maintenance amount enters as cum · E[1/N] over the tier's notional: (α−1)/α · (a^−α − b^−α)/(a^(1−α) − b^(1−α)) with b = ∞
    const meanInverse = (0.5 / 1.5) * (50_000 ** -1.5 / 50_000 ** -0.5)
    for (const c of t2) expect(c.amountOverNotional).toBeCloseTo(300 * meanInverse, 15)
    for (const c of t1) expect(c.amountOverNotional).toBe(0)
  })

  it('the documented default (one tier, 0.5 %, 100x) is the leverage mix at one maintenance rate', () => {
    expect(positionClasses(DEFAULT_TIERS)).toEqual(DEFAULT_LEVERAGE_MIX.map((m) => ({ weight: expect.closeTo(m.weight, 12), leverage: m.leverage, maintenanceMarginRate: 0.005, amountOverNotional: 0, tier: 1 })))
  })

  it('no position is opened where it would be liquidated at once: leverage stays under 1 / (mmr − amount/notional)', () => {
    const classes = positionClasses([tier(0, Infinity, 0.02, 100)])
    for (const c of classes) expect(1 / c.leverage).toBeGreaterThan(c.maintenanceMarginRate - c.amountOverNotional)
    expect(Math.max(...classes.map((c) => c.leverage))).toBeLessThan(50)
  })

  it('property: weights sum to 1 and every class can be opened, for any tier table with continuous maintenance amounts', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.double({ min: 1e3, max: 1e8, noNaN: true }), fc.integer({ min: 1, max: 125 })), { minLength: 1, maxLength: 8 }), (raw) => {
        const bounds = [...new Set(raw.map(([b]) => Math.round(b)))].sort((a, b) => a - b)
        const levs = raw.map(([, l]) => l).sort((a, b) => b - a)
        const tiers = continuousMaintenanceAmounts(
          [0, ...bounds].map((lo, i, all) => ({ minNotional: lo, maxNotional: all[i + 1] ?? Infinity, maintenanceMarginRate: 1 / (2 * (levs[i] ?? 1)), maxLeverage: levs[i] ?? 1 })),
        )
        const classes = positionClasses(tiers)
        expect(sum(classes.map((c) => c.weight))).toBeCloseTo(1, 9)
        for (const c of classes) {
          expect(c.weight).toBeGreaterThan(0)
          expect(1 / c.leverage + c.amountOverNotional).toBeGreaterThan(c.maintenanceMarginRate)
        }
      }),
    )
  })
})

describe('tier tables', () => {
  it('continuous maintenance amounts: Binance\'s cum rule c_n = c_{n−1} + floor_n · (m_n − m_{n−1})', () => {
    const t = continuousMaintenanceAmounts([
      { minNotional: 0, maxNotional: 5e4, maintenanceMarginRate: 0.004, maxLeverage: 125 },
      { minNotional: 5e4, maxNotional: 6e5, maintenanceMarginRate: 0.005, maxLeverage: 100 },
      { minNotional: 6e5, maxNotional: Infinity, maintenanceMarginRate: 0.0065, maxLeverage: 75 },
    ])
    expect(t.map((x) => x.maintenanceAmount)).toEqual([0, 50, expect.closeTo(950, 9)]) // Binance BTCUSDT brackets 1-3
  })

  it('coin-sized tiers (OKX) scale with the price; USD tiers do not', () => {
    const coins = { unit: 'coin' as const, tiers: [tier(0, 20, 0.004, 100), tier(20, Infinity, 0.005, 75)] }
    expect(tiersInUsd(coins, 100_000).map((t) => [t.minNotional, t.maxNotional])).toEqual([[0, 2e6], [2e6, Infinity]])
    const usd = { unit: 'usd' as const, tiers: coins.tiers }
    expect(tiersInUsd(usd, 100_000)).toBe(usd.tiers)
  })
})
