import { createHash } from 'node:crypto'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { MarketSimulator, ORIGIN_TS, simulatedMarkets } from '../../../src/sources/simulator/index.js'
import { MinuteAggregator } from '../../../src/ingest/aggregate/index.js'
import { DEFAULT_COINS } from '../../../src/domain/coins.js'
import { EXCHANGES } from '../../../src/domain/exchanges.js'
import { marketKeyString, type MinuteBar } from '../../../src/domain/minute-bars.js'
import { HOUR_MS, MINUTE_MS } from '../../../src/domain/time.js'
import type { EventSink, MarketEvent, TradeEvent } from '../../../src/domain/events.js'
import type { HistorySink } from '../../../src/sources/simulator/index.js'
import { validateBar, validateEvent } from './event-schema.js'

const T = Date.UTC(2025, 5, 1, 7, 13) // 07:13 UTC, crossing the 08:00 settlement below

type Item = MarketEvent | MinuteBar
const isBar = (x: Item): x is MinuteBar => !('type' in x)

/** history's events and bars, in emission order */
function collect(): HistorySink & { events: Item[]; bars: MinuteBar[] } {
  const events: Item[] = []
  const bars: MinuteBar[] = []
  return {
    events,
    bars,
    emit: (e) => void events.push(e),
    emitBar: (b) => {
      events.push(b)
      bars.push(b)
    },
  }
}

const liveCollect = (): EventSink & { events: MarketEvent[] } => {
  const events: MarketEvent[] = []
  return { events, emit: (e) => void events.push(e) }
}

/** a bar's volume at price as sorted entries, so the digest sees it (JSON drops Maps) */
const plain = (x: Item) => (isBar(x) ? { ...x, vap: [...x.vap].sort((a, b) => a[0] - b[0]) } : x)

function digest(events: Item[]): string {
  const h = createHash('sha256')
  for (const e of events) h.update(JSON.stringify(plain(e)))
  return h.digest('hex')
}

const run = (seed: number | string, from: number, to: number, coins: readonly string[] = ['BTC', 'SOL']) => {
  const s = collect()
  new MarketSimulator({ seed, coins }).simulateRange(from, to, s)
  return s.events
}

describe('MarketSimulator: determinism', () => {
  it('same seed -> identical events; different seed -> different events', () => {
    const a = run(42, T, T + 3 * HOUR_MS)
    const b = run(42, T, T + 3 * HOUR_MS)
    const c = run(43, T, T + 3 * HOUR_MS)
    expect(a.length).toBeGreaterThan(1000)
    expect(digest(a)).toBe(digest(b))
    expect(digest(c)).not.toBe(digest(a))
    // string seeds work too
    expect(digest(run('alpha', T, T + HOUR_MS))).toBe(digest(run('alpha', T, T + HOUR_MS)))
    expect(digest(run('alpha', T, T + HOUR_MS))).not.toBe(digest(run('beta', T, T + HOUR_MS)))
  })

  it('chunked generation = single-range generation, in any order and on any instance', () => {
    const to = T + 2 * HOUR_MS + 34 * MINUTE_MS
    const single = run(7, T, to)
    const cuts = [T, T + 46 * MINUTE_MS, T + 47 * MINUTE_MS, T + 47 * MINUTE_MS, T + 100 * MINUTE_MS, to]
    // one instance, chunks in order
    const sim = new MarketSimulator({ seed: 7, coins: ['BTC', 'SOL'] })
    const inOrder = collect()
    for (let i = 0; i + 1 < cuts.length; i++) sim.simulateRange(cuts[i]!, cuts[i + 1]!, inOrder)
    expect(digest(inOrder.events)).toBe(digest(single))
    // fresh instances, chunks generated in reverse order, reassembled
    const parts: Item[][] = []
    for (let i = cuts.length - 2; i >= 0; i--) parts[i] = run(7, cuts[i]!, cuts[i + 1]!)
    expect(digest(parts.flat())).toBe(digest(single))
    // re-generating an earlier range on a used instance gives the same again
    const again = collect()
    sim.simulateRange(T, to, again)
    expect(digest(again.events)).toBe(digest(single))
  })

  it("a coin's events do not depend on which other coins are simulated", () => {
    const alone = run(9, T, T + HOUR_MS, ['ETH'])
    const withOthers = run(9, T, T + HOUR_MS, DEFAULT_COINS).filter((e) => e.coin === 'ETH')
    expect(digest(withOthers)).toBe(digest(alone))
  })

  it('a quiet minute is flat at the close before it, however the range is cut', () => {
    // dYdX DOT trades about once a minute: many minutes without a trade
    const from = Date.UTC(2025, 5, 2)
    const to = from + 6 * HOUR_MS
    const bars = (cuts: number[]) => {
      const sim = new MarketSimulator({ seed: 4, coins: ['DOT'] })
      const s = collect()
      for (let i = 0; i + 1 < cuts.length; i++) sim.simulateRange(cuts[i]!, cuts[i + 1]!, s)
      return s.bars.filter((b) => b.exchange === 'dydx')
    }
    const whole = bars([from, to])
    expect(whole).toHaveLength(360)
    const quiet = whole.filter((b) => b.trades === 0)
    expect(quiet.length).toBeGreaterThan(30)
    for (let i = 1; i < whole.length; i++) if (whole[i]!.trades === 0) expect(whole[i]!.close).toBe(whole[i - 1]!.close)
    // cut just before quiet minutes: each piece finds the previous close on its own
    const cuts = [from, ...quiet.slice(0, 5).map((b) => b.ts), to].filter((c, i, a) => a.indexOf(c) === i).sort((a, b) => a - b)
    expect(digest(bars(cuts))).toBe(digest(whole))
    // and fresh instances per piece, generated in reverse order
    const parts: MinuteBar[][] = []
    for (let i = cuts.length - 2; i >= 0; i--) parts[i] = bars([cuts[i]!, cuts[i + 1]!])
    expect(digest(parts.flat())).toBe(digest(whole))
  })

  it('rounds ranges up to whole minutes and refuses time before the origin', () => {
    const sim = new MarketSimulator({ seed: 1, coins: ['BTC'] })
    const s = collect()
    const r = sim.simulateRange(T + 1, T + 2 * MINUTE_MS + 1, s)
    expect([r.fromTs, r.toTs]).toEqual([T + MINUTE_MS, T + 3 * MINUTE_MS])
    expect(Math.min(...s.events.map((e) => e.ts))).toBeGreaterThanOrEqual(T + MINUTE_MS)
    expect(Math.max(...s.events.map((e) => e.ts))).toBeLessThan(T + 3 * MINUTE_MS)
    expect(sim.simulateRange(T, T, s).events).toBe(0)
    expect(() => sim.simulateRange(ORIGIN_TS - MINUTE_MS, ORIGIN_TS, s)).toThrow(RangeError)
  })
})

describe('MarketSimulator: events', () => {
  const FROM = Date.UTC(2025, 5, 1, 6) // 06:00 - 12:00 UTC: an 8h settlement at 08:00, hourly ones
  const TO = FROM + 6 * HOUR_MS
  const sim = new MarketSimulator({ seed: 2025 })
  const sink = collect()
  sim.simulateRange(FROM, TO, sink)
  const events = sink.events

  it('covers the 12 default coins: perps on all five venues, spot on the three CEXes', () => {
    expect(sim.markets).toHaveLength(12 * 8)
    expect(sim.markets).toEqual(simulatedMarkets())
    const seen = new Set(events.map((e) => marketKeyString(e)))
    expect(seen.size).toBe(96)
    for (const e of EXCHANGES) for (const coin of DEFAULT_COINS) for (const mt of e.marketTypes) expect(seen.has(`${e.id}:${coin}:${mt}`)).toBe(true)
    expect(seen.has('hyperliquid:BTC:spot')).toBe(false)
  })

  it('every event and bar validates against the events.ts shapes and the invariants of a candle', () => {
    for (const e of events) (isBar(e) ? validateBar(e) : validateEvent(e))
    expect(events.filter((e) => !(e.ts >= FROM && e.ts < TO))).toEqual([])
  })

  it('per market: events in ts order, one bar per minute standing for its trades, samples every minute', () => {
    const byMarket = new Map<string, Item[]>()
    for (const e of events) {
      const k = marketKeyString(e)
      if (!byMarket.has(k)) byMarket.set(k, [])
      byMarket.get(k)!.push(e)
    }
    for (const [k, es] of byMarket) {
      expect(es.every((e, i) => i === 0 || e.ts >= es[i - 1]!.ts)).toBe(true)
      expect(es.filter((e) => !isBar(e) && e.type === 'trade')).toEqual([]) // history sends bars, not trades
      const bars = es.filter(isBar)
      expect(bars.map((b) => b.ts)).toEqual(Array.from({ length: 360 }, (_, i) => FROM + i * MINUTE_MS))
      // each minute's ticker carries the bar's close as the last price
      const tickers = es.filter((e) => !isBar(e) && e.type === 'ticker')
      expect(tickers.map((t) => (t as { lastPrice: number }).lastPrice)).toEqual(bars.map((b) => b.close))
      expect(tickers).toHaveLength(360)
      expect(tickers.every((t) => t.ts % MINUTE_MS === MINUTE_MS - 1)).toBe(true)
      const oi = es.filter((e) => !isBar(e) && e.type === 'open_interest')
      expect(oi).toHaveLength(k.endsWith(':perp') ? 360 : 0)
      // history books: one per hour at the hour start
      expect(es.filter((e) => !isBar(e) && e.type === 'book').map((e) => e.ts)).toEqual([0, 1, 2, 3, 4, 5].map((h) => FROM + h * HOUR_MS))
      // every market trades: at least about one trade a minute on average (the thinnest, dYdX's small coins)
      expect(bars.reduce((n, b) => n + b.trades!, 0) / 360, k).toBeGreaterThan(0.5)
    }
  })

  it('funding settles every 8 h on the CEXes (00/08/16 UTC) and hourly on hyperliquid / dydx', () => {
    const funding = events.filter((e): e is Extract<MarketEvent, { type: 'funding' }> => !isBar(e) && e.type === 'funding')
    for (const f of funding) {
      const hours = f.exchange === 'hyperliquid' || f.exchange === 'dydx' ? 1 : 8
      expect(f.intervalHours).toBe(hours)
      expect(f.ts % (hours * HOUR_MS)).toBe(0)
      expect(Math.abs(f.rate)).toBeLessThan(0.0075)
    }
    const cex = funding.filter((f) => f.intervalHours === 8)
    expect(cex.map((f) => f.ts)).toEqual(Array(12 * 3).fill(Date.UTC(2025, 5, 1, 8)))
    // 1h venues: 06:00 (the range's first minute is a settlement) .. 11:00
    const dex = funding.filter((f) => f.intervalHours === 1)
    expect(new Set(dex.map((f) => f.ts)).size).toBe(6)
    expect(dex).toHaveLength(12 * 2 * 6)
    // tickers carry the predicted rate of the running interval and the next settlement
    const t = events.find((e) => !isBar(e) && e.type === 'ticker' && e.exchange === 'binance' && e.coin === 'BTC' && e.marketType === 'perp')!
    expect(t).toMatchObject({ fundingIntervalHours: 8, nextFundingTime: Date.UTC(2025, 5, 1, 8) })
  })

  it('volumes are realistic in USD and prices sit near the stated reference levels', () => {
    const btc = sink.bars.filter((b) => b.coin === 'BTC' && b.exchange === 'binance' && b.marketType === 'perp')
    const usdPerMin = btc.reduce((s, b) => s + b.quoteVolume!, 0) / 360
    expect(usdPerMin).toBeGreaterThan(2e6)
    expect(usdPerMin).toBeLessThan(50e6)
    expect(sim.fairPrice('BTC', FROM)).toBeGreaterThan(60_000)
    expect(sim.fairPrice('BTC', FROM)).toBeLessThan(150_000)
    expect(sim.fairPrice('ETH', FROM)).toBeGreaterThan(2_000)
    expect(sim.fairPrice('ETH', FROM)).toBeLessThan(6_000)
  })
})

describe('MarketSimulator + MinuteAggregator: re-running a backfill', () => {
  const FROM = Date.UTC(2025, 5, 3)
  const coins = ['BTC', 'DOGE']
  const bars = (agg: MinuteAggregator) => agg.drainAll().sort((a, b) => marketKeyString(a).localeCompare(marketKeyString(b)) || a.ts - b.ts)

  it('the same range twice gives the same bars: the second pass is all duplicates', () => {
    const sim = new MarketSimulator({ seed: 3, coins })
    const agg = new MinuteAggregator({ graceMs: 10 * HOUR_MS })
    const r1 = sim.simulateRange(FROM, FROM + 30 * MINUTE_MS, agg)
    const r2 = sim.simulateRange(FROM, FROM + 30 * MINUTE_MS, agg)
    expect(r2.trades).toBe(r1.trades)
    const bars = 30 * sim.markets.length
    expect(agg.stats).toMatchObject({ sourceBars: bars, duplicates: bars, lateDropped: 0 })
  })

  it('a restart resuming from the stored cursor reproduces the bars of one uninterrupted run', () => {
    const once = new MinuteAggregator()
    new MarketSimulator({ seed: 3, coins }).simulateRange(FROM, FROM + 3 * HOUR_MS, once)
    const expected = bars(once)

    // run 1: stops mid-way, keeps only finalized minutes
    const first = new MinuteAggregator()
    new MarketSimulator({ seed: 3, coins }).simulateRange(FROM, FROM + 100 * MINUTE_MS, first)
    const stored: MinuteBar[] = first.drainClosed()
    // run 2: new process, resumes each market from its last stored minute, re-generates from the day start
    const second = new MinuteAggregator()
    const sim2 = new MarketSimulator({ seed: 3, coins })
    for (const m of sim2.markets) {
      const mine = stored.filter((b) => marketKeyString(b) === marketKeyString(m))
      second.setResumeCursor(m, Math.max(...mine.map((b) => b.ts)))
    }
    sim2.simulateRange(FROM, FROM + 3 * HOUR_MS, second)
    expect(second.stats.duplicates).toBe(0)
    expect(stored.length).toBeGreaterThan(90 * sim2.markets.length)
    expect(second.stats.resumeSkipped).toBeGreaterThan(0)
    const all = [...stored, ...second.drainAll()].sort((a, b) => marketKeyString(a).localeCompare(marketKeyString(b)) || a.ts - b.ts)
    expect(all).toEqual(expected)
  })
})

describe('MarketSimulator: live', () => {
  afterEach(() => {
    vi.useRealTimers()
  })

  const START = Date.UTC(2025, 5, 1, 10)

  function liveRun(step: number, untilMs: number) {
    const sim = new MarketSimulator({ seed: 11, coins: ['BTC', 'ETH'] })
    const hist = collect()
    sim.simulateRange(START - HOUR_MS, START, hist)
    const sink = liveCollect()
    sim.live(sink, { manual: true })
    let now = START
    let late = 0
    while (now < START + untilMs) {
      now += step
      const before = sink.events.length
      sim.pump(now)
      for (let i = before; i < sink.events.length; i++) if (sink.events[i]!.ts > now) late++
    }
    sim.stop()
    expect(sim.pump(now + 10_000)).toBe(0)
    return { sim, hist: hist.bars, events: sink.events, late }
  }

  it('continues from where history ended, in real time, with live sampling rates', () => {
    const { hist, events, late } = liveRun(250, 2 * MINUTE_MS + 30_000)
    expect(late).toBe(0) // nothing from the future
    for (const e of events) validateEvent(e)
    expect(Math.min(...events.map((e) => e.ts))).toBeGreaterThanOrEqual(START)
    const secs = 150
    const perMarket = (type: MarketEvent['type'], k: string) => events.filter((e) => e.type === type && marketKeyString(e) === k).length
    expect(perMarket('ticker', 'binance:BTC:perp')).toBeGreaterThanOrEqual(secs - 1)
    expect(perMarket('book', 'okx:ETH:spot')).toBeGreaterThanOrEqual(secs - 1)
    expect(perMarket('open_interest', 'dydx:BTC:perp')).toBeGreaterThanOrEqual(secs / 5 - 1)
    expect(perMarket('open_interest', 'okx:ETH:spot')).toBe(0)
    const trades = events.filter((e): e is TradeEvent => e.type === 'trade')
    expect(new Set(trades.map((t) => `${marketKeyString(t)}:${t.id}`)).size).toBe(trades.length)
    expect(trades.every((t) => /^\d+-L\d+$/.test(t.id))).toBe(true)
    // the rate of history (thousands of trades a minute on binance BTC), and the price continues the history path
    const histBtc = hist.filter((b) => b.coin === 'BTC' && b.exchange === 'binance' && b.marketType === 'perp')
    const liveBtc = trades.filter((t) => t.coin === 'BTC' && t.exchange === 'binance' && t.marketType === 'perp')
    const histRate = histBtc.reduce((n, b) => n + b.trades!, 0) / 60
    expect(histRate).toBeGreaterThan(500)
    expect(liveBtc.length / 2.5).toBeGreaterThan(histRate / 3)
    expect(liveBtc.length / 2.5).toBeLessThan(histRate * 3)
    expect(Math.abs(liveBtc[0]!.price / histBtc.at(-1)!.close - 1)).toBeLessThan(0.005)
  })

  it('is deterministic whatever the pump cadence', () => {
    const key = (es: MarketEvent[]) => es.map((e) => JSON.stringify(e)).sort()
    const a = liveRun(250, 90_000)
    const b = liveRun(1_000, 90_000)
    expect(key(a.events)).toEqual(key(b.events))
  })

  it('a start in the past catches up trades only; with catchUpTo, the tickers and open interest before it too (not books)', () => {
    const run = (catchUpTo?: number) => {
      const sim = new MarketSimulator({ seed: 11, coins: ['BTC'] })
      const sink = liveCollect()
      sim.live(sink, { manual: true, fromTs: START, catchUpTo })
      sim.pump(START + 2 * MINUTE_MS + 20_000) // a restart 2 min 20 s after the start it replays from
      return sink.events
    }
    // what a feed running all along emitted over the same time
    const sim = new MarketSimulator({ seed: 11, coins: ['BTC'] })
    const sink = liveCollect()
    sim.live(sink, { manual: true, fromTs: START })
    for (let t = START; t <= START + 2 * MINUTE_MS + 20_000; t += 250) sim.pump(t)
    const along = sink.events
    const count = (es: MarketEvent[], type: MarketEvent['type'], before = START + 2 * MINUTE_MS) => es.filter((e) => e.type === type && e.ts < before).length
    const plain = run()
    const caught = run(START + 2 * MINUTE_MS + 20_000)
    expect(count(plain, 'trade')).toBe(count(along, 'trade'))
    expect(count(caught, 'trade')).toBe(count(along, 'trade'))
    expect(count(plain, 'ticker')).toBe(0)
    expect(count(caught, 'ticker')).toBe(count(along, 'ticker'))
    expect(count(caught, 'open_interest')).toBe(count(along, 'open_interest'))
    expect(count(caught, 'book')).toBe(0)
    const key = (e: MarketEvent) => JSON.stringify(e)
    const tickers = (es: MarketEvent[]) => es.filter((e) => e.type === 'ticker' && e.ts < START + 2 * MINUTE_MS).map(key).sort()
    expect(tickers(caught)).toEqual(tickers(along))
  })

  it('runs on a timer with the injected clock until stop()', () => {
    vi.useFakeTimers({ now: START })
    const sim = new MarketSimulator({ seed: 11, coins: ['BTC'], tickMs: 100 })
    const sink = liveCollect()
    sim.live(sink, { now: () => Date.now() })
    expect(sim.running).toBe(true)
    vi.advanceTimersByTime(3_000)
    const n = sink.events.length
    expect(sink.events.filter((e) => e.type === 'ticker').length).toBeGreaterThanOrEqual(8 * 3)
    sim.stop()
    expect(sim.running).toBe(false)
    vi.advanceTimersByTime(3_000)
    expect(sink.events.length).toBe(n)
  })
})

describe('event validation helper', () => {
  const base = { exchange: 'binance', coin: 'BTC', marketType: 'perp', ts: Date.UTC(2025, 0, 1) } as const
  it('rejects what a consumer could not handle', () => {
    expect(() => validateEvent({ ...base, type: 'trade', id: '1', price: NaN, size: 1, side: 'buy' })).toThrow()
    expect(() => validateEvent({ ...base, type: 'trade', id: '1', price: 1, size: 0, side: 'buy' })).toThrow()
    expect(() => validateEvent({ ...base, exchange: 'dydx', marketType: 'spot', type: 'trade', id: '1', price: 1, size: 1, side: 'buy' })).toThrow()
    const book = (bids: number[], asks: number[]) => ({
      ...base,
      type: 'book' as const,
      bids: bids.map((price) => ({ price, size: 1 })),
      asks: asks.map((price) => ({ price, size: 1 })),
      bidEnd: null,
      askEnd: null,
    })
    expect(() => validateEvent(book([10, 9], [11, 12]))).not.toThrow()
    expect(() => validateEvent(book([9, 10], [11, 12]))).toThrow(/descending/)
    expect(() => validateEvent(book([10, 9], [12, 11]))).toThrow(/ascending/)
    expect(() => validateEvent(book([11, 9], [11, 12]))).toThrow(/crossed/)
    expect(() => validateEvent({ ...base, marketType: 'spot', type: 'open_interest', openInterest: 5 })).toThrow()
  })
})

describe('MarketSimulator: each venue\'s prices as the venue publishes them', () => {
  it('dYdX has no mark apart from its oracle (mark = index, as its connector reads perpetualMarkets); the other venues\' marks are their own', () => {
    const tickers = run(42, T, T + HOUR_MS).filter((e): e is Extract<MarketEvent, { type: 'ticker' }> => 'type' in e && e.type === 'ticker' && e.marketType === 'perp')
    const dydx = tickers.filter((e) => e.exchange === 'dydx')
    expect(dydx.length).toBeGreaterThan(0)
    for (const e of dydx) expect(e.markPrice).toBe(e.indexPrice)
    expect(tickers.filter((e) => e.exchange === 'binance').some((e) => e.markPrice !== e.indexPrice)).toBe(true)
  })
})
