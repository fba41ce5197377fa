// Series parameters and paging, shared by every endpoint that returns points over time (docs/contract.md#series).
// A series covers a window [start, end): `lookback` back from now, or `start_time`/`end_time`. Points sit at
// UTC-aligned interval starts inside the window, ascending. A page holds at most `limit` interval slots; when more
// remain, the answer carries a cursor (meta.next in REST, `next` in GraphQL) that fixes the window, so paging through
// a lookback window does not drift while time passes.
import type { z } from 'zod'
import { coinParam, cursorParam, enumParam, EXAMPLE_END_MS, EXAMPLE_START_MS, exchangeParam, intParam, optionalEnumParam, parsingNow, ruleIssue, timestampParam } from './params.js'
import { Interval, INTERVAL_MS, INTERVALS, Lookback, LOOKBACK_MS } from './windows.js'

/** the default window when neither lookback nor start_time is given */
const DEFAULT_LOOKBACK: Lookback = '24h'
/** the longest window one series request may span (pages split it further) */
const MAX_SPAN_MS = 366 * 86_400_000
const DEFAULT_LIMIT = 500
export const MAX_LIMIT = 5000

// ---------------------------------------------------------------------------------------------------- cursors

interface CursorState {
  /** window start and end, Unix ms */
  s: number
  e: number
  /** where the next page starts: an interval start (series) or an endpoint's own position (lists) */
  f: number
  /** fingerprint of the parameters the cursor belongs to */
  k: string
}

// the parameters themselves, in a fixed order (a cursor is opaque to callers, not secret)
const fingerprint = (parts: Record<string, unknown>): string =>
  JSON.stringify(Object.keys(parts).sort().map((k) => [k, parts[k] ?? null]))

export function encodeCursor(c: CursorState): string {
  return Buffer.from(JSON.stringify([c.s, c.e, c.f, c.k])).toString('base64url')
}

export function decodeCursor(text: string): CursorState | null {
  if (text.length > 2000 || !/^[A-Za-z0-9_-]+$/.test(text)) return null
  try {
    const v: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'))
    if (!Array.isArray(v) || v.length !== 4) return null
    const [s, e, f, k] = v as unknown[]
    if (![s, e, f].every((x) => typeof x === 'number' && Number.isSafeInteger(x)) || typeof k !== 'string') return null
    if (!((s as number) < (e as number))) return null
    return { s: s as number, e: e as number, f: f as number, k }
  } catch {
    return null
  }
}

// the parameters that place a page rather than choose the data: everything else (the window's parameters too)
// must be what the cursor's first page was asked with
const PLACING = new Set(['limit', 'cursor'])
/** the fingerprint of the parameters that choose the data (coin, exchange, interval, window, filters) */
export const cursorKey = (values: Record<string, unknown>): string =>
  fingerprint(Object.fromEntries(Object.entries(values).filter(([k]) => !PLACING.has(k))))

// ---------------------------------------------------------------------------------------------------- parameters

export const limitParam = (what = 'points', dflt = DEFAULT_LIMIT) =>
  intParam({ min: 1, max: MAX_LIMIT, default: dflt, description: `most ${what} per page; meta.next pages on` })

/** the window and paging parameters of every series (no coin/exchange/interval: endpoints add those they take) */
export const windowParams = () => ({
  lookback: optionalEnumParam(Lookback, `how far back from end_time (or now) the window reaches; default ${DEFAULT_LOOKBACK}; not together with start_time`, DEFAULT_LOOKBACK),
  start_time: timestampParam('window start, Unix ms (inclusive); instead of lookback', EXAMPLE_START_MS),
  end_time: timestampParam('window end, Unix ms (exclusive); default now', EXAMPLE_END_MS),
  limit: limitParam(),
  cursor: cursorParam((s) => decodeCursor(s) !== null),
})

/** the common series parameters: coin (required), exchange (omitted = every venue plus the aggregate), interval, window, paging */
export const seriesParams = () => ({
  coin: coinParam(true),
  exchange: exchangeParam('one exchange; omitted = every venue and the aggregate across them'),
  interval: enumParam(Interval, { description: 'point spacing (UTC-aligned)', default: '1h' }),
  ...windowParams(),
})

export interface WindowValues {
  interval?: Interval
  lookback?: Lookback
  start_time?: number
  end_time?: number
  /** the older name of end_time (ohlc, volume profile) */
  end?: number
  cursor?: string
}

/** [start, end) of a request, before paging (a cursor carries its window) */
export function windowOf(v: WindowValues, now: number): { start: number; end: number } {
  const c = v.cursor ? decodeCursor(v.cursor) : null
  if (c) return { start: c.s, end: c.e }
  const end = v.end_time ?? v.end ?? now
  return { start: v.start_time ?? end - LOOKBACK_MS[v.lookback ?? DEFAULT_LOOKBACK], end }
}

type Check = z.core.$RefinementCtx

/** the rules across the window parameters; add with .superRefine(seriesRules) on the endpoint's z.object */
export function seriesRules(v: WindowValues & Record<string, unknown>, ctx: Check): void {
  if (v.cursor) {
    const c = decodeCursor(v.cursor)
    // an unreadable cursor is the cursor parameter's own error
    if (c && c.k !== cursorKey(v)) ctx.addIssue(ruleIssue('cursor', 'cursor belongs to other parameters: pass it with the same parameters as the page it came from (only limit may change).'))
    return
  }
  if (v.lookback !== undefined && v.start_time !== undefined)
    return ctx.addIssue(ruleIssue('lookback', 'give either lookback or start_time (with an optional end_time), not both.'))
  const { start, end } = windowOf(v, parsingNow())
  if (v.start_time !== undefined && start >= end) return ctx.addIssue(ruleIssue('start_time', 'start_time must be before end_time (or before now when end_time is omitted).'))
  if (end - start > MAX_SPAN_MS) return ctx.addIssue(ruleIssue('start_time', `the window may span at most ${MAX_SPAN_MS / 86_400_000} days; page through longer histories with several windows.`))
  if (v.interval && INTERVAL_MS[v.interval] > end - start)
    ctx.addIssue(ruleIssue('interval', `interval ${v.interval} is longer than the window; choose one that fits.`, INTERVALS.filter((i) => INTERVAL_MS[i] <= end - start)))
}

// ---------------------------------------------------------------------------------------------------- pages

export interface SeriesPage {
  /** the whole window the request (or its cursor) asked for */
  start: number
  end: number
  intervalMs: number
  /** this page's slots: interval starts t with from ≤ t < to */
  from: number
  to: number
  /** the interval starts of this page, ascending */
  slots: number[]
  /** cursor for the next page, null on the last */
  next: string | null
}

/**
 * The page a request asks for. Slots are the UTC-aligned interval starts inside [start, end) (the first slot is the
 * first whole interval; the last may still be in progress). A page takes at most `limit` slots from the cursor's
 * position (or the first slot).
 */
export function pageOf(v: WindowValues & Record<string, unknown>, intervalMs: number, now: number): SeriesPage {
  const { start, end } = windowOf(v, now)
  const first = Math.ceil(start / intervalMs) * intervalMs
  const c = v.cursor ? decodeCursor(v.cursor) : null
  const from = c ? Math.max(first, Math.ceil(c.f / intervalMs) * intervalMs) : first
  const limit = typeof v.limit === 'number' ? v.limit : DEFAULT_LIMIT
  const to = Math.min(end, from + limit * intervalMs)
  const slots: number[] = []
  for (let t = from; t < to; t += intervalMs) slots.push(t)
  const next = to < end && Math.ceil(to / intervalMs) * intervalMs < end ? encodeCursor({ s: start, e: end, f: to, k: cursorKey(v) }) : null
  return { start, end, intervalMs, from, to, slots, next }
}
