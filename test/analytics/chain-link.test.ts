import { describe, expect, it } from 'vitest'
import { chainLink, type VenueValues } from '../../src/analytics/chain-link.js'

const f = (rate8h: number, oiUsd: number) => ({ rate8h, oiUsd })

describe('chainLink', () => {
  it('OI: each step is the ratio over the venues present at both ends; a venue leaving or joining moves nothing', () => {
    const b: VenueValues[] = [
      { oi: { binance: 100, okx: 50 }, funding: {} },
      { oi: { binance: 110, okx: 50 }, funding: {} }, // +10 on binance: 150 → 160
      { oi: { okx: 55 }, funding: {} }, // binance gone; okx +10 %: 160 · 55/50 = 176
      { oi: { binance: 120, okx: 55 }, funding: {} }, // binance back: no step over it, okx flat -> 176
      { oi: { binance: 132, okx: 55 }, funding: {} }, // binance +12 of 175: 176 · 187/175
      { oi: {}, funding: {} }, // nothing: carried
    ]
    const l = chainLink(b)
    expect(l.map((x) => x.oi)).toEqual([150, 160, 176, 176, expect.closeTo((176 * 187) / 175, 9), expect.closeTo((176 * 187) / 175, 9)])
    expect(l.map((x) => x.oiExchanges)).toEqual([['binance', 'okx'], ['binance', 'okx'], ['okx'], ['okx'], ['binance', 'okx'], []])
  })

  it('funding: F_t = F_{t−1} + f_S(t) − f_S(t−1) with f_S the OI-weighted mean over the venues at both ends', () => {
    const b: VenueValues[] = [
      { oi: {}, funding: { binance: f(0, 300), okx: f(2e-4, 100) } }, // 0.5e-4
      { oi: {}, funding: { okx: f(2e-4, 100) } }, // binance leaves: over {okx} nothing changed
      { oi: {}, funding: { okx: f(3e-4, 100), dydx: f(9e-4, 10) } }, // okx +1e-4; dydx joins: not a step
    ]
    const l = chainLink(b)
    expect(l[0]!.funding8h).toBeCloseTo((2e-4 * 100) / 400, 15)
    expect(l[1]!.funding8h).toBeCloseTo(0.5e-4, 15)
    expect(l[2]!.funding8h).toBeCloseTo(1.5e-4, 15)
    expect(l.map((x) => x.fundingExchanges)).toEqual([['binance', 'okx'], ['okx'], ['okx']])
  })

  it('with the same venues throughout, the chained change is the plain change of the sum', () => {
    const b: VenueValues[] = [10, 12, 9, 15].map((x, i) => ({ oi: { bybit: x, hyperliquid: 2 * x + i }, funding: {} }))
    const l = chainLink(b)
    expect(l.at(-1)!.oi! / l[0]!.oi!).toBeCloseTo((15 + 33) / (10 + 20), 12)
  })
})
