import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { classifyRegime, REGIMES, type RegimeHour } from '../../src/analytics/regime.js'

const H = 3_600_000
const T0 = Date.UTC(2025, 0, 1)
const hours = (closes: number[], oi: (i: number) => number | null = () => 1000): RegimeHour[] =>
  closes.map((close, i) => ({ ts: T0 + i * H, close, openInterest: oi(i) }))

/** n closes alternating between base and base * (1 + amp): every hourly move is +-ln(1 + amp); odd n ends at base */
const zigzag = (n: number, amp: number, base = 100) => Array.from({ length: n }, (_, i) => (i % 2 ? base * (1 + amp) : base))

describe('classifyRegime', () => {
  it('flat prices and flat OI: ranging', () => {
    const r = classifyRegime('BTC', hours(Array(745).fill(100)))
    // no move at all: efficiency 0, realized vol 0, and 0 ranks 50 among a history of zeros
    expect(r).toMatchObject({ regime: 'ranging', efficiencyRatio: 0, netMove: 0, realizedVol: 0, volPercentile: 50, oiChange: 0, reason: null })
  })

  it('a steady climb is trending_up, a steady fall trending_down', () => {
    // 30 days of zigzag ending at 100, then 24 hours of +0.2 % each: net = 24 * ln(1.002) = 4.8 %, all up -> ER = 1
    const up = [...zigzag(721, 0.005), ...Array.from({ length: 24 }, (_, i) => 100 * 1.002 ** (i + 1))]
    const r = classifyRegime('ETH', hours(up))
    expect(r.regime).toBe('trending_up')
    expect(r.efficiencyRatio).toBeCloseTo(1, 12)
    expect(r.netMove).toBeCloseTo(24 * Math.log(1.002), 12)
    const down = [...zigzag(721, 0.005), ...Array.from({ length: 24 }, (_, i) => 100 * 0.998 ** (i + 1))]
    expect(classifyRegime('ETH', hours(down)).regime).toBe('trending_down')
  })

  it('a tiny consistent drift below 1 % is not a trend', () => {
    // +0.01 %/h for 24 h = 0.24 %: ER 1 but under the 1 % minimum move
    const drift = [...zigzag(721, 0.005), ...Array.from({ length: 24 }, (_, i) => 100 * 1.0001 ** (i + 1))]
    expect(classifyRegime('BTC', hours(drift)).regime).not.toMatch(/trending/)
  })

  it('choppy swings far above the month: high_volatility', () => {
    // history moves +-0.2 %, last 24 h +-2 % with no net move: vol percentile 100, ER 0
    const r = classifyRegime('SOL', hours([...zigzag(721, 0.002), ...zigzag(25, 0.02).slice(1)]))
    expect(r.volPercentile).toBe(100)
    expect(r.efficiencyRatio).toBeLessThan(0.05)
    expect(r.regime).toBe('high_volatility')
  })

  it('compressed volatility with OI building: squeeze; without the OI build-up: ranging', () => {
    // history moves +-1 %, last 24 h +-0.1 %: vol percentile 0. OI +5 % over the last 24 h -> ln(1.05) >= 3 %
    // (721 history closes end at 100 and the window continues the zigzag; OI is 1000 up to hour 720)
    const closes = [...zigzag(721, 0.01), ...zigzag(25, 0.001).slice(1)]
    const building = classifyRegime('DOGE', hours(closes, (i) => (i <= 720 ? 1000 : 1000 * 1.05 ** ((i - 720) / 24))))
    expect(building.volPercentile).toBe(0)
    expect(building.oiChange).toBeCloseTo(Math.log(1.05), 9)
    expect(building.regime).toBe('squeeze')
    expect(classifyRegime('DOGE', hours(closes)).regime).toBe('ranging')
  })

  it('too few hours: no regime, with a reason', () => {
    const r = classifyRegime('BTC', hours(Array(10).fill(100)))
    expect(r.regime).toBeNull()
    expect(r.reason).toMatch(/insufficient history: 10 of 25/)
  })

  it('short history: trend still classified, volatility regimes not assessed', () => {
    const r = classifyRegime('BTC', hours(Array.from({ length: 40 }, (_, i) => 100 * 1.002 ** i)))
    expect(r.regime).toBe('trending_up')
    expect(r.volPercentile).toBeNull()
    expect(r.reason).toMatch(/volatility regimes not assessed: insufficient history/)
  })

  it('missing OI is forward-filled, and null OI leaves oiChange null', () => {
    const r = classifyRegime('BTC', hours(Array(100).fill(100), (i) => (i % 3 ? null : 1000)))
    expect(r.oiChange).toBe(0)
    expect(classifyRegime('BTC', hours(Array(100).fill(100), () => null)).oiChange).toBeNull()
  })

  it('properties: a known regime, ER in [0, 1], percentile in [0, 100]', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: -0.05, max: 0.05, noNaN: true }), { minLength: 25, maxLength: 400 }), (rets) => {
        let p = 100
        const r = classifyRegime('X', hours(rets.map((x) => (p *= Math.exp(x)))))
        expect(REGIMES).toContain(r.regime)
        expect(r.efficiencyRatio!).toBeGreaterThanOrEqual(0)
        expect(r.efficiencyRatio!).toBeLessThanOrEqual(1 + 1e-12)
        if (r.volPercentile != null) {
          expect(r.volPercentile).toBeGreaterThanOrEqual(0)
          expect(r.volPercentile).toBeLessThanOrEqual(100)
        }
      }),
    )
  })
})
