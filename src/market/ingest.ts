// The ingest pipeline: normalized events from any source (connector, simulator, import) → 1-minute trade
// aggregates, ticker/OI samples, funding history and latest books → the store, in batches.
import type { Logger } from 'pino'
import type { Database } from '../store/database.js'
import { MINUTE_MS, type BarSink, type MinuteBar } from './bars.js'
import { MinuteAggregator } from './aggregate/index.js'
import type { EventSink, ExchangeId, MarketEvent, MarketType, OpenInterestEvent, TickerEvent } from './events.js'
import { LiveMarket, marketId } from './live.js'
import type { MarketState } from './state.js'
import { storedMinuteRanges, writeMinuteBars, type HourCache } from './store/candles.js'
import { writeBooks, writeFunding, writeSamples, type FundingRow, type MarketSample } from './store/samples.js'

export interface IngestOptions {
  db: Database
  market: MarketState
  logger?: Logger
  /** one market_sample row per market per slot of this length (live default 1 min) */
  sampleEveryMs?: number
  /** trades later than this after their minute's end are dropped (aggregator grace) */
  graceMs?: number
  /** the latest books are written to the store at most this often (the live copy is in memory); default 15 s */
  bookEveryMs?: number
  /** keep the current hour's minutes in memory for the hourly rollups (a long-running live writer) */
  cacheHours?: boolean
  /** count events (metrics) */
  onEvent?: (e: MarketEvent) => void
  /** update the live cache and feed freshness (false for history: old events are not the current market) */
  trackLive?: boolean
}

export interface IngestStats {
  events: number
  barsWritten: number
  samplesWritten: number
  fundingWritten: number
  booksWritten: number
}

interface SlotState {
  slot: number
  row: MarketSample
}

export class Ingest implements EventSink, BarSink {
  readonly aggregator: MinuteAggregator
  readonly live: LiveMarket
  sampleEveryMs: number
  readonly stats: IngestStats = { events: 0, barsWritten: 0, samplesWritten: 0, fundingWritten: 0, booksWritten: 0 }
  private readonly slots = new Map<string, SlotState>()
  private pendingSamples: MarketSample[] = []
  private pendingFunding: FundingRow[] = []
  /** bars drained from the aggregator but not yet written (the store was unreachable) */
  private pendingBars: MinuteBar[] = []
  private readonly hourCache: HourCache | undefined
  private lastBookWrite = 0
  /** a failed flush may have half-written hours: never take the fresh shortcut for the retry */
  private retried = false
  private flushing: Promise<void> = Promise.resolve()

  constructor(private readonly opts: IngestOptions) {
    this.aggregator = new MinuteAggregator({ graceMs: opts.graceMs ?? 2000 })
    this.live = opts.market.live
    this.sampleEveryMs = opts.sampleEveryMs ?? MINUTE_MS
    this.trackLive = opts.trackLive ?? true
    this.hourCache = opts.cacheHours ? new Map() : undefined
  }

  private readonly trackLive: boolean

  /**
   * make a restart resume where the store ends: trades of minutes already stored are skipped, and a quiet minute
   * right after the last stored one is flat at its close
   */
  async resume(): Promise<Map<string, number>> {
    const ranges = await storedMinuteRanges(this.opts.db.sql)
    const last = new Map<string, number>()
    for (const [key, r] of ranges) {
      const [exchange, coin, marketType] = key.split(':') as [ExchangeId, string, MarketType]
      this.aggregator.setResumeCursor({ exchange, coin, marketType }, r.last, r.lastClose)
      last.set(key, r.last)
    }
    return last
  }

  emit(e: MarketEvent): void {
    this.stats.events++
    this.opts.onEvent?.(e)
    const live = this.trackLive
    if (live) this.opts.market.touch(e.exchange, e.ts)
    // tickers, books and open interest show the market's feed was up at their ts (quiet minutes: the aggregator)
    switch (e.type) {
      case 'trade':
        this.aggregator.add(e)
        return
      case 'ticker':
        if (live) this.live.onTicker(e)
        this.aggregator.observe(e, e.ts)
        this.sample(e)
        return
      case 'open_interest':
        if (live) this.live.onOpenInterest(e)
        this.aggregator.observe(e, e.ts)
        this.sample(e)
        return
      case 'funding':
        this.pendingFunding.push({ exchange: e.exchange, coin: e.coin, ts: e.ts, rate: e.rate, intervalHours: e.intervalHours })
        return
      case 'book':
        if (live) this.live.onBook(e)
        this.aggregator.observe(e, e.ts)
        return
    }
  }

  /** a whole minute from a history source that does not send its trades (the simulator's backfill) */
  emitBar(bar: MinuteBar): void {
    this.stats.events++
    this.aggregator.emitBar(bar)
  }

  /** the latest ticker and OI values, one row per market per slot (the slot's last values win) */
  private sample(e: TickerEvent | OpenInterestEvent): void {
    const id = marketId(e.exchange, e.coin, e.marketType)
    const slot = Math.floor(e.ts / this.sampleEveryMs) * this.sampleEveryMs
    let s = this.slots.get(id)
    if (!s) {
      s = { slot, row: emptySample(e, slot) }
      this.slots.set(id, s)
    } else if (slot > s.slot) {
      this.pendingSamples.push(s.row)
      // carry the last known values into the new slot: OI and ticker arrive on different schedules
      s = { slot, row: { ...s.row, ts: slot } }
      this.slots.set(id, s)
    } else if (slot < s.slot) return // older than the open slot: the stored history already moved on
    if (e.type === 'ticker') {
      s.row.markPrice = e.markPrice
      s.row.indexPrice = e.indexPrice
      s.row.lastPrice = e.lastPrice
      s.row.fundingRate = e.fundingRate
      s.row.fundingIntervalHours = e.fundingIntervalHours
      s.row.nextFundingTime = e.nextFundingTime
    } else s.row.openInterest = e.openInterest
  }

  /** tell the aggregator time has moved on (closes the minutes the clock has left behind) */
  advance(now: number): void {
    this.aggregator.advance(now)
  }

  /**
   * Write what is complete. `final` also writes open minutes and open sample slots (shutdown, end of import).
   * `fresh` — the caller knows no minute of the touched hours is stored yet (new history), see writeMinuteBars;
   * `freshHours` — nor their hourly rollups, nor any of the sample slots written (they are COPYed).
   * Flushes are serialized, so a timer and a shutdown never write the same rows concurrently.
   */
  flush(opts: { final?: boolean; fresh?: boolean; freshHours?: boolean } = {}): Promise<void> {
    const run = this.flushing.then(() => this.flushNow(opts))
    this.flushing = run.catch(() => {})
    return run
  }

  private async flushNow({ final = false, fresh = false, freshHours = false }: { final?: boolean; fresh?: boolean; freshHours?: boolean }): Promise<void> {
    const { sql } = this.opts.db
    const bars = this.pendingBars.concat(final ? this.aggregator.drainAll() : this.aggregator.drainClosed())
    this.pendingBars = []
    const samples = this.pendingSamples
    this.pendingSamples = []
    if (final) {
      for (const s of this.slots.values()) samples.push(s.row)
      this.slots.clear()
    }
    const funding = this.pendingFunding
    this.pendingFunding = []
    const now = this.opts.market.clock()
    const booksDue = final || now - this.lastBookWrite >= (this.opts.bookEveryMs ?? 15_000)
    const books = booksDue ? [...this.live.dirtyBooks].map((id) => this.live.books.get(id)!).filter(Boolean) : []
    if (booksDue) {
      this.live.dirtyBooks.clear()
      this.lastBookWrite = now
    }
    let hourBars: MinuteBar[] = []
    try {
      const isFresh = fresh && !this.retried
      hourBars = await writeMinuteBars(sql, bars, { fresh: isFresh, freshHours: isFresh && freshHours, hourCache: this.retried ? undefined : this.hourCache })
      if (this.retried) this.hourCache?.clear()
      await writeSamples(sql, samples, { fresh: isFresh && freshHours })
      await writeFunding(sql, funding)
      await writeBooks(sql, books)
    } catch (e) {
      // keep what could not be written for the next flush (the store may be back by then)
      this.pendingBars = bars.concat(this.pendingBars)
      this.retried = true
      this.pendingSamples.unshift(...samples)
      this.pendingFunding.unshift(...funding)
      for (const b of books) this.live.dirtyBooks.add(marketId(b.exchange, b.coin, b.marketType))
      throw e
    }
    this.retried = false
    // only what the store now holds goes into the in-memory series
    this.opts.market.series.apply({ minuteBars: bars, hourBars, samples }, this.opts.market.clock())
    const reader = this.opts.market.reader
    if (bars.length) reader.bump('candles')
    if (samples.length) reader.bump('samples')
    if (funding.length) reader.bump('funding')
    if (books.length) reader.bump('books')
    this.stats.barsWritten += bars.length
    this.stats.samplesWritten += samples.length
    this.stats.fundingWritten += funding.length
    this.stats.booksWritten += books.length
  }
}

const emptySample = (e: TickerEvent | OpenInterestEvent, slot: number): MarketSample => ({
  exchange: e.exchange,
  coin: e.coin,
  marketType: e.marketType,
  ts: slot,
  markPrice: null,
  indexPrice: null,
  lastPrice: null,
  fundingRate: null,
  fundingIntervalHours: null,
  nextFundingTime: null,
  openInterest: null,
})

