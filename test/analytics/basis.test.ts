// The premium annualised as each venue's funding formula pays it (issue 29, item 1): the same premium fed in on every
// venue, the expected figures worked out by hand from the venues' documented formulas (docs/methodology.md#basis).
import { describe, expect, it } from 'vitest'
import { buildBasis, type PremiumBucket } from '../../src/analytics/basis.js'
import { EXCHANGE_IDS, type ExchangeId } from '../../src/domain/exchanges.js'

const HOUR = 3_600_000
const T0 = Date.UTC(2026, 0, 5, 0, 0, 0)
/** 5.8 bps, the Hyperliquid premium the issue measured */
const INDEX = 100_000
const MARK = INDEX * (1 + 5.8e-4)
const PREMIUM = MARK / INDEX - 1

function basisOf(exchange: ExchangeId, intervalHours: number) {
  const premiums: PremiumBucket[] = [{ exchange, ts: T0, mark: MARK, index: INDEX, fundingIntervalHours: intervalHours }]
  return buildBasis({ premiums, perpBars: [], spotBars: [], intervalMs: HOUR, from: T0, to: T0 + HOUR })
}

describe('premium annualised by the venue\'s funding formula', () => {
  // Binance, Bybit, OKX: the settlement's rate is the interval's average premium (+ a clamped interest term), so a
  // premium p held a year is paid once per settlement: 8 760 / h settlements. At 8 h: 1 095 times; at 4 h: 2 190.
  it('Binance, Bybit and OKX pay the premium once per settlement: 1 095 times a year at 8 h, 2 190 at 4 h', () => {
    for (const e of ['binance', 'bybit', 'okx'] as const) {
      expect(basisOf(e, 8)[0]!.points[0]!.premiumAnnualizedPct).toBeCloseTo(PREMIUM * 1095 * 100, 9)
      expect(basisOf(e, 4)[0]!.points[0]!.premiumAnnualizedPct).toBeCloseTo(PREMIUM * 2190 * 100, 9)
    }
  })

  // Hyperliquid: "The funding rate formula applies to 8 hour funding rate. However, funding is paid every hour at one
  // eighth of the computed rate for each hour": an hourly settlement pays p / 8, 8 760 times a year = p × 1 095.
  it('Hyperliquid pays one eighth of the 8-hour rate each hour: the same 1 095 times a year as an 8-hour CEX, not 8 760', () => {
    const pct = basisOf('hyperliquid', 1)[0]!.points[0]!.premiumAnnualizedPct!
    expect(pct).toBeCloseTo(PREMIUM * (8760 / 8) * 100, 9)
    // 5.8 bps is about 63.5 % a year, not the 508 % an hourly premium paid in full would give
    expect(pct).toBeCloseTo(63.51, 1)
    expect(pct).toBeCloseTo(basisOf('binance', 8)[0]!.points[0]!.premiumAnnualizedPct!, 9)
  })

  it('a premium of the same size gives the same annualised figure on every venue at its usual interval', () => {
    const usual: Record<ExchangeId, number> = { binance: 8, bybit: 8, okx: 8, hyperliquid: 1, dydx: 1 }
    const figures = EXCHANGE_IDS.filter((e) => e !== 'dydx').map((e) => basisOf(e, usual[e])[0]!.points[0]!.premiumAnnualizedPct!)
    for (const f of figures) expect(f).toBeCloseTo(PREMIUM * 1095 * 100, 9)
  })

  it('dYdX has no mark apart from its oracle: no premium at all, rather than a premium of 0', () => {
    // the stored dYdX mark is its oracle price, equal to the index
    const out = buildBasis({ premiums: [{ exchange: 'dydx', ts: T0, mark: INDEX, index: INDEX, fundingIntervalHours: 1 }], perpBars: [], spotBars: [], intervalMs: HOUR, from: T0, to: T0 + HOUR })
    expect(out).toEqual([])
  })
})
