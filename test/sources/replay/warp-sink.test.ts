// Every replayed event moves onto the warped time line: its pass, its session's shift, unique trade ids per pass.
import { describe, expect, it } from 'vitest'
import { ReplayClock } from '../../../src/sources/replay/clock.js'
import { TimeWarp } from '../../../src/sources/replay/warp.js'
import { WarpingSink } from '../../../src/sources/replay/warp-sink.js'
import type { MarketEvent, TickerEvent, TradeEvent } from '../../../src/domain/events.js'

const T = Date.UTC(2025, 4, 1, 10, 0, 0)
const trade = (ts: number, id = 'a1'): TradeEvent => ({ type: 'trade', exchange: 'bybit', coin: 'BTC', marketType: 'perp', ts, id, price: 100, size: 1, side: 'buy' })

function setup() {
  let wall = Date.UTC(2026, 0, 1, 0, 0, 0)
  const clock = new ReplayClock({ warp: new TimeWarp([T, T + 30_000], 60_000), wall: () => wall, speed: 1, loop: true })
  const out: MarketEvent[] = []
  const sink = new WarpingSink({ emit: (e) => void out.push(e) }, clock)
  return { clock, out, sink, setWall: (ms: number) => void (wall = ms) }
}

describe('WarpingSink', () => {
  it('first pass: the constant shift; ids as recorded', () => {
    const { clock, out, sink, setWall } = setup()
    setWall(clock.warped(T + 10_000, 0))
    sink.emit(trade(T + 9_000))
    expect(out[0]).toMatchObject({ ts: T + 9_000 + clock.shift, id: 'a1' })
  })

  it('a later pass: one more period, the trade id made unique for the pass', () => {
    const { clock, out, sink, setWall } = setup()
    setWall(clock.warped(T + 10_000, 2))
    sink.emit(trade(T + 9_000))
    expect(out[0]).toMatchObject({ ts: T + 9_000 + clock.shift + 2 * clock.period, id: 'a1~2' })
  })

  it('an answer recorded near the end of the previous pass stays in that pass (never stamped in the future)', () => {
    const { clock, out, sink, setWall } = setup()
    setWall(clock.warped(T + 1_000, 1)) // early in pass 2
    sink.emit(trade(T + 29_000, 'late')) // a payload time from the end of the recording
    expect(out[0]).toMatchObject({ ts: T + 29_000 + clock.shift, id: 'late' })
  })

  it('the next funding time keeps its distance from the event', () => {
    const { clock, out, sink, setWall } = setup()
    setWall(clock.warped(T + 10_000, 1))
    const t: TickerEvent = { type: 'ticker', exchange: 'binance', coin: 'BTC', marketType: 'perp', ts: T + 5_000, markPrice: 1, indexPrice: 1, lastPrice: null, fundingRate: 0.0001, fundingIntervalHours: 8, nextFundingTime: T + 5_000 + 7_200_000 }
    sink.emit(t)
    const w = out[0] as TickerEvent
    expect(w.nextFundingTime! - w.ts).toBe(7_200_000)
    expect(w.ts).toBe(T + 5_000 + clock.shift + clock.period)
  })
})
