// The backtest's statistics on constructed cases whose answers are known: which hours have a signal's full history
// and which events are left out, returns net of the round-trip fee, and intervals that allow for overlapping events
// (by hand, and by their coverage of a known mean on simulated random walks).
import { describe, expect, it } from 'vitest'
import { backtestSignal, effectiveSampleSize, type SignalHour } from '../../src/analytics/backtest.js'

const H = 3_600_000
const Z = 1.959963984540054
const ev = (ts: number, direction: SignalHour['direction'] = 'bullish'): SignalHour => ({ ts, active: true, direction })
const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length
const sd = (xs: number[]) => {
  const m = mean(xs)
  return Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1))
}
const FULL = { hours: 0, dataFrom: 0 }

/** a seeded generator (Park–Miller), so every run draws the same walks */
function rng(seed: number) {
  let s = seed
  return () => (s = (s * 48271) % 2147483647) / 2147483647
}

describe('full history', () => {
  // 48 window hours; the signal reads 10 h before an hour and the stored hours start 4 h before the window
  const from = 100 * H
  const to = from + 48 * H
  const closes = new Map(Array.from({ length: 80 }, (_, i) => [from - 4 * H + i * H, 100 + (i % 5)] as [number, number]))
  const events = [ev(from + H), ev(from + 7 * H), ev(from + 20 * H, 'bearish')]
  const row = backtestSignal('x', events, closes, { from, to }, { history: { hours: 10, dataFrom: from - 4 * H }, feeRoundTrip: 0 })

  it('the first hour with 10 h stored before it is from + 6 h: 42 of the 48 hours; the event before it is left out', () => {
    expect(row.historyHours).toBe(10)
    expect(row.fullHistoryFrom).toBe(from + 6 * H)
    expect(row.fullHistoryShare).toBe(42 / 48)
    expect(row.events).toBe(3)
    expect(row.shortHistoryEvents).toBe(1)
    const h1 = row.horizons[0]!
    expect(h1.n).toBe(2)
    const ret = (ts: number) => closes.get(ts + H)! / closes.get(ts)! - 1
    expect(h1.meanReturn).toBeCloseTo(mean([ret(from + 7 * H), -ret(from + 20 * H)]), 14)
    // the baseline: the hours from + 6 h .. to − 1 h, not the whole window
    const base = Array.from({ length: 42 }, (_, i) => ret(from + 6 * H + i * H))
    expect(h1.baselineMeanReturn).toBeCloseTo(0 * mean(base), 14) // one bullish, one bearish: (1 − 2 · ½) · mean
    expect(h1.baselineHitRate).toBeCloseTo(0.5 * (base.filter((r) => r > 0).length / 42) + 0.5 * (base.filter((r) => r < 0).length / 42), 14)
  })

  it('no hour of the window with the history: nothing tested, every event left out', () => {
    const none = backtestSignal('x', events, closes, { from, to }, { history: { hours: 60, dataFrom: from - 4 * H }, feeRoundTrip: 0 })
    expect(none).toMatchObject({ fullHistoryFrom: null, fullHistoryShare: 0, events: 3, shortHistoryEvents: 3 })
    for (const h of none.horizons) expect(h).toMatchObject({ n: 0, effectiveN: null, meanReturn: null, hitRate: null, baselineMeanReturn: null })
    const noData = backtestSignal('x', events, closes, { from, to }, { history: { hours: 1, dataFrom: null }, feeRoundTrip: 0 })
    expect(noData).toMatchObject({ fullHistoryFrom: null, fullHistoryShare: 0, shortHistoryEvents: 3 })
  })
})

describe('returns net of the round-trip taker fee', () => {
  // closes 100, 102, 101, 99, 99.5: 1 h returns +2 %, −0.98 %, −1.98 %, +0.505 %
  const closes = new Map([100, 102, 101, 99, 99.5].map((c, i) => [i * H, c] as [number, number]))
  const fee = 0.0011 // 2 × 0.055 %, Bybit's base-tier taker fee (docs/methodology.md#funding-arbitrage, fee table)

  it('a trade per event pays the fee both ways: net = signed return − fee; a hit is a net gain; the baseline pays it too', () => {
    const events = [ev(0), ev(H, 'bearish'), ev(3 * H)]
    const row = backtestSignal('x', events, closes, { from: 0, to: 4 * H }, { history: FULL, feeRoundTrip: fee })
    const h1 = row.horizons[0]!
    const gross = [102 / 100 - 1, -(101 / 102 - 1), 99.5 / 99 - 1]
    expect(h1.grossMeanReturn).toBeCloseTo(mean(gross), 14)
    expect(h1.meanReturn).toBeCloseTo(mean(gross) - fee, 14)
    // +2 % − 0.11 %, +0.98 % − 0.11 %, +0.505 % − 0.11 %: all three gain after the fee
    expect(h1.hitRate).toBe(1)
    const rets = [102 / 100, 101 / 102, 99 / 101, 99.5 / 99].map((x) => x - 1)
    const b = 1 / 3
    expect(h1.baselineMeanReturn).toBeCloseTo((1 - 2 * b) * mean(rets) - fee, 14)
    // up beyond the fee: +2 %, +0.505 %; down beyond it: −0.98 %, −1.98 %
    expect(h1.baselineHitRate).toBeCloseTo((1 - b) * (2 / 4) + b * (2 / 4), 14)
  })

  it('a return smaller than the fee is no hit', () => {
    const small = new Map([[0, 100], [H, 100.05]])
    const row = backtestSignal('x', [ev(0)], small, { from: 0, to: H }, { history: FULL, feeRoundTrip: fee })
    expect(row.horizons[0]!.hitRate).toBe(0)
    expect(row.horizons[0]!.meanReturn).toBeCloseTo(0.0005 - fee, 14)
  })

  it('a signal without a direction is no trade: its mean is the raw return, no fee', () => {
    const row = backtestSignal('r', [{ ts: 0, active: true, direction: 'none' }], closes, { from: 0, to: 4 * H }, { history: FULL, feeRoundTrip: fee })
    expect(row.horizons[0]!.meanReturn).toBeCloseTo(0.02, 14)
    expect(row.horizons[0]!.baselineMeanReturn).toBeCloseTo(mean([102 / 100, 101 / 102, 99 / 101, 99.5 / 99].map((x) => x - 1)), 14)
  })
})

describe('intervals that allow for overlapping events', () => {
  // a zig-zag walk, 60 hours
  const closes = new Map(Array.from({ length: 60 }, (_, i) => [i * H, 100 * (1 + 0.01 * Math.sin(i * 1.7) + 0.002 * i)] as [number, number]))
  const fwd = (ts: number, h: number) => closes.get(ts + h * H)! / closes.get(ts)! - 1
  const run = (events: SignalHour[]) => backtestSignal('x', events, closes, { from: 0, to: 30 * H }, { history: FULL, feeRoundTrip: 0 })

  it('events farther apart than the horizon are independent: effective n = n, mean ± 1.96 s / √n', () => {
    const times = [0, 4, 8, 12, 16].map((x) => x * H)
    const h4 = run(times.map((t) => ev(t))).horizons[1]!
    const xs = times.map((t) => fwd(t, 4))
    expect(h4.effectiveN).toBe(5)
    expect(h4.meanReturnCi![0]).toBeCloseTo(mean(xs) - (Z * sd(xs)) / Math.sqrt(5), 14)
    expect(h4.meanReturnCi![1]).toBeCloseTo(mean(xs) + (Z * sd(xs)) / Math.sqrt(5), 14)
  })

  it('three events an hour apart at 4 h share 3 and 2 of their 4 hours: Σρ = 3 + 2 (¾ + ¾ + ½) = 7, effective n = 9 / 7', () => {
    const times = [0, 1, 2].map((x) => x * H)
    const h4 = run(times.map((t) => ev(t))).horizons[1]!
    expect(h4.effectiveN).toBeCloseTo(9 / 7, 14)
    const xs = times.map((t) => fwd(t, 4))
    expect(h4.meanReturnCi![1] - h4.meanReturn!).toBeCloseTo((Z * sd(xs)) / Math.sqrt(9 / 7), 14)
    // Wilson at p̂ and the effective n
    const p = h4.hitRate!
    const n = 9 / 7
    const centre = (p + (Z * Z) / (2 * n)) / (1 + (Z * Z) / n)
    const half = (Z * Math.sqrt((p * (1 - p)) / n + (Z * Z) / (4 * n * n))) / (1 + (Z * Z) / n)
    expect(h4.hitRateCi![0]).toBeCloseTo(centre - half, 14)
    expect(h4.hitRateCi![1]).toBeCloseTo(centre + half, 14)
  })

  it('every event counted twice (fully overlapping): the effective n stays that of the single events, so the interval is not narrowed', () => {
    const times = [0, 5, 10, 15, 20, 25].map((x) => x * H)
    const once = run(times.map((t) => ev(t))).horizons[1]!
    const twice = backtestSignal('x', times.flatMap((t) => [ev(t), ev(t)]), closes, { from: 0, to: 30 * H }, { history: FULL, feeRoundTrip: 0 }).horizons[1]!
    expect(twice.n).toBe(12)
    expect(twice.effectiveN).toBeCloseTo(once.effectiveN!, 12)
    const xs = times.flatMap((t) => [fwd(t, 4), fwd(t, 4)])
    const width = (ci: [number, number]) => ci[1] - ci[0]
    // what an interval assuming 12 independent events would be, and the one allowing for the duplicates
    const independent = (2 * Z * sd(xs)) / Math.sqrt(12)
    expect(width(twice.meanReturnCi!)).toBeCloseTo((2 * Z * sd(xs)) / Math.sqrt(6), 14)
    expect(width(twice.meanReturnCi!)).toBeGreaterThan(independent * 1.4)
  })

  it('the effective n of times t: n² / Σ_ij max(0, 1 − |t_i − t_j| / h), whatever their order', () => {
    const t = [7, 0, 3, 3, 30].map((x) => x * H)
    let s = 0
    for (const a of t) for (const b of t) s += Math.max(0, 1 - Math.abs(a - b) / (6 * H))
    expect(effectiveSampleSize(t, 6 * H)).toBeCloseTo(25 / s, 14)
    expect(effectiveSampleSize([], H)).toBeNull()
  })

  it('covers a known mean about 95 % of the time on random walks with overlapping 24 h events; the independence interval does not', () => {
    // hourly gross returns 1 + ε, ε uniform on ±1 % and independent: every forward return has mean exactly 0
    const r = rng(20260302)
    const hours = 2000
    let adjusted = 0
    let naive = 0
    const reps = 300
    for (let k = 0; k < reps; k++) {
      const walk = new Map<number, number>()
      let c = 100
      for (let i = 0; i <= hours + 24; i++) {
        walk.set(i * H, c)
        c *= 1 + (r() * 2 - 1) * 0.01
      }
      const events: SignalHour[] = []
      for (let i = 0; i < hours; i++) if (r() < 0.1) events.push(ev(i * H))
      const h24 = backtestSignal('x', events, walk, { from: 0, to: hours * H }, { history: FULL, feeRoundTrip: 0 }).horizons[2]!
      if (h24.meanReturnCi![0] <= 0 && 0 <= h24.meanReturnCi![1]) adjusted++
      const xs = events.map((e) => walk.get(e.ts + 24 * H)! / walk.get(e.ts)! - 1)
      const half = (Z * sd(xs)) / Math.sqrt(xs.length)
      if (Math.abs(mean(xs)) <= half) naive++
    }
    expect(adjusted / reps).toBeGreaterThan(0.91)
    expect(adjusted / reps).toBeLessThan(0.985)
    expect(naive / reps).toBeLessThan(0.85)
  })
})
