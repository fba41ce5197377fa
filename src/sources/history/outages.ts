// When a venue's live feed was out: its trade or book streams (a WebSocket closed or reconnecting) or its ticker or
// open-interest polls failing, or no event at all for longer than the feed counts as degraded. When it is back,
// gap repair asks the venue's history for the span (from a minute before the outage to when the repair runs, a
// little after the recovery, so the minute the feed came back in is closed and can be completed from the kline).
// A blip between two checks (a loop failed and recovered at once) is repaired the same way over the last check.
import { MINUTE_MS } from '../../domain/time.js'
import { FEED_STATUS_DEFAULTS } from '../../read/feed-status.js'
import type { ConnectorHealth } from '../connectors/connector-options.js'

/** loops whose failure means market data was missed (positioning or funding polls failing do not cut minutes) */
const DATA_LOOPS = /^(trades:|book:|tickers$|open-interest$)/

export interface OutageWatchOptions {
  health: () => ConnectorHealth
  now: () => number
  /** a repair of [from, now at the time it runs) */
  repair: (from: number) => void
  /** how often health is read (default 5 s) */
  everyMs?: number
  /** how long after the recovery the repair runs (default 90 s: the recovery's minute has closed) */
  delayMs?: number
}

export function watchOutages(o: OutageWatchOptions): () => void {
  let downSince: number | null = null
  let lastErrors = o.health().errors
  let lastCheck = o.now()
  const timers = new Set<ReturnType<typeof setTimeout>>()
  const later = (from: number) => {
    const t = setTimeout(() => {
      timers.delete(t)
      o.repair(from)
    }, o.delayMs ?? 90_000)
    t.unref?.()
    timers.add(t)
  }
  const check = () => {
    const h = o.health()
    const now = o.now()
    const stale = h.lastEventAt !== null && now - h.lastEventAt > FEED_STATUS_DEFAULTS.degradedAfterMs
    const failing = h.failing.some((n) => DATA_LOOPS.test(n))
    const blip = h.errors > lastErrors
    if (failing || stale) downSince ??= stale && h.lastEventAt !== null ? Math.min(h.lastEventAt, lastCheck) : lastCheck
    else if (downSince !== null) {
      later(downSince - MINUTE_MS)
      downSince = null
    } else if (blip) later(lastCheck - MINUTE_MS)
    lastErrors = h.errors
    lastCheck = now
  }
  const timer = setInterval(check, o.everyMs ?? 5_000)
  timer.unref?.()
  return () => {
    clearInterval(timer)
    for (const t of timers) clearTimeout(t)
  }
}
