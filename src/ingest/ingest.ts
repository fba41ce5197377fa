// The ingest pipeline: normalized events from any source (connector, simulator, import) → 1-minute trade
// aggregates, ticker/OI samples, funding history and latest books → the store, in batches.
import type { Logger } from 'pino'
import type { Database, Sql } from '../store/database.js'
import { type BarSink, type MinuteBar, type TradeSource } from '../domain/minute-bars.js'
import { MINUTE_MS, earliest } from '../domain/time.js'
import { MinuteAggregator } from './aggregate/index.js'
import type { BookSnapshotEvent, EventSink, FeedStateEvent, MarketEvent, OpenInterestEvent, TickerEvent, TradeEvent } from '../domain/events.js'
import type { ExchangeId, MarketType } from '../domain/exchanges.js'
import { LiveMarket, marketId } from '../read/live.js'
import type { MarketState } from '../read/state.js'
import { storedMinuteRanges, writeMinuteBars, type HourCache } from '../store/market/candles.js'
import { clearPartial, markPartial, marksOf, readResumablePartials } from '../store/market/partial-minutes.js'
import { isStoredLargeTrade, LARGE_TRADE_RETENTION_MS, pruneLargeTrades, writeLargeTrades } from '../store/market/large-trades.js'
import { SideEvents } from './side-events.js'
import { emptySample, setOpenInterest, setTicker, type SlotState } from './sample-slots.js'
import { mergeSamples, writeBooks, writeFunding, writeSamples, type FundingRow, type MarketSample } from '../store/market/samples.js'
import type { DataKind } from '../read/reader.js'
import type { WriteGate } from './writer-lease.js'

/** what one flush wrote: the rows the hot series mirror, and the kinds of stored data that changed */
export interface Written {
  minuteBars: MinuteBar[]
  hourBars: MinuteBar[]
  samples: MarketSample[]
  kinds: DataKind[]
  /** per kind written, the earliest time stamped on a row of it (hour rollups at their hour): nothing before it moved */
  from: Partial<Record<DataKind, number>>
}

export interface IngestOptions {
  db: Database
  market: MarketState
  logger?: Logger
  /** one market_sample row per market per slot of this length (live default 1 min) */
  sampleEveryMs?: number
  /** trades later than this after their minute's end are dropped (aggregator grace) */
  graceMs?: number
  /** what the minutes folded from the source's trades are marked as: 'trades' (default) or the simulator's 'simulated' */
  tradeSource?: TradeSource
  /** the latest books are written to the store at most this often (the live copy is in memory); default 15 s */
  bookEveryMs?: number
  /** keep the current hour's minutes in memory for the hourly rollups (a long-running live writer) */
  cacheHours?: boolean
  /** count events (metrics) */
  onEvent?: (e: MarketEvent) => void
  /** update the live cache and feed freshness (false for history: old events are not the current market) */
  trackLive?: boolean
  /** live state as it arrives (tickers, open interest, books; only with trackLive): the bus publisher */
  onLive?: (e: TickerEvent | OpenInterestEvent | BookSnapshotEvent) => void
  /** after every successful write: the bus publisher */
  onWritten?: (w: Written) => void
  /** another process may be a venue's writer: only rows of venues this process holds are written (writer-lease.ts) */
  gate?: WriteGate
}

export interface IngestStats {
  events: number
  barsWritten: number
  samplesWritten: number
  fundingWritten: number
  booksWritten: number
}

/**
 * An event older than the open slot (a venue stamps open interest at the start of its own bucket, or a poll answers
 * late) still brings the newest value of its kind: the slot rows written since its own time, which carry an older
 * value, are rewritten up to this far back (older slots get only the event's own slot row).
 */
const LATE_REWRITE_MS = 30 * MINUTE_MS

/** stored large trades past their retention are deleted at most this often */
const LARGE_TRADE_PRUNE_EVERY_MS = 10 * MINUTE_MS

export class Ingest implements EventSink, BarSink {
  readonly aggregator: MinuteAggregator
  readonly live: LiveMarket
  sampleEveryMs: number
  readonly stats: IngestStats = { events: 0, barsWritten: 0, samplesWritten: 0, fundingWritten: 0, booksWritten: 0 }
  /** the store as the flush writes to it */
  private readonly writes: Sql
  private readonly slots = new Map<string, SlotState>()
  private pendingSamples: MarketSample[] = []
  /** partial rows for slots already written: only the fields they carry are merged into the stored rows */
  private pendingLate: MarketSample[] = []
  private pendingFunding: FundingRow[] = []
  /** trades at or above the storage threshold, for /v1/flow/large-trades */
  private pendingTrades: TradeEvent[] = []
  private lastTradePrune = Number.NEGATIVE_INFINITY
  /** bars drained from the aggregator but not yet written (the store was unreachable) */
  private pendingBars: MinuteBar[] = []
  /** of the bars to write, those holding only part of their minute, with the ts of their newest trade */
  private pendingPartial = new Map<MinuteBar, number>()
  /** the end of the latest stored partial minute reopened by resume() (the backfill keeps it open until then) */
  reopenedUntil = Number.NEGATIVE_INFINITY
  private readonly hourCache: HourCache | undefined
  /** liquidation orders, positioning ratios and the sources' feed states (side-events.ts) */
  private readonly side = new SideEvents()
  private advancedTo = Number.NEGATIVE_INFINITY
  private lastBookWrite = 0
  /** a failed flush may have half-written hours: never take the fresh shortcut for the retry */
  private retried = false
  private flushing: Promise<void> = Promise.resolve()

  constructor(private readonly opts: IngestOptions) {
    this.aggregator = new MinuteAggregator({ graceMs: opts.graceMs ?? 2000, tradeSource: opts.tradeSource })
    this.writes = opts.db.sql
    this.live = opts.market.live
    this.sampleEveryMs = opts.sampleEveryMs ?? MINUTE_MS
    this.trackLive = opts.trackLive ?? true
    this.hourCache = opts.cacheHours ? new Map() : undefined
  }

  private readonly trackLive: boolean

  /**
   * Make a restart resume where the store ends: trades of minutes already stored are skipped. A newest stored minute
   * marked partial (a shutdown inside it) is reopened when the source replays what it lacks — every trade from
   * `replayFrom` up to `replayTo` — so it is completed instead of staying short; otherwise it keeps its mark. A
   * minute the source starts inside (without replay: where each market's first event falls) is marked short at its start.
   */
  async resume(replay: { replayFrom: number; replayTo?: number } | null = null): Promise<Map<string, number>> {
    const { sql } = this.opts.db
    // a range of history resumes after what is stored before its end (a live feed may have written after it)
    const ranges = await storedMinuteRanges(sql, replay?.replayTo)
    const last = new Map<string, number>()
    const reopened = new Set<string>()
    if (replay) {
      for (const p of await readResumablePartials(sql, replay.replayTo)) {
        const covers = replay.replayFrom <= p.coveredTo + 1 && (replay.replayTo ?? Infinity) >= p.bar.ts + MINUTE_MS
        if (!covers) continue
        this.aggregator.reopen(p.bar, p.coveredTo)
        this.reopenedUntil = Math.max(this.reopenedUntil, p.bar.ts + MINUTE_MS)
        reopened.add(`${p.bar.exchange}:${p.bar.coin}:${p.bar.marketType}`)
      }
    }
    for (const [key, r] of ranges) {
      last.set(key, r.last)
      if (reopened.has(key)) continue
      const [exchange, coin, marketType] = key.split(':') as [ExchangeId, string, MarketType]
      // a quiet minute right after the last stored one is flat at its close
      this.aggregator.setResumeCursor({ exchange, coin, marketType }, r.last, r.lastClose)
    }
    this.aggregator.startFeed(replay ? replay.replayFrom : null)
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
        if (isStoredLargeTrade(e, this.opts.market.clock())) this.pendingTrades.push(e)
        return
      case 'ticker':
        if (live) {
          this.live.onTicker(e)
          this.opts.onLive?.(e)
        }
        this.aggregator.observe(e, e.ts)
        this.sample(e)
        return
      case 'open_interest':
        if (live) {
          this.live.onOpenInterest(e)
          this.opts.onLive?.(e)
        }
        // (stamped with the start of the venue's own bucket: not when its feed came up)
        this.aggregator.observe(e, e.ts, false)
        this.sample(e)
        return
      case 'funding':
        this.pendingFunding.push({ exchange: e.exchange, coin: e.coin, ts: e.ts, rate: e.rate, intervalHours: e.intervalHours, source: e.source ?? 'live' })
        return
      case 'book':
        if (live) {
          this.live.onBook(e)
          this.opts.onLive?.(e)
        }
        this.aggregator.observe(e, e.ts)
        return
      case 'liquidation':
        if (live) this.live.onLiquidation(e)
        this.side.add(e)
        return
      case 'positioning':
        this.side.add(e)
        return
    }
  }

  /** another writer (the venues' history) wrote minutes: the hours kept in memory are read back on their next write */
  forgetHours(): void {
    this.hourCache?.clear()
  }

  /** a source's own state of a stream (its liquidation feed subscribed or lost): not market data, no freshness */
  feed = (state: FeedStateEvent): void => this.side.feed(state)

  /** a whole minute from a history source that does not send its trades (the simulator's backfill) */
  emitBar(bar: MinuteBar): void {
    this.stats.events++
    this.aggregator.emitBar(bar)
  }

  /**
   * The latest ticker and OI values, one row per market per slot (the slot's last values win; each slot carries the
   * last known values forward, since ticker and OI arrive on different schedules). An event older than the open
   * slot is kept too: when it is the newest of its kind, the open slot takes it and the already-written slots that
   * carried an older value are rewritten (only that kind's fields, merged into the stored rows).
   */
  private sample(e: TickerEvent | OpenInterestEvent): void {
    const id = marketId(e.exchange, e.coin, e.marketType)
    const slot = Math.floor(e.ts / this.sampleEveryMs) * this.sampleEveryMs
    const isTicker = e.type === 'ticker'
    let s = this.slots.get(id)
    if (!s) {
      s = { slot, tickerTs: -Infinity, oiTs: -Infinity, row: emptySample(e, slot), written: [], closed: false }
      this.slots.set(id, s)
    } else if (slot > s.slot) {
      if (!s.closed) this.closeSlot(s)
      while (s.written.length && s.written[0]!.slot < slot - LATE_REWRITE_MS) s.written.shift()
      s.slot = slot
      s.row = { ...s.row, ts: slot }
      s.closed = false
    } else if (slot < s.slot || s.closed) {
      // a late event, or one in the slot whose row is already written (the clock left it): the written rows take a
      // newer value, and the open row carries it forward
      if (e.ts <= (isTicker ? s.tickerTs : s.oiTs)) return // nothing newer than what the rows already carry
      this.rewriteLate(s, e, slot)
    }
    if (isTicker) {
      s.tickerTs = Math.max(s.tickerTs, e.ts)
      setTicker(s.row, e)
    } else {
      s.oiTs = Math.max(s.oiTs, e.ts)
      setOpenInterest(s.row, e)
    }
  }

  /** rows for the written slots from the late event's own slot on that carried an older value of its kind */
  private rewriteLate(s: SlotState, e: TickerEvent | OpenInterestEvent, slot: number): void {
    const isTicker = e.type === 'ticker'
    const partial = (ts: number): MarketSample => {
      const row = { ...emptySample(e, ts) }
      if (isTicker) setTicker(row, e)
      else setOpenInterest(row, e)
      return row
    }
    const held = s.written.filter((w) => w.slot >= slot)
    if (!held.length || held[0]!.slot > slot) this.pendingLate.push(partial(slot))
    for (const w of held) {
      if ((isTicker ? w.tickerTs : w.oiTs) >= e.ts) continue
      if (isTicker) w.tickerTs = e.ts
      else w.oiTs = e.ts
      this.pendingLate.push(partial(w.slot))
    }
  }

  private closeSlot(s: SlotState): void {
    this.pendingSamples.push(s.row)
    s.written.push({ slot: s.slot, tickerTs: s.tickerTs, oiTs: s.oiTs })
    s.closed = true
  }

  /**
   * Time has moved on: the aggregator closes the minutes the clock has left behind, and (live) each market's sample
   * slot the clock has left by the grace is written, so a feed that falls silent still has its last values stored
   * (before, a slot was written only when the market's next event opened a later one).
   */
  advance(now: number): void {
    this.aggregator.advance(now)
    this.advancedTo = Math.max(this.advancedTo, now)
    if (!this.trackLive) return
    for (const s of this.slots.values()) if (!s.closed && s.slot + this.sampleEveryMs + this.aggregator.graceMs <= now) this.closeSlot(s)
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
    const sql = this.writes
    const partial = this.pendingPartial
    let bars = this.pendingBars.concat(final ? this.aggregator.drainAll((bar, coveredTo) => partial.set(bar, coveredTo)) : this.aggregator.drainClosed())
    this.pendingBars = []
    this.pendingPartial = new Map()
    let samples = this.pendingSamples.concat(this.pendingLate)
    this.pendingSamples = []
    this.pendingLate = []
    if (final) {
      for (const s of this.slots.values()) if (!s.closed) samples.push(s.row)
      this.slots.clear()
    }
    // a slot written now and rewritten by a late event in the same batch is one row
    const merged = mergeSamples(samples)
    samples.length = 0
    samples.push(...merged)
    let funding = this.pendingFunding
    this.pendingFunding = []
    const trades = this.pendingTrades
    this.pendingTrades = []
    const now = this.opts.market.clock()
    const booksDue = final || now - this.lastBookWrite >= (this.opts.bookEveryMs ?? 15_000)
    let books = booksDue ? [...this.live.dirtyBooks].map((id) => this.live.books.get(id)!).filter(Boolean) : []
    if (booksDue) {
      this.live.dirtyBooks.clear()
      this.lastBookWrite = now
    }
    let hourBars: MinuteBar[] = []
    /** the minutes the store now holds (a venue kline does not replace a minute from trades) */
    let stored: readonly MinuteBar[] = []
    let side = { orders: 0, positioning: 0, spans: 0 }
    if (this.opts.gate) {
      // rows of venues another process writes wait in the gate; a venue just taken over brings back what its writer had not stored
      const admitted = await this.opts.gate.admit({ bars, samples, funding, books }, partial)
      ;({ bars, samples, funding, books } = admitted)
      if (admitted.tookOver) this.retried = true // the hour rollups of a venue taken over are read from the store, not the cache
    }
    try {
      // the mark goes in before the short bar, so no moment exists where the bar passes for a complete minute
      const marks = marksOf(bars, partial, (b) => this.aggregator.coveredFrom(b))
      await markPartial(sql, marks)
      const isFresh = fresh && !this.retried
      ;({ minuteBars: stored, hourBars } = await writeMinuteBars(sql, bars, { fresh: isFresh, freshHours: isFresh && freshHours, hourCache: this.retried ? undefined : this.hourCache }))
      if (this.retried) this.hourCache?.clear()
      // a minute written whole is whole in the store, whoever marked it (a fresh range has no minute stored, nor a mark)
      if (!isFresh) await clearPartial(sql, stored.filter((b) => !marks.has(b)))
      await writeSamples(sql, samples, { fresh: isFresh && freshHours })
      await writeFunding(sql, funding)
      await writeBooks(sql, books)
      await writeLargeTrades(sql, trades)
      if (now - this.lastTradePrune >= LARGE_TRADE_PRUNE_EVERY_MS) {
        await pruneLargeTrades(sql, now - LARGE_TRADE_RETENTION_MS)
        this.lastTradePrune = now
      }
      side = await this.side.flush(sql, this.advancedTo)
    } catch (e) {
      // keep what could not be written for the next flush (the store may be back by then)
      this.pendingBars = bars.concat(this.pendingBars)
      for (const [bar, coveredTo] of partial) this.pendingPartial.set(bar, coveredTo)
      this.retried = true
      this.pendingSamples.unshift(...samples)
      this.pendingFunding.unshift(...funding)
      this.pendingTrades.unshift(...trades)
      for (const b of books) this.live.dirtyBooks.add(marketId(b.exchange, b.coin, b.marketType))
      throw e
    }
    this.retried = false
    // only what the store now holds goes into the in-memory series
    this.opts.market.series.apply({ minuteBars: stored, hourBars, samples }, this.opts.market.clock())
    const reader = this.opts.market.reader
    const from: Written['from'] = {}
    if (stored.length) reader.bump('candles', (from.candles = earliest(stored, hourBars)))
    if (samples.length) reader.bump('samples', (from.samples = earliest(samples)))
    if (funding.length) reader.bump('funding', (from.funding = earliest(funding)))
    const kinds: DataKind[] = (['candles', 'samples', 'funding', 'books'] as const).filter((k, i) => [stored, samples, funding, books][i]!.length > 0)
    for (const [k, n] of [['trades', trades.length], ['liquidations', side.orders], ['positioning', side.positioning], ['feeds', side.spans]] as const) if (n) kinds.push(k)
    for (const k of kinds) if (from[k] === undefined) reader.bump(k) // no earliest time known: every read may have moved
    if (kinds.length) this.opts.onWritten?.({ minuteBars: [...stored], hourBars, samples, kinds, from })
    this.stats.barsWritten += stored.length
    this.stats.samplesWritten += samples.length
    this.stats.fundingWritten += funding.length
    this.stats.booksWritten += books.length
  }
}
