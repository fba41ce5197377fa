// The simulator's position book (src/sources/simulator/position-book.ts) on constructed hours: what it liquidates is
// worked out here by hand from the documented leverage mix (docs/methodology.md#leverage-mix: 2x 36.3 %, 5x 48.5 %,
// 10x 8.7 %, 20x 4.3 %, 50x 2.2 %) at one 0.5 % maintenance tier and Binance's isolated liquidation price
// entry · (1 ∓ 1/L) / (1 ∓ m); never from the code under test.
import { describe, expect, it } from 'vitest'
import { PositionBook, type HourFacts, type SideClasses, type Swept } from '../../../src/sources/simulator/position-book.js'

const MIX: [number, number][] = [[2, 0.363], [5, 0.485], [10, 0.087], [20, 0.043], [50, 0.022]]
const M = 0.005
// longs swept highest first, shorts lowest first: both from the highest leverage down
const LONGS: SideClasses = { factors: [...MIX].reverse().map(([l]) => (1 - 1 / l) / (1 - M)), weights: [...MIX].reverse().map(([, w]) => w) }
const SHORTS: SideClasses = { factors: [...MIX].reverse().map(([l]) => (1 + 1 / l) / (1 + M)), weights: [...MIX].reverse().map(([, w]) => w) }

const hour = (f: Partial<HourFacts>): HourFacts => ({ price: 100, open: 0, close: 0, longShare: 0.5, low: 100, high: 100, ...f })
const flat = (p: number) => Array.from({ length: 61 }, () => p)
const swept = (): { long: Swept; short: Swept } => ({ long: { coins: 0, groups: 0 }, short: { coins: 0, groups: 0 } })

describe('PositionBook', () => {
  it("liquidates each class where the mid crosses its price, what is left after the closes, the minute it happens", () => {
    const book = new PositionBook(LONGS, SHORTS, 168, 0)
    // hour 0 opens 100 coins at 100, 60 % long: 60 long coins, 40 short
    book.endHour(hour({ open: 100, longShare: 0.6 }))
    // hour 1: the mid falls to 98.4 at minute 10: through the 50x longs (98.492...) only
    const mids = flat(100)
    for (let i = 11; i <= 60; i++) mids[i] = 98.4
    let s = swept()
    book.minute(9, mids, s.long, s.short)
    expect(s.long.coins).toBe(0)
    s = swept()
    book.minute(10, mids, s.long, s.short)
    expect(s.long.coins).toBeCloseTo(60 * 0.022, 12)
    expect(s.long.groups).toBe(1)
    expect(s.short.coins).toBe(0)
    // a later minute of the same hour at the same price liquidates nothing more
    s = swept()
    book.minute(30, mids, s.long, s.short)
    expect(s.long.coins).toBe(0)
    // the hour ends with open interest down 50 %: half of every position is closed
    book.endHour(hour({ low: 98.4, high: 100, close: 0.5 }))
    // hour 2: a rise to 102.6 crosses the 50x shorts (101.492...), not the 20x (104.477...)
    const up = flat(100)
    up[1] = 102.6
    s = swept()
    book.minute(0, up, s.long, s.short)
    expect(s.short.coins).toBeCloseTo(40 * 0.022 * 0.5, 12)
    // minute 1 falls to 95: the 20x longs (95.477...) go, half of them closed before
    up[2] = 95
    s = swept()
    book.minute(1, up, s.long, s.short)
    expect(s.long.coins).toBeCloseTo(60 * 0.043 * 0.5, 12)
    expect(s.long.groups).toBe(1)
    expect((100 * (1 - 1 / 20)) / (1 - M)).toBeGreaterThan(95)
    expect((100 * (1 - 1 / 10)) / (1 - M)).toBeLessThan(95)
  })

  it('a batch is liquidated for `horizon` hours after the hour that opened it, then leaves the book', () => {
    const book = new PositionBook(LONGS, SHORTS, 3, 0)
    book.endHour(hour({ open: 10, longShare: 1 }))
    book.endHour(hour({}))
    book.endHour(hour({}))
    // hour 3 is the third hour after the batch's: still there
    let s = swept()
    book.minute(0, [100, 98, ...flat(98).slice(2)], s.long, s.short)
    expect(s.long.coins).toBeCloseTo(10 * 0.022, 12)
    const late = new PositionBook(LONGS, SHORTS, 3, 0)
    for (let h = 0; h < 4; h++) late.endHour(hour(h === 0 ? { open: 10, longShare: 1 } : {}))
    // hour 4: the batch of hour 0 is gone
    s = swept()
    late.minute(0, [100, 98, ...flat(98).slice(2)], s.long, s.short)
    expect(s.long.coins).toBe(0)
  })

  it('a book built from a later start answers what one walked forward from an earlier start does', () => {
    const facts = Array.from({ length: 60 }, (_, h) =>
      hour({ price: 100 + 3 * Math.sin(h / 5), open: h % 3 === 0 ? 0 : 5 + (h % 7), close: h % 3 === 0 ? 0.05 : 0, longShare: 0.3 + 0.05 * (h % 9), low: 97 + 3 * Math.sin(h / 5) - 1.5, high: 97 + 3 * Math.sin(h / 5) + 4.5 }),
    )
    const mids = Array.from({ length: 61 }, (_, i) => 96 + 0.1 * i)
    const run = (start: number) => {
      const b = new PositionBook(LONGS, SHORTS, 24, start)
      for (let h = start; h < 60; h++) b.endHour(facts[h]!)
      const out: [number, number][] = []
      for (let i = 0; i < 60; i++) {
        const s = swept()
        b.minute(i, mids, s.long, s.short)
        out.push([s.long.coins, s.short.coins])
      }
      return out
    }
    const far = run(0)
    expect(run(60 - 24)).toEqual(far)
    expect(far.some(([l, s]) => l > 0 || s > 0)).toBe(true)
  })
})
