// A range of simulated history as it crosses from the history worker (history-worker.ts) to the main thread
// (worker-history.ts). The bars, three quarters of what a range holds, travel as numbers in two transferable
// Float64Arrays (their fields; their volume at price as level/buy/sell triples in the Map's own order) rather than
// as objects, whose structured clone — every volume-at-price level a small array — cost the main thread more than
// simulating them did. The other events (tickers, open interest, funding, liquidations, positioning) are few and
// flat, and are cloned as they are.
import type { CandleSource, MarketKey, MinuteBar } from '../../domain/minute-bars.js'
import type { Vap } from '../../domain/volume-at-price.js'
import type { FeedStateEvent, MarketEvent } from '../../domain/events.js'

export interface WireRange {
  /** the markets the bars name by index */
  markets: MarketKey[]
  /** the events other than bars, in emission order */
  events: MarketEvent[]
  /** the feed states the range reported (the simulated liquidation feeds' span) */
  feeds: FeedStateEvent[]
  /** per bar BAR_FIELDS numbers: its place among everything emitted, then its market and fields (below) */
  bars: Float64Array<ArrayBuffer>
  /** every bar's volume at price, level/buy/sell triples */
  vap: Float64Array<ArrayBuffer>
}

const BAR_FIELDS = 15
/** a bar's source as a number on the wire */
const SOURCES: readonly CandleSource[] = ['trades', 'venue_kline', 'simulated']
/** a field the bar's source does not give (null) travels as NaN */
const orNaN = (v: number | null): number => v ?? Number.NaN
const orNull = (v: number): number | null => (Number.isNaN(v) ? null : v)

/** collects what simulateRange emits, for encode() */
export class RangeWriter {
  private readonly markets: MarketKey[] = []
  private readonly marketIndex = new Map<string, number>()
  private readonly events: MarketEvent[] = []
  private readonly feeds: FeedStateEvent[] = []
  private bars: number[] = []
  private vap: number[] = []
  private emitted = 0

  emit = (e: MarketEvent): void => {
    this.events.push(e)
    this.emitted++
  }

  feed = (s: FeedStateEvent): void => {
    this.feeds.push(s)
  }

  emitBar = (b: MinuteBar): void => {
    const key = `${b.exchange}\u0000${b.coin}\u0000${b.marketType}`
    let m = this.marketIndex.get(key)
    if (m === undefined) {
      m = this.markets.push({ exchange: b.exchange, coin: b.coin, marketType: b.marketType }) - 1
      this.marketIndex.set(key, m)
    }
    const v0 = this.vap.length / 3
    for (const [level, [buy, sell]] of b.vap) this.vap.push(level, buy, sell)
    this.bars.push(this.emitted++, m, b.ts, b.open, b.high, b.low, b.close, b.volume, orNaN(b.buyVolume), orNaN(b.sellVolume), orNaN(b.quoteVolume), orNaN(b.trades), v0, this.vap.length / 3)
    this.bars.push(SOURCES.indexOf(b.source))
  }

  encode(): WireRange {
    return { markets: this.markets, events: this.events, feeds: this.feeds, bars: Float64Array.from(this.bars), vap: Float64Array.from(this.vap) }
  }
}

/** replay a range into sink: the same calls, in the same order, as the simulator made into the RangeWriter */
export function replayRange(r: WireRange, sink: { emit(e: MarketEvent): void; emitBar(b: MinuteBar): void; feed?(s: FeedStateEvent): void }): void {
  const { bars, vap, events, markets } = r
  for (const f of r.feeds) sink.feed?.(f)
  let e = 0
  let place = 0
  for (let i = 0; i < bars.length; i += BAR_FIELDS) {
    for (; place < bars[i]!; place++) sink.emit(events[e++]!)
    const k = markets[bars[i + 1]!]!
    const levels: Vap = new Map()
    for (let j = bars[i + 12]! * 3, end = bars[i + 13]! * 3; j < end; j += 3) levels.set(vap[j]!, [vap[j + 1]!, vap[j + 2]!])
    sink.emitBar({
      exchange: k.exchange,
      coin: k.coin,
      marketType: k.marketType,
      ts: bars[i + 2]!,
      open: bars[i + 3]!,
      high: bars[i + 4]!,
      low: bars[i + 5]!,
      close: bars[i + 6]!,
      volume: bars[i + 7]!,
      buyVolume: orNull(bars[i + 8]!),
      sellVolume: orNull(bars[i + 9]!),
      quoteVolume: orNull(bars[i + 10]!),
      trades: orNull(bars[i + 11]!),
      source: SOURCES[bars[i + 14]!]!,
      noSplitMinutes: Number.isNaN(bars[i + 8]!) ? 1 : 0,
      klineMinutes: SOURCES[bars[i + 14]!] === 'venue_kline' ? 1 : 0,
      vap: levels,
    })
    place++
  }
  for (; e < events.length; e++) sink.emit(events[e]!)
}
