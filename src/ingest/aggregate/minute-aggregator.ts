// The 1-minute aggregator: folds normalized TradeEvents into MinuteBars per (exchange, coin, marketType).
// Pure and in memory (no I/O, no timers); the ingest pipeline feeds trades, calls advance(now) on its clock and
// drains closed bars into the store.
//
// Conventions (the exchanges' kline rules):
// - a trade belongs to the minute floor(ts / 60000) * 60000 by its exchange timestamp; a trade at exactly
//   hh:mm:00.000 opens the later minute;
// - open = the first trade by (ts, then arrival order), close = the last by (ts, then arrival order), so trades
//   that arrive out of order within an open minute still give the right open/close;
// - volume / buy / sell volume in coin units by taker side, quoteVolume = Σ price × size, trades = count,
//   volume at price via vapAdd.
// Finalization: a market's watermark is the max trade ts seen for it (or an explicit advance(now)); minute m is
// closed (final, immutable) once watermark >= m + 60 s + grace. Closed bars wait in an outbox until drainClosed().
// Dedupe: per (market, trade id). A trade's ts is part of its identity (a replay carries the same ts), so ids are
// kept per minute: for open minutes and, after a minute closes, for a short retention
// (dedupeRetentionMs, default 60 s) so that a replayed trade (REST backfill overlapping the stream after a
// reconnect) counts as a duplicate, not as a late drop. After that the ids are forgotten (bounded memory) and a
// trade for a closed minute counts as late_dropped.
// Quiet minutes (market-minutes.ts): a minute without trades in which the market's feed was heard — and heard
// again after it — is a flat zero-volume bar at the previous close, as the venues' klines give it; a minute nobody
// heard (a feed gap) produces no bar. observe() is how the feed is heard; trades count too.
// Sources of whole bars (the simulator's history) hand them in with emitBar(): they close like any minute.

import type { TradeEvent, MarketEvent, EventSink } from '../../domain/events.js'
import type { MarketType } from '../../domain/exchanges.js'
import { emptyMinuteBar, type BarSink, type MarketKey, type MinuteBar, type TradeMinuteBar, type TradeSource } from '../../domain/minute-bars.js'
import { MINUTE_MS } from '../../domain/time.js'
import { addTrade, isWholeBar } from './fold.js'
import { BAR_ID, MarketMinutes as MarketState, type MinuteState } from './market-minutes.js'
import { emptyCounters, type AggregatorStats, type FoldResult } from './stats.js'

export interface AggregatorOptions {
  /** how long after a minute's end trades for it are still accepted, ms (default 2000) */
  graceMs?: number
  /** how long after a minute closes its trade ids are kept to recognize replayed duplicates, ms (default 60000) */
  dedupeRetentionMs?: number
  /** called for every trade dropped because its minute was already finalized (for logging) */
  onLateDrop?: (trade: TradeEvent) => void
  /** what the bars folded from trades here are marked as (default 'trades'; the simulator's: 'simulated') */
  tradeSource?: TradeSource
}

/** the ids of every source bar's minute: one shared set, never added to (trades into a sealed minute are refused) */
const SEALED = new Set([BAR_ID])

export class MinuteAggregator implements EventSink, BarSink {
  readonly graceMs: number
  readonly dedupeRetentionMs: number
  private readonly onLateDrop: ((trade: TradeEvent) => void) | undefined
  private readonly tradeSource: TradeSource
  /** marketType -> exchange -> coin -> state */
  private readonly perp = new Map<string, Map<string, MarketState>>()
  private readonly spot = new Map<string, Map<string, MarketState>>()
  private readonly all: MarketState[] = []
  private last: MarketState | null = null
  private outbox: MinuteBar[] = []
  private counters = emptyCounters()
  private openCount = 0
  /** from when the source delivers every market's trades (startFeed); undefined: not said, nothing is marked */
  private feedFrom: number | undefined
  /** finalized bars of minutes begun before their market's feed started, with where their trades begin */
  private readonly short = new WeakMap<MinuteBar, number>()

  constructor(options: AggregatorOptions = {}) {
    this.graceMs = options.graceMs ?? 2000
    this.dedupeRetentionMs = options.dedupeRetentionMs ?? 60_000
    this.onLateDrop = options.onLateDrop
    this.tradeSource = options.tradeSource ?? 'trades'
    if (!(this.graceMs >= 0) || !(this.dedupeRetentionMs >= 0)) throw new RangeError('graceMs and dedupeRetentionMs must be >= 0')
  }

  /**
   * EventSink: folds trades; a ticker, book or open interest only tells that the market's feed was heard at its ts
   * (a funding settlement does not: it is a record of a past time, often fetched later)
   */
  emit(event: MarketEvent): void {
    if (event.type === 'trade') this.add(event)
    else if (event.type !== 'funding') this.observe(event, event.ts, event.type !== 'open_interest')
  }

  /**
   * the feed delivered something for this market stamped ts (a ticker, a book, open interest): it was up then.
   * `startsFeed` false: the stamp may lie well before the event came (open interest stamped with its bucket's start)
   */
  observe(market: MarketKey, ts: number, startsFeed = true): void {
    if (!Number.isFinite(ts)) return
    this.state(market.exchange, market.coin, market.marketType).hear(ts, startsFeed)
  }

  /**
   * The source delivers every market's trades from `from` on (a replay), or, with null, from each market's first
   * trade, ticker or book (a live venue): a minute begun before that is finalized as short at its start
   * (`coveredFrom`), unless the store holds it up to there.
   */
  startFeed(from: number | null): void {
    this.feedFrom = from ?? NaN
    for (const st of this.all) st.feedFrom = this.feedFrom
  }

  /** where a bar drained from here begins to hold its trades, when that is after the start of its minute */
  coveredFrom(bar: MinuteBar): number | undefined {
    return this.short.get(bar)
  }

  /**
   * A whole minute from a source that does not send its trades (the simulator's history). The aggregator takes the
   * bar as it is (and owns it from now on): skipped at or before the resume cursor, a duplicate when the minute
   * already has a bar or trades.
   */
  emitBar(b: MinuteBar): FoldResult {
    if (!isWholeBar(b)) {
      this.counters.invalid++
      return 'invalid'
    }
    const st = this.state(b.exchange, b.coin, b.marketType)
    const minute = Math.floor(b.ts / MINUTE_MS) * MINUTE_MS
    // a reopened partial minute (the cursor stops inside it) is replaced by the source's whole bar
    const reopened = st.cursorEnd > minute && st.cursorEnd <= minute + MINUTE_MS && st.open.some((ms) => ms.bar.ts === minute && !ms.sealed)
    if (b.ts < st.cursorEnd && !reopened) {
      this.counters.resumeSkipped++
      return 'resume_skipped'
    }
    if (minute < st.closedBefore) return this.late(st, BAR_ID, minute)
    const ms = this.minuteState(st, minute)
    if (ms.sealed || ms.ids.size > 0) {
      this.counters.duplicates++
      return 'duplicate'
    }
    b.ts = minute
    ms.bar = b
    ms.sealed = true
    ms.ids = SEALED
    this.counters.sourceBars++
    // the source covered the whole minute: its feed carried on to the minute's end
    const end = minute + MINUTE_MS - 1
    if (end > st.lastEventTs) st.lastEventTs = end
    if (end > st.watermark) {
      st.watermark = end
      if (end >= st.nextCloseAt) this.close(st)
    }
    return 'accepted'
  }

  addMany(trades: Iterable<TradeEvent>): void {
    for (const t of trades) this.add(t)
  }

  /** fold one trade */
  add(t: TradeEvent): FoldResult {
    const price = t.price
    const size = t.size
    const ts = t.ts
    // the negated comparisons also reject NaN
    if (!(price > 0) || !(size > 0) || price === Infinity || size === Infinity || !Number.isFinite(ts)) {
      this.counters.invalid++
      return 'invalid'
    }
    let st = this.last
    if (st === null || st.key.coin !== t.coin || st.key.exchange !== t.exchange || st.key.marketType !== t.marketType) {
      st = this.state(t.exchange, t.coin, t.marketType)
      this.last = st
    }
    if (st.feedFrom !== st.feedFrom) st.feedFrom = ts
    if (ts < st.cursorEnd) {
      this.counters.resumeSkipped++
      return 'resume_skipped'
    }
    const minute = Math.floor(ts / MINUTE_MS) * MINUTE_MS
    if (minute < st.closedBefore) return this.late(st, t.id, minute, t)

    let ms = st.cur
    if (ms === null || ms.bar.ts !== minute) {
      ms = this.minuteState(st, minute)
      st.cur = ms
    }
    const ids = ms.ids
    if (ids.has(t.id) || ms.sealed) {
      this.counters.duplicates++
      return 'duplicate'
    }
    ids.add(t.id)

    // an unsealed minute's bar is the aggregator's own, folded from trades (emptyMinuteBar): every field is known
    const bar = ms.bar as TradeMinuteBar
    if (bar.trades === 0) {
      bar.open = bar.high = bar.low = bar.close = price
      ms.openTs = ms.closeTs = ts
    } else {
      if (ts < ms.openTs) {
        ms.openTs = ts
        bar.open = price
      }
      if (ts >= ms.closeTs) {
        ms.closeTs = ts
        bar.close = price
      }
    }
    addTrade(bar, t)
    this.counters.accepted++
    if (ts > st.lastEventTs) st.lastEventTs = ts

    if (ts > st.watermark) {
      st.watermark = ts
      if (ts >= st.nextCloseAt) this.close(st)
    }
    return 'accepted'
  }

  /**
   * Move the watermark to `now` (wall clock or a source's event time) for one market, or for every market seen so
   * far, closing the minutes that ended more than the grace before it. The watermark never moves back.
   */
  advance(now: number, market?: MarketKey): void {
    if (market) {
      const st = this.state(market.exchange, market.coin, market.marketType)
      if (now > st.watermark) {
        st.watermark = now
        if (now >= st.nextCloseAt) this.close(st)
      }
      return
    }
    for (const st of this.all) {
      if (now > st.watermark) {
        st.watermark = now
        if (now >= st.nextCloseAt) this.close(st)
      }
    }
  }

  /**
   * Ignore trades at or before the minute `lastFinalizedMinuteTs` (the last minute already in the store), so a
   * restarted source replaying history adds no duplicates. Open minutes at or before it are discarded; the minutes
   * up to it count as finalized. `lastClose`, that minute's stored close, lets a quiet minute right after it be flat
   * at it. The cursor never moves back.
   */
  setResumeCursor(market: MarketKey, lastFinalizedMinuteTs: number, lastClose?: number): void {
    const st = this.state(market.exchange, market.coin, market.marketType)
    const last = Math.floor(lastFinalizedMinuteTs / MINUTE_MS) * MINUTE_MS
    const end = last + MINUTE_MS
    if (end <= st.cursorEnd) return
    st.cursorEnd = end
    st.resumeFrom(last, lastClose)
    if (st.open.length && st.open[0]!.bar.ts < end) {
      const keep = st.open.filter((m) => m.bar.ts >= end)
      this.openCount -= st.open.length - keep.length
      st.open = keep
      st.cur = null
    }
    if (end > st.closedBefore) {
      st.closedBefore = end
      st.nextCloseAt = end + MINUTE_MS + this.graceMs
      st.retained = st.retained.filter((r) => r.minute >= end)
    }
    if (st.watermark >= st.nextCloseAt) this.close(st)
  }

  /**
   * Continue a stored partial minute (see drainAll): the bar holds every trade up to `coveredTo`, so trades at or
   * before it are skipped as already stored, and later trades of the minute are folded into the bar, which then
   * closes as usual. The source must replay from just after `coveredTo` for the minute to come out whole.
   */
  reopen(bar: MinuteBar, coveredTo: number): void {
    const st = this.state(bar.exchange, bar.coin, bar.marketType)
    const minute = Math.floor(bar.ts / MINUTE_MS) * MINUTE_MS
    if (!(coveredTo >= minute && coveredTo < minute + MINUTE_MS)) throw new RangeError('coveredTo must lie inside the minute')
    if (st.open.length || st.closedBefore > minute) throw new Error(`reopen ${bar.exchange}:${bar.coin}:${bar.marketType} at ${minute}: the market already moved on`)
    st.cursorEnd = Math.max(st.cursorEnd, coveredTo + 1)
    st.closedBefore = minute
    st.nextCloseAt = minute + MINUTE_MS + this.graceMs
    if (coveredTo > st.watermark) st.watermark = coveredTo
    const vap = new Map([...bar.vap].map(([k, [b, s]]) => [k, [b, s] as [number, number]]))
    st.cur = { bar: { ...bar, ts: minute, vap }, openTs: minute, closeTs: coveredTo, ids: new Set(), sealed: false }
    st.open = [st.cur]
    this.openCount++
  }

  /** the bars finalized since the last call, per market in minute order; they are forgotten here */
  drainClosed(): MinuteBar[] {
    const out = this.outbox
    this.outbox = []
    return out
  }

  /**
   * For shutdown: every closed bar plus the open minutes, which are finalized by this call — a later trade for one
   * of them counts as late_dropped. An open minute whose end the market's watermark has not reached holds only the
   * trades seen so far: `onPartial` gets it with the ts of its newest trade (what it covers up to).
   */
  drainAll(onPartial?: (bar: MinuteBar, coveredTo: number) => void): MinuteBar[] {
    const out = this.outbox
    this.outbox = []
    for (const st of this.all) {
      if (!st.open.length && !st.heard.length) continue
      // an open minute the market's watermark has not passed holds only the trades seen so far: a partial minute
      for (const ms of st.open) if (!ms.sealed && st.watermark < ms.bar.ts + MINUTE_MS) onPartial?.(ms.bar, ms.closeTs)
      this.openCount -= st.open.length
      this.finalize(st, Infinity, out)
      const end = st.lastCloseMinute + MINUTE_MS
      if (end > st.closedBefore) {
        st.closedBefore = end
        st.nextCloseAt = end + MINUTE_MS + this.graceMs
      }
    }
    return out
  }

  get stats(): AggregatorStats {
    return { ...this.counters, openBars: this.openCount, pendingBars: this.outbox.length, markets: this.all.length }
  }

  /** the market's watermark (max trade ts seen or advanced to), undefined for an unseen market */
  watermark(market: MarketKey): number | undefined {
    const st = this.find(market.exchange, market.coin, market.marketType)
    return st && st.watermark > -Infinity ? st.watermark : undefined
  }

  // ---------------------------------------------------------------------------------------------------------------

  private find(exchange: string, coin: string, marketType: MarketType): MarketState | undefined {
    return (marketType === 'perp' ? this.perp : this.spot).get(exchange)?.get(coin)
  }

  private state(exchange: TradeEvent['exchange'], coin: string, marketType: MarketType): MarketState {
    const top = marketType === 'perp' ? this.perp : marketType === 'spot' ? this.spot : undefined
    if (!top) throw new TypeError(`unknown marketType ${String(marketType)}`)
    let byCoin = top.get(exchange)
    if (!byCoin) top.set(exchange, (byCoin = new Map()))
    let st = byCoin.get(coin)
    if (!st) {
      st = new MarketState({ exchange, coin, marketType }, this.tradeSource)
      if (this.feedFrom !== undefined) st.feedFrom = this.feedFrom
      byCoin.set(coin, st)
      this.all.push(st)
    }
    return st
  }

  private minuteState(st: MarketState, minute: number): MinuteState {
    const open = st.open
    let i = open.length
    // search from the newest: live trades almost always go to the last minute
    while (i > 0 && open[i - 1]!.bar.ts > minute) i--
    if (i > 0 && open[i - 1]!.bar.ts === minute) return open[i - 1]!
    const ms: MinuteState = { bar: emptyMinuteBar(st.key, minute, this.tradeSource), openTs: 0, closeTs: 0, ids: new Set(), sealed: false }
    open.splice(i, 0, ms)
    this.openCount++
    return ms
  }

  /** finalize the minutes that ended more than the grace before the watermark */
  private close(st: MarketState): void {
    const boundary = Math.floor((st.watermark - this.graceMs) / MINUTE_MS) * MINUTE_MS
    if (boundary <= st.closedBefore) return
    st.closedBefore = boundary
    st.nextCloseAt = boundary + MINUTE_MS + this.graceMs
    const before = st.open.length
    this.finalize(st, boundary, this.outbox)
    this.openCount -= before - st.open.length
    // forget ids of minutes closed longer than the retention ago
    const r = st.retained
    let drop = 0
    const forgetBefore = st.watermark - this.graceMs - this.dedupeRetentionMs - MINUTE_MS
    while (drop < r.length && r[drop]!.minute < forgetBefore) drop++
    if (drop > 0) r.splice(0, drop)
  }

  /** finalize the market's minutes before boundary (bars and flat quiet minutes) into out */
  private finalize(st: MarketState, boundary: number, out: MinuteBar[]): void {
    const { bars, flat } = st.finalize(boundary, (ms) => this.retain(st, ms))
    for (const b of bars) {
      out.push(b)
      const from = st.coveredFrom(b)
      if (from !== null) this.short.set(b, from)
    }
    this.counters.closedBars += bars.length
    this.counters.flatBars += flat
  }

  private retain(st: MarketState, ms: MinuteState): void {
    if (this.dedupeRetentionMs > 0) st.retained.push({ minute: ms.bar.ts, ids: ms.ids })
  }

  private late(st: MarketState, id: string, minute: number, t?: TradeEvent): FoldResult {
    for (const r of st.retained) {
      if (r.minute === minute) {
        if (r.ids.has(id)) {
          this.counters.duplicates++
          return 'duplicate'
        }
        break
      }
    }
    this.counters.lateDropped++
    if (t) this.onLateDrop?.(t)
    return 'late_dropped'
  }
}
