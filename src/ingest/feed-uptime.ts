// The sources' feed states (EventSink.feed) as spans of uptime for feed_uptime: a stream that went up is open until it
// goes down, and every flush writes it up to the pipeline's clock, so a process that dies leaves its span ending at
// its last flush. A quiet stream stays up: liveness is the source's subscription, never the presence of data.
import type { FeedStateEvent } from '../domain/events.js'
import type { FeedSpan } from '../store/market/feed-uptime.js'

const sameCoins = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((c, i) => c === b[i])

export class FeedUptime {
  private readonly open = new Map<string, Omit<FeedSpan, 'to'>>()
  private pending: FeedSpan[] = []

  add(s: FeedStateEvent): void {
    const key = `${s.exchange}|${s.stream}`
    const coins = [...new Set(s.coins)].sort()
    const base = { exchange: s.exchange, stream: s.stream, coins }
    if (s.up && s.until !== undefined) {
      if (s.until > s.ts) this.pending.push({ ...base, from: s.ts, to: s.until })
      return
    }
    const cur = this.open.get(key)
    if (s.up && cur && sameCoins(cur.coins, coins)) return
    // down, or up over other coins: the open span ends here
    if (cur) {
      this.open.delete(key)
      if (s.ts > cur.from) this.pending.push({ ...cur, to: s.ts })
    }
    if (s.up) this.open.set(key, { ...base, from: s.ts })
  }

  /** the spans to write: those closed, and each open one up to `now` */
  take(now: number): FeedSpan[] {
    const out = this.pending
    this.pending = []
    for (const o of this.open.values()) if (now > o.from) out.push({ ...o, to: now })
    return out
  }

  /** spans a failed write did not store, for the next flush */
  putBack(spans: readonly FeedSpan[]): void {
    this.pending = [...spans, ...this.pending]
  }
}
