// One market's minutes inside the aggregator: the open (still accepting) minutes, the ids kept for dedupe, which
// minutes the feed was heard in, and the rule that finalizes them — a minute with trades (or a source's bar) is its
// bar; a quiet minute of a live feed is a flat zero-volume bar at the previous close; a minute nobody heard stays a
// gap.
//
// Quiet minute rule: minute q gets a flat bar (open = high = low = close = the previous minute's close, volumes and
// trade count 0) only when
//   1. the market delivered an event (ticker, book, open interest, trade) stamped inside q — its feed was up then;
//   2. it delivered one stamped at or after q's end before q was finalized — the feed carried on past q, so a trade
//      of q would have arrived (a source's events arrive in order);
//   3. minute q − 1 was finalized with a bar (traded or flat) — the previous close is known and is the close just
//      before q, never one from before a gap.
import { flatMinuteBar, type MarketKey, type MinuteBar, type TradeSource } from '../../domain/minute-bars.js'
import { MINUTE_MS } from '../../domain/time.js'

export interface MinuteState {
  bar: MinuteBar
  /** ts of the trade that set open / close */
  openTs: number
  closeTs: number
  ids: Set<string>
  /** the bar came whole from a source (history): trades cannot be folded into it */
  sealed: boolean
}

export interface RetainedIds {
  minute: number
  ids: Set<string>
}

/** the id a source's whole-minute bar is kept under for dedupe */
export const BAR_ID = '\u0000bar'

export class MarketMinutes {
  readonly key: MarketKey
  /** max trade ts seen, or the last advance() */
  watermark = -Infinity
  /** every minute with start < closedBefore is final */
  closedBefore = -Infinity
  /** the watermark at which closedBefore moves on: closedBefore + 60 s + grace */
  nextCloseAt = -Infinity
  /** trades with ts < cursorEnd are already in the store (resume) */
  cursorEnd = -Infinity
  /**
   * from when the source delivers the market's trades (a pipeline's start): a minute begun before it holds only part
   * of its trades; -Infinity: always; NaN: from the market's first trade, ticker or book (a live venue's first event)
   */
  feedFrom = -Infinity
  /** open minutes, ascending by minute (usually one or two) */
  open: MinuteState[] = []
  /** the minute the last trade went to (fast path) */
  cur: MinuteState | null = null
  /** ids of recently closed minutes, ascending by minute */
  retained: RetainedIds[] = []
  /** minutes not yet final in which the market delivered an event, ascending */
  heard: number[] = []
  /** newest ts of any event of the market */
  lastEventTs = -Infinity
  /** close of the newest finalized bar, and its minute */
  lastClose = NaN
  lastCloseMinute = -Infinity

  constructor(
    key: MarketKey,
    /** what the minutes folded here are marked as (the simulator's trades: 'simulated') */
    readonly source: TradeSource = 'trades',
  ) {
    this.key = key
  }

  /** the feed delivered an event of this market stamped ts (`startsFeed`: one that shows its stream is up then) */
  hear(ts: number, startsFeed = true): void {
    if (startsFeed && this.feedFrom !== this.feedFrom) this.feedFrom = ts
    if (ts > this.lastEventTs) this.lastEventTs = ts
    const minute = Math.floor(ts / MINUTE_MS) * MINUTE_MS
    if (minute < this.closedBefore) return
    const h = this.heard
    const last = h.length ? h[h.length - 1]! : -Infinity
    if (minute > last) h.push(minute)
    else if (minute !== last && !h.includes(minute)) {
      h.push(minute)
      h.sort((a, b) => a - b)
    }
  }

  /**
   * Finalize every minute before `boundary`, in minute order: open minutes become their bars, quiet minutes that
   * meet the rule above become flat bars. Returns the bars; the finalized open minutes are handed to `retire`.
   */
  finalize(boundary: number, retire: (ms: MinuteState) => void): { bars: MinuteBar[]; flat: number } {
    const bars: MinuteBar[] = []
    let flat = 0
    const open = this.open
    const heard = this.heard
    let n = 0
    let s = 0
    for (;;) {
      const om = n < open.length && open[n]!.bar.ts < boundary ? open[n]!.bar.ts : Infinity
      const hm = s < heard.length && heard[s]! < boundary ? heard[s]! : Infinity
      if (om === Infinity && hm === Infinity) break
      if (hm < om) {
        s++
        if (this.lastCloseMinute === hm - MINUTE_MS && this.lastEventTs >= hm + MINUTE_MS) {
          bars.push(flatMinuteBar(this.key, hm, this.lastClose, this.source))
          flat++
          this.lastCloseMinute = hm
        }
        continue
      }
      if (hm === om) s++
      const ms = open[n++]!
      bars.push(ms.bar)
      retire(ms)
      this.lastClose = ms.bar.close
      this.lastCloseMinute = ms.bar.ts
    }
    if (n > 0) {
      open.splice(0, n)
      if (this.cur !== null && this.cur.bar.ts < boundary) this.cur = null
    }
    if (s > 0) heard.splice(0, s)
    return { bars, flat }
  }

  /**
   * where a bar finalized by this pipeline begins to hold its trades, when that is after its start: a minute begun
   * before the source started delivering, and not stored up to there (a reopened partial minute is), is short
   */
  coveredFrom(bar: MinuteBar): number | null {
    const from = this.feedFrom === this.feedFrom ? this.feedFrom : Infinity
    return bar.ts < from && this.cursorEnd < from ? Math.min(from, bar.ts + MINUTE_MS - 1) : null
  }

  /** the store already holds every minute up to lastMinute, whose close (when known) continues the series */
  resumeFrom(lastMinute: number, close: number | undefined): void {
    if (close !== undefined && close > 0 && Number.isFinite(close) && lastMinute >= this.lastCloseMinute) {
      this.lastClose = close
      this.lastCloseMinute = lastMinute
    }
    const end = lastMinute + MINUTE_MS
    this.heard = this.heard.filter((m) => m >= end)
  }
}
