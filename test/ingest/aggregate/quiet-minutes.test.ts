// Quiet minutes: a live feed that had no trade in a minute gives a flat zero-volume bar at the previous close (as the
// venues' own 1m klines do); a minute nobody heard (a feed gap) gives none. Also: whole-minute bars from a history
// source (emitBar) close like traded minutes.
import { describe, expect, it } from 'vitest'
import { MinuteAggregator } from '../../../src/ingest/aggregate/index.js'
import { type MarketKey, type MinuteBar } from '../../../src/domain/minute-bars.js'
import { MINUTE_MS } from '../../../src/domain/time.js'
import type { BookSnapshotEvent, TickerEvent, TradeEvent } from '../../../src/domain/events.js'

const T0 = Date.UTC(2025, 0, 1, 12, 0)
const BTC: MarketKey = { exchange: 'binance', coin: 'BTC', marketType: 'perp' }
const ETH: MarketKey = { exchange: 'okx', coin: 'ETH', marketType: 'perp' }

let id = 0
const trade = (ts: number, price: number, size = 1, market: MarketKey = BTC): TradeEvent => ({ type: 'trade', ...market, ts, id: `t${id++}`, price, size, side: 'buy' })
const ticker = (ts: number, market: MarketKey = BTC): TickerEvent => ({
  type: 'ticker',
  ...market,
  ts,
  markPrice: 1,
  indexPrice: 1,
  lastPrice: 1,
  fundingRate: 0,
  fundingIntervalHours: 8,
  nextFundingTime: null,
})
const book = (ts: number, market: MarketKey = BTC): BookSnapshotEvent => ({ type: 'book', ...market, ts, bids: [{ price: 1, size: 1 }], asks: [{ price: 2, size: 1 }], bidEnd: null, askEnd: null })
/** the feed heard every second of [from, to) */
const heartbeat = (agg: MinuteAggregator, from: number, to: number, market: MarketKey = BTC) => {
  for (let t = from; t < to; t += 1000) agg.emit(t % 2000 ? ticker(t, market) : book(t, market))
}
const flat = (ts: number, price: number, market: MarketKey = BTC) => ({ ...market, ts, open: price, high: price, low: price, close: price, volume: 0, buyVolume: 0, sellVolume: 0, quoteVolume: 0, trades: 0, source: 'trades', noSplitMinutes: 0, klineMinutes: 0 })
const minutes = (bars: MinuteBar[], market: MarketKey = BTC) => bars.filter((b) => b.coin === market.coin).map((b) => (b.ts - T0) / MINUTE_MS)

describe('quiet minutes', () => {
  it('a live feed without a trade in a minute gives a flat zero-volume bar at the previous close', () => {
    const agg = new MinuteAggregator()
    agg.add(trade(T0 + 10_000, 100))
    agg.add(trade(T0 + 50_000, 101.5)) // minute 0 closes at 101.5
    heartbeat(agg, T0, T0 + 3 * MINUTE_MS + 10_000) // the feed keeps talking through minutes 1 and 2: no trades
    agg.add(trade(T0 + 3 * MINUTE_MS + 5_000, 99))
    agg.advance(T0 + 4 * MINUTE_MS + 3_000)
    const bars = agg.drainClosed()
    expect(minutes(bars)).toEqual([0, 1, 2, 3])
    const { vap: _1, ...m1 } = bars[1]!
    const { vap: _2, ...m2 } = bars[2]!
    expect(m1).toEqual(flat(T0 + MINUTE_MS, 101.5))
    expect(m2).toEqual(flat(T0 + 2 * MINUTE_MS, 101.5))
    expect(bars[1]!.vap.size).toBe(0)
    expect(bars[3]).toMatchObject({ open: 99, close: 99, trades: 1 })
    expect(agg.stats).toMatchObject({ closedBars: 4, flatBars: 2 })
  })

  it('a feed gap (nothing heard) stays a gap, and the first quiet minute after it is not made up either', () => {
    const agg = new MinuteAggregator()
    agg.add(trade(T0 + 30_000, 100))
    heartbeat(agg, T0, T0 + MINUTE_MS)
    // minutes 1 and 2: nothing at all (venue down); minute 3: the feed is back but nothing trades; minute 4 trades
    heartbeat(agg, T0 + 3 * MINUTE_MS, T0 + 5 * MINUTE_MS)
    agg.add(trade(T0 + 4 * MINUTE_MS + 1_000, 104))
    agg.advance(T0 + 6 * MINUTE_MS)
    const bars = agg.drainClosed()
    // minute 3 was heard but its previous close is from before the gap: no bar; minute 4 traded
    expect(minutes(bars)).toEqual([0, 4])
    expect(agg.stats.flatBars).toBe(0)
  })

  it('a minute heard only before the feed died (nothing after its end) gets no bar', () => {
    const agg = new MinuteAggregator()
    agg.add(trade(T0 + 30_000, 100))
    heartbeat(agg, T0, T0 + MINUTE_MS + 20_000) // dies 20 s into minute 1
    agg.advance(T0 + 10 * MINUTE_MS) // the clock moves on
    expect(minutes(agg.drainClosed())).toEqual([0])
    // and at shutdown the minute in progress is not made flat either
    const agg2 = new MinuteAggregator()
    agg2.add(trade(T0 + 30_000, 100))
    heartbeat(agg2, T0, T0 + 2 * MINUTE_MS + 20_000)
    const drained = agg2.drainAll()
    expect(minutes(drained)).toEqual([0, 1])
    expect(drained[1]!.trades).toBe(0)
  })

  it('needs a known previous close: none before the first trade; after a restart, the stored one', () => {
    const agg = new MinuteAggregator()
    heartbeat(agg, T0, T0 + 3 * MINUTE_MS)
    agg.advance(T0 + 3 * MINUTE_MS)
    expect(agg.drainClosed()).toEqual([])
    // a restarted pipeline: the store ends at minute 4 with close 250
    const resumed = new MinuteAggregator()
    resumed.setResumeCursor(BTC, T0 + 4 * MINUTE_MS, 250)
    heartbeat(resumed, T0 + 5 * MINUTE_MS, T0 + 7 * MINUTE_MS)
    resumed.advance(T0 + 7 * MINUTE_MS)
    const bars = resumed.drainClosed()
    expect(minutes(bars)).toEqual([5])
    expect(bars[0]).toMatchObject(flat(T0 + 5 * MINUTE_MS, 250))
  })

  it('is per market: one market quiet, another silent, a third trading', () => {
    const SOL: MarketKey = { exchange: 'bybit', coin: 'SOL', marketType: 'spot' }
    const agg = new MinuteAggregator()
    agg.add(trade(T0 + 1_000, 100))
    agg.add(trade(T0 + 1_000, 3000, 1, ETH))
    agg.add(trade(T0 + 1_000, 150, 1, SOL))
    heartbeat(agg, T0, T0 + 2 * MINUTE_MS + 5_000) // only BTC's feed talks in minute 1
    agg.add(trade(T0 + MINUTE_MS + 7_000, 151, 1, SOL))
    agg.advance(T0 + 3 * MINUTE_MS)
    const bars = agg.drainClosed()
    expect(minutes(bars, BTC)).toEqual([0, 1])
    expect(bars.find((b) => b.coin === 'BTC' && b.ts === T0 + MINUTE_MS)!.trades).toBe(0)
    expect(minutes(bars, ETH)).toEqual([0])
    expect(minutes(bars, SOL)).toEqual([0, 1])
  })

  it('a funding settlement is not a sign of life (it is a record of a past time)', () => {
    const agg = new MinuteAggregator()
    agg.add(trade(T0 + 1_000, 100))
    agg.emit({ type: 'funding', ...BTC, ts: T0 + MINUTE_MS, rate: 0.0001, intervalHours: 8 })
    agg.emit({ type: 'funding', ...BTC, ts: T0 + 2 * MINUTE_MS + 1, rate: 0.0001, intervalHours: 8 })
    agg.advance(T0 + 4 * MINUTE_MS)
    expect(minutes(agg.drainClosed())).toEqual([0])
  })

  it('a late trade for a minute already made flat counts as late, never silently', () => {
    const agg = new MinuteAggregator()
    agg.add(trade(T0 + 1_000, 100))
    heartbeat(agg, T0, T0 + 3 * MINUTE_MS)
    agg.advance(T0 + 3 * MINUTE_MS)
    expect(minutes(agg.drainClosed())).toEqual([0, 1])
    expect(agg.add(trade(T0 + MINUTE_MS + 5_000, 101))).toBe('late_dropped')
  })
})

describe('whole-minute bars from a history source', () => {
  const bar = (minute: number, close: number, trades = 5): MinuteBar => ({
    ...BTC,
    ts: T0 + minute * MINUTE_MS,
    open: close - 1,
    high: close + 1,
    low: close - 2,
    close,
    volume: 2,
    buyVolume: 1.5,
    sellVolume: 0.5,
    quoteVolume: 2 * close,
    trades,
    source: 'simulated',
    noSplitMinutes: 0,
    klineMinutes: 0,
    vap: new Map([[1, [1.5, 0.5]]]),
  })

  it('close like traded minutes, are kept as given, and a replay of them is a duplicate', () => {
    const agg = new MinuteAggregator()
    expect(agg.emitBar(bar(0, 100))).toBe('accepted')
    expect(agg.emitBar(bar(1, 101))).toBe('accepted')
    expect(agg.emitBar(bar(2, 102))).toBe('accepted')
    const closed = agg.drainClosed() // bar 2's end closed minutes 0 and 1
    expect(closed).toEqual([bar(0, 100), bar(1, 101)])
    expect(agg.emitBar(bar(1, 101))).toBe('duplicate') // closed, remembered
    expect(agg.emitBar(bar(2, 102))).toBe('duplicate') // open
    expect(agg.add(trade(T0 + 2 * MINUTE_MS + 1, 5))).toBe('duplicate') // trades cannot change a source's bar
    expect(agg.drainAll()).toEqual([bar(2, 102)])
    expect(agg.stats).toMatchObject({ sourceBars: 3, duplicates: 3 })
  })

  it('respect the resume cursor and reject impossible bars', () => {
    const agg = new MinuteAggregator()
    agg.setResumeCursor(BTC, T0 + MINUTE_MS)
    expect(agg.emitBar(bar(1, 101))).toBe('resume_skipped')
    expect(agg.emitBar({ ...bar(2, 102), low: Number.NaN })).toBe('invalid')
    expect(agg.emitBar({ ...bar(2, 102), volume: -1 })).toBe('invalid')
    expect(agg.emitBar({ ...bar(2, 102), trades: 1.5 })).toBe('invalid')
    expect(agg.emitBar(bar(2, 102))).toBe('accepted')
  })
})
