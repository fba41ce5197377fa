import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { hvnZones, MAX_BINS, VALUE_AREA_SHARE, volumeProfile } from '../../src/analytics/volume-profile.js'
import { vapAdd } from '../../src/domain/minute-vap.js'
import { vapLevel, vapLevelHigh, vapLevelLow, vapLevelMid, type Vap } from '../../src/domain/volume-at-price.js'

function vapOf(trades: [price: number, size: number, side?: 'buy' | 'sell'][]): Vap {
  const vap: Vap = new Map()
  for (const [p, s, side] of trades) vapAdd(vap, p, s, side ?? 'buy')
  return vap
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0)

describe('volumeProfile', () => {
  it('empty input: no levels, no POC, no value area', () => {
    expect(volumeProfile(new Map(), 50)).toEqual({ levels: [], poc: null, valueArea: null, totalVolume: 0 })
    // a level with zero volume is no volume
    expect(volumeProfile(new Map([[vapLevel(100), [0, 0]]]), 50).poc).toBeNull()
  })

  it('a single traded price: one bin (never finer than the 1-bp grid), POC and value area are that bin', () => {
    const p = volumeProfile(vapOf([[100, 5, 'buy'], [100, 3, 'sell']]), 50)
    const k = vapLevel(100)
    expect(p.levels).toHaveLength(1)
    expect(p.levels[0]).toMatchObject({ volume: 8, buyVolume: 5, sellVolume: 3, node: 'HVN' })
    expect(p.levels[0]!.priceLow).toBeCloseTo(vapLevelLow(k), 9)
    expect(p.levels[0]!.priceHigh).toBeCloseTo(vapLevelHigh(k), 9)
    // POC price is the bin mid: within half a basis point of 100
    expect(Math.abs(p.poc!.price - 100) / 100).toBeLessThan(1e-4)
    expect(p.poc!.volume).toBe(8)
    expect(p.valueArea).toEqual({ low: p.levels[0]!.priceLow, high: p.levels[0]!.priceHigh, volumePct: 100 })
  })

  // Prices 100..109 over 10 bins: range [low(100), high(109)] ~ [100, 109.01], width ~0.901, so price 100+i lands in bin i.
  //   volume per bin: [1, 8, 3, 1, 1, 1, 2, 6, 2, 1]  total 26, 70 % of it = 18.2, mean bin = 2.6
  //   POC = bin 1 (8). Value area from bin 1: bin0 (1) vs bin2 (3) -> bin2, sum 11;
  //   bin0 (1) vs bin3 (1): tie -> both, sum 13; only above left: bin4 14, bin5 15, bin6 17, bin7 23 >= 18.2.
  //   => value area bins 0..7, 23 / 26 = 88.46 %. HVN (>= 2.6): bins 1, 2, 7 -> zones [1..2] and [7].
  const twoPeaks = [1, 8, 3, 1, 1, 1, 2, 6, 2, 1]
  const twoPeakVap = () => vapOf(twoPeaks.map((v, i) => [100 + i, v] as [number, number]))

  it('two peaks: POC at the larger peak, value area by the larger-neighbour rule with both on a tie', () => {
    const p = volumeProfile(twoPeakVap(), 10)
    expect(p.levels.map((l) => l.volume)).toEqual(twoPeaks)
    expect(p.poc!.volume).toBe(8)
    expect(p.poc!.price).toBeCloseTo((p.levels[1]!.priceLow + p.levels[1]!.priceHigh) / 2, 9)
    expect(p.valueArea!.low).toBe(p.levels[0]!.priceLow)
    expect(p.valueArea!.high).toBe(p.levels[7]!.priceHigh)
    expect(p.valueArea!.volumePct).toBeCloseTo((100 * 23) / 26, 9)
    expect(p.levels.map((l) => l.node)).toEqual(['LVN', 'HVN', 'HVN', 'LVN', 'LVN', 'LVN', 'LVN', 'HVN', 'LVN', 'LVN'])
    const zones = hvnZones(p.levels)
    expect(zones).toEqual([
      { low: p.levels[1]!.priceLow, high: p.levels[2]!.priceHigh, volume: 11 },
      { low: p.levels[7]!.priceLow, high: p.levels[7]!.priceHigh, volume: 6 },
    ])
  })

  it('POC tie goes to the bin nearest the volume-weighted mean price', () => {
    // 5 at 100, 5 at 104, 3 at 109: VWAP = (500 + 520 + 327) / 13 = 103.6, nearer bin 4 (104) than bin 0 (100)
    const p = volumeProfile(vapOf([[100, 5], [104, 5], [109, 3]]), 10)
    expect(p.poc!.volume).toBe(5)
    expect(p.poc!.price).toBeGreaterThan(p.levels[4]!.priceLow)
    expect(p.poc!.price).toBeLessThan(p.levels[4]!.priceHigh)
  })

  it('puts each level whole into the bin holding its mid price', () => {
    // levels at 100 and 100.5: 2 bins over ~[100, 100.51]; 100.5 sits in the upper bin, nothing is spread
    const p = volumeProfile(vapOf([[100, 4], [100.5, 6, 'sell']]), 2)
    expect(p.levels.map((l) => [l.buyVolume, l.sellVolume])).toEqual([[4, 0], [0, 6]])
  })

  it('rejects bins outside 1..200 or not an integer', () => {
    const vap = vapOf([[100, 1]])
    for (const b of [0, -1, 201, 1.5, NaN]) expect(() => volumeProfile(vap, b)).toThrow(RangeError)
    expect(() => volumeProfile(vap, MAX_BINS)).not.toThrow()
  })

  // speed is measured in bench/, not here
  it('bins 50 000 levels (30 days of a volatile coin) into exactly 200 levels', () => {
    const vap: Vap = new Map()
    const base = vapLevel(60_000)
    for (let i = 0; i < 50_000; i++) vap.set(base + i, [1 + (i % 7), 1 + (i % 3)])
    const p = volumeProfile(vap, 200)
    expect(p.levels).toHaveLength(200)
    expect(p.levels.reduce((s, l) => s + l.volume, 0)).toBeCloseTo(p.totalVolume, 6)
  })
})

describe('volumeProfile properties', () => {
  const arbVap = fc
    .tuple(
      fc.integer({ min: 40_000, max: 120_000 }), // base level (prices ~ 55 .. 160 000)
      fc.array(fc.tuple(fc.integer({ min: 0, max: 3000 }), fc.double({ min: 0, max: 1e6, noNaN: true }), fc.double({ min: 0, max: 1e6, noNaN: true })), {
        minLength: 1,
        maxLength: 300,
      }),
    )
    .map(([base, cells]) => {
      const vap: Vap = new Map()
      for (const [off, b, s] of cells) vap.set(base + off, [b, s])
      return vap
    })

  it('conserves volume, respects the bin bound, value area >= 70 % and contains the POC', () => {
    fc.assert(
      fc.property(arbVap, fc.integer({ min: 1, max: 200 }), (vap, bins) => {
        const cells = [...vap].filter(([, [b, s]]) => b + s > 0)
        const total = sum(cells.map(([, [b, s]]) => b + s))
        const p = volumeProfile(vap, bins)
        if (total === 0) return p.poc === null && p.levels.length === 0
        const keys = cells.map(([k]) => k)
        const min = Math.min(...keys)
        const max = Math.max(...keys)
        expect(p.levels.length).toBeLessThanOrEqual(Math.min(bins, max - min + 1))
        expect(sum(p.levels.map((l) => l.volume))).toBeCloseTo(total, 6)
        expect(Math.abs(sum(p.levels.map((l) => l.volume)) - total)).toBeLessThanOrEqual(1e-9 * total)
        expect(Math.abs(sum(p.levels.map((l) => l.buyVolume)) - sum(cells.map(([, [b]]) => b)))).toBeLessThanOrEqual(1e-9 * total + 1e-9)
        // contiguous ascending bins over exactly [low(min), high(max)]
        expect(p.levels[0]!.priceLow).toBeCloseTo(vapLevelLow(min), 6)
        expect(p.levels[p.levels.length - 1]!.priceHigh).toBe(vapLevelHigh(max))
        p.levels.forEach((l, i) => {
          expect(l.priceHigh).toBeGreaterThan(l.priceLow)
          if (i > 0) expect(l.priceLow).toBeCloseTo(p.levels[i - 1]!.priceHigh, 6)
          expect(l.node).toBe(l.volume >= (total / p.levels.length) * (1 - 1e-9) ? 'HVN' : 'LVN')
        })
        // every traded level's mid falls in a bin that holds volume
        for (const k of keys) {
          const mid = vapLevelMid(k)
          const bin = p.levels.find((l, i) => mid >= l.priceLow && (mid < l.priceHigh || i === p.levels.length - 1))!
          expect(bin.volume).toBeGreaterThan(0)
        }
        const maxVol = Math.max(...p.levels.map((l) => l.volume))
        expect(p.poc!.volume).toBe(maxVol)
        expect(p.valueArea!.volumePct).toBeGreaterThanOrEqual(100 * VALUE_AREA_SHARE - 1e-6)
        expect(p.valueArea!.volumePct).toBeLessThanOrEqual(100 + 1e-9)
        expect(p.poc!.price).toBeGreaterThanOrEqual(p.valueArea!.low)
        expect(p.poc!.price).toBeLessThanOrEqual(p.valueArea!.high)
        // HVN zones are disjoint, ascending, and hold exactly the HVN volume
        const zones = hvnZones(p.levels)
        expect(zones.length).toBeGreaterThanOrEqual(1)
        zones.forEach((z, i) => i > 0 && expect(z.low).toBeGreaterThan(zones[i - 1]!.high))
        expect(sum(zones.map((z) => z.volume))).toBeCloseTo(sum(p.levels.filter((l) => l.node === 'HVN').map((l) => l.volume)), 6)
        return true
      }),
      { numRuns: 200 },
    )
  })
})
