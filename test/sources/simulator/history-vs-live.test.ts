// History (1-minute aggregates) and live (individual trades, folded by the real aggregator) describe the same
// market: the same price path and the same trades per minute; thin minutes identical bar for bar; busy minutes the
// same volume, taker split and range in distribution.
import { beforeAll, describe, expect, it } from 'vitest'
import { MinuteAggregator } from '../../../src/ingest/aggregate/index.js'
import { marketKeyString, type MinuteBar } from '../../../src/domain/minute-bars.js'
import { MINUTE_MS } from '../../../src/domain/time.js'
import { MarketSimulator } from '../../../src/sources/simulator/index.js'

const START = Date.UTC(2025, 8, 15, 13, 0)
const MINUTES = 30
const COINS = ['BTC', 'DOT']

const hist = new Map<string, MinuteBar>()
const live = new Map<string, MinuteBar>()
const key = (b: MinuteBar) => `${marketKeyString(b)}@${b.ts}`

beforeAll(() => {
  // history from a minute before the live start: a live feed resumes where the stored history ends (its last close)
  const before: MinuteBar[] = []
  new MarketSimulator({ seed: 21, coins: COINS }).simulateRange(START - MINUTE_MS, START + MINUTES * MINUTE_MS, {
    emit: () => {},
    emitBar: (b) => void (b.ts < START ? before.push(b) : hist.set(key(b), b)),
  })
  const agg = new MinuteAggregator({ tradeSource: 'simulated' })
  for (const b of before) agg.setResumeCursor(b, b.ts, b.close)
  const sim = new MarketSimulator({ seed: 21, coins: COINS })
  sim.live(agg, { manual: true, fromTs: START })
  for (let t = START + 1000; t <= START + MINUTES * MINUTE_MS + 5_000; t += 1000) sim.pump(t)
  sim.stop()
  agg.advance(START + MINUTES * MINUTE_MS + 5_000)
  for (const b of agg.drainClosed()) live.set(key(b), b)
})

const mean = (x: number[]) => x.reduce((a, b) => a + b, 0) / x.length
const median = (x: number[]) => [...x].sort((a, b) => a - b)[x.length >> 1]!

/** two-sample Kolmogorov–Smirnov statistic */
function ks(a: number[], b: number[]): number {
  const x = [...a].sort((p, q) => p - q)
  const y = [...b].sort((p, q) => p - q)
  let i = 0
  let j = 0
  let d = 0
  while (i < x.length && j < y.length) {
    const v = Math.min(x[i]!, y[j]!)
    while (i < x.length && x[i]! <= v) i++
    while (j < y.length && y[j]! <= v) j++
    d = Math.max(d, Math.abs(i / x.length - j / y.length))
  }
  return d
}

describe('history vs live', () => {
  it('cover the same market-minutes with the same number of trades', () => {
    expect(hist.size).toBe(MINUTES * COINS.length * 8)
    expect([...live.keys()].sort()).toEqual([...hist.keys()].sort())
    for (const [k, h] of hist) expect(live.get(k)!.trades, k).toBe(h.trades)
    expect([...hist.values()].some((b) => b.trades === 0)).toBe(true) // quiet minutes included (dYdX DOT)
  })

  it('a thin minute (and a quiet one) is the same bar in both, volume at price included', () => {
    let n = 0
    for (const [k, h] of hist) {
      if (h.trades! > 16) continue
      n++
      expect(live.get(k), k).toEqual(h)
    }
    expect(n).toBeGreaterThan(30)
  })

  it('a busy minute follows the same path: closes a few half-spreads apart, ranges alike', () => {
    const busy = [...hist.entries()].filter(([, h]) => h.trades! > 16)
    expect(busy.length).toBeGreaterThan(200)
    const closeBp: number[] = []
    const rangeRatio: number[] = []
    for (const [k, h] of busy) {
      const l = live.get(k)!
      closeBp.push(Math.abs(h.close / l.close - 1) * 1e4)
      if (l.high > l.low) rangeRatio.push(Math.log((h.high - h.low) / (l.high - l.low)))
    }
    expect(Math.max(...closeBp)).toBeLessThan(30)
    expect(median(closeBp)).toBeLessThan(2)
    // the K-point path with its discrete-monitoring correction neither widens nor narrows ranges on average
    expect(Math.abs(mean(rangeRatio))).toBeLessThan(0.15)
    const btc = busy.filter(([k]) => k.startsWith('binance:BTC:perp')).map(([k, h]) => Math.abs(h.close / live.get(k)!.close - 1) * 1e4)
    expect(Math.max(...btc)).toBeLessThan(1)
  })

  it('busy minutes have the same per-minute volume and taker split, in distribution and minute by minute', () => {
    const busy = [...hist.entries()].filter(([, h]) => h.trades! > 16)
    const logRatio = busy.map(([k, h]) => Math.log(h.volume / live.get(k)!.volume))
    expect(Math.abs(mean(logRatio))).toBeLessThan(0.05) // no bias
    expect(median(logRatio.map(Math.abs))).toBeLessThan(0.2)
    const buyShare = (b: MinuteBar) => b.buyVolume! / b.volume
    const dShare = busy.map(([k, h]) => buyShare(h) - buyShare(live.get(k)!))
    expect(Math.abs(mean(dShare))).toBeLessThan(0.02)
    // pooled over markets, each minute's volume relative to its market's mean: one distribution (KS, 1 % level)
    const rel = (m: Map<string, MinuteBar>, keys: string[]) => {
      const byMarket = new Map<string, number>()
      for (const k of keys) {
        const mk = k.split('@')[0]!
        byMarket.set(mk, (byMarket.get(mk) ?? 0) + m.get(k)!.volume / MINUTES)
      }
      return keys.map((k) => m.get(k)!.volume / byMarket.get(k.split('@')[0]!)!)
    }
    const keys = busy.map(([k]) => k)
    const a = rel(hist, keys)
    const b = rel(live, keys)
    expect(ks(a, b)).toBeLessThan(1.63 * Math.sqrt(2 / keys.length))
    // volume at price sums to the bar's volume on both sides
    for (const k of keys.slice(0, 50)) {
      for (const m of [hist, live]) {
        let v = 0
        for (const [, [buy, sell]] of m.get(k)!.vap) v += buy + sell
        expect(v / m.get(k)!.volume).toBeCloseTo(1, 9)
      }
    }
  })
})
