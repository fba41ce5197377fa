// Freshness of one exchange's feed -> the `status` the exchanges endpoint reports (spec: operational | degraded | down).

export type FeedStatus = 'operational' | 'degraded' | 'down'

export interface FeedStatusOptions {
  /** silence after which the feed counts as degraded, ms (default 30 000) */
  degradedAfterMs?: number
  /** silence after which the feed counts as down, ms (default 120 000) */
  downAfterMs?: number
}

export const FEED_STATUS_DEFAULTS = { degradedAfterMs: 30_000, downAfterMs: 120_000 } as const

/**
 * 'operational' while the last event is younger than `degradedAfterMs`, 'degraded' until `downAfterMs`,
 * 'down' after that or when no event was ever seen. A last event in the future (clock skew) counts as fresh.
 */
export function feedStatus(lastEventAt: number | null, now: number, opts: FeedStatusOptions = {}): FeedStatus {
  const degradedAfter = opts.degradedAfterMs ?? FEED_STATUS_DEFAULTS.degradedAfterMs
  const downAfter = opts.downAfterMs ?? FEED_STATUS_DEFAULTS.downAfterMs
  if (!(downAfter >= degradedAfter)) throw new RangeError('feedStatus: downAfterMs must be >= degradedAfterMs')
  if (lastEventAt === null || !Number.isFinite(lastEventAt)) return 'down'
  const age = Math.max(0, now - lastEventAt)
  if (age >= downAfter) return 'down'
  if (age >= degradedAfter) return 'degraded'
  return 'operational'
}
