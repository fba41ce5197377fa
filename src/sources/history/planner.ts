// What a venue's history still needs, as pages (pure). Per series (coin, kind) the window [start, end) less what
// history_progress says is stored: the span since the last run's end (a restart's downtime: repair priority) and the
// older part not yet filled (backfill), each cut into pages of the venue's page span from the newest down. The venue's
// retention and the market's listing end a series early. Pages of every series run newest first (a heap on their
// end), so recent windows fill across all coins before older ones.
import type { BudgetPriority } from './budget.js'
import type { SeriesProgress } from '../../store/market/history.js'
import type { ExhaustedReason, HistoryKind } from '../../domain/venue-history.js'

export interface PlannedPage {
  coin: string
  kind: HistoryKind
  from: number
  to: number
  priority: Exclude<BudgetPriority, 'live'>
}

export interface SeriesPlan {
  /** the ranges still to fetch, newest first */
  ranges: { from: number; to: number; priority: PlannedPage['priority'] }[]
  /** where the series starts for this window: the window's start, or later for retention or listing */
  start: number
  /** why it starts after the window's start */
  cut: { ts: number; reason: ExhaustedReason } | null
}

/** the venue keeps a little less than its stated retention by the time a request lands: stay this far inside it */
export const RETENTION_MARGIN_MS = 10 * 60_000

export function planSeries(window: { start: number; end: number }, progress: SeriesProgress | undefined, retentionMs: number, now: number): SeriesPlan {
  let start = window.start
  let cut: SeriesPlan['cut'] = null
  if (Number.isFinite(retentionMs) && now - retentionMs + RETENTION_MARGIN_MS > start) {
    start = now - retentionMs + RETENTION_MARGIN_MS
    cut = { ts: start, reason: 'retention' }
  }
  // a listing (or a kind not published) found before ends the series there for every later window too
  if (progress?.exhaustedBefore != null && progress.exhaustedReason !== 'retention' && progress.exhaustedBefore > start) {
    start = progress.exhaustedBefore
    cut = { ts: start, reason: progress.exhaustedReason ?? 'listing' }
  }
  const end = window.end
  if (!(end > start)) return { ranges: [], start: end, cut }
  if (!progress || progress.coveredTo <= progress.coveredFrom) return { ranges: [{ from: start, to: end, priority: 'backfill' }], start, cut }
  const ranges: SeriesPlan['ranges'] = []
  // since the last run's newest page: the downtime (and whatever the live feed missed), repaired first
  if (progress.coveredTo < end) ranges.push({ from: Math.max(start, progress.coveredTo), to: end, priority: 'repair' })
  if (progress.coveredFrom > start) ranges.push({ from: start, to: Math.min(end, progress.coveredFrom), priority: 'backfill' })
  return { ranges: ranges.filter((r) => r.to > r.from), start, cut }
}

/** a range as pages of at most `spanMs`, newest first */
export function pagesOf(range: { from: number; to: number }, spanMs: number): { from: number; to: number }[] {
  const out: { from: number; to: number }[] = []
  for (let to = range.to; to > range.from; to -= spanMs) out.push({ from: Math.max(range.from, to - spanMs), to })
  return out
}

/**
 * The sub-span of [from, to) that is not yet stored, as one request (a page's span is one request whatever it holds
 * inside): from the oldest missing step to the end of the newest; null when every step is stored.
 */
export function missingSpan(from: number, to: number, stepMs: number, stored: (stepStart: number) => boolean): { from: number; to: number } | null {
  let lo: number | null = null
  let hi: number | null = null
  for (let t = Math.ceil(from / stepMs) * stepMs; t < to; t += stepMs) {
    if (stored(t)) continue
    lo ??= t
    hi = t + stepMs
  }
  return lo === null || hi === null ? null : { from: Math.max(from, lo), to: Math.min(to, hi) }
}

/** merge a finished span into a series' covered span when they touch; the spans not yet touching wait in `done` */
export function extendCovered(covered: { from: number; to: number }, done: { from: number; to: number }[]): { from: number; to: number } {
  const c = { ...covered }
  done.sort((a, b) => b.to - a.to)
  let moved = true
  while (moved) {
    moved = false
    for (let i = 0; i < done.length; i++) {
      const d = done[i]!
      if (d.to >= c.from && d.from <= c.to) {
        c.from = Math.min(c.from, d.from)
        c.to = Math.max(c.to, d.to)
        done.splice(i, 1)
        moved = true
        break
      }
    }
  }
  return c
}
