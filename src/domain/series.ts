// Series parameters and paging, shared by every endpoint that returns points over time (docs/contract.md#series).
// A series covers a window [start, end): `lookback` back from now, or `start_time`/`end_time`. Points sit at
// UTC-aligned interval starts inside the window, ascending. A page holds at most `limit` interval slots; when more
// remain, the answer carries a cursor (meta.next in REST, `next` in GraphQL) that fixes the window, so paging through
// a lookback window does not drift while time passes.
import type { z } from 'zod'
import { openCursor, sealCursor, type CursorState } from './cursor.js'
import { AHEAD_MS, coinParam, CURSOR_REFUSED, cursorParam, cursorScopeOf, EARLIEST_MS, enumParam, EXAMPLE_END_MS, EXAMPLE_START_MS, exchangeParam, intParam, optionalEnumParam, parsingNow, ruleIssue, timestampParam } from './params.js'
import { Interval, INTERVAL_MS, INTERVALS, Lookback, LOOKBACK_MS } from './windows.js'

/** the default window when neither lookback nor start_time is given */
const DEFAULT_LOOKBACK: Lookback = '24h'
/** the longest window one series request may span (pages split it further) */
const MAX_SPAN_MS = 366 * 86_400_000
const DEFAULT_LIMIT = 500
export const MAX_LIMIT = 5000

// ---------------------------------------------------------------------------------------------------- cursors

/** the position of a parsed request's cursor (null without one); the parse refused every cursor that does not open */
export function cursorOf(v: { cursor?: string } & Record<string, unknown>): CursorState | null {
  if (!v.cursor) return null
  const scope = cursorScopeOf(v)
  const c = scope && openCursor(v.cursor, scope, v)
  if (!c) throw new Error('a cursor reached a resolver without the parse having opened it')
  return c
}

/** the cursor of the page after this one, sealed for the endpoint and the parameters the values were parsed for */
export function nextCursor(v: Record<string, unknown>, c: CursorState): string {
  const scope = cursorScopeOf(v)
  if (!scope) throw new Error('paging values that were not parsed for a paged endpoint')
  return sealCursor(c, scope, v)
}

/** a rule: the request's cursor opens (this endpoint issued it for these parameters) and `fits` its position */
export function cursorRule(v: { cursor?: string } & Record<string, unknown>, ctx: Check, fits: (c: CursorState) => boolean): void {
  if (!v.cursor) return
  const scope = cursorScopeOf(v)
  const c = scope && openCursor(v.cursor, scope, v)
  if (!c) return ctx.addIssue(ruleIssue('cursor', CURSOR_REFUSED))
  if (!fits(c)) ctx.addIssue(ruleIssue('cursor', CURSOR_OUTSIDE))
}

const CURSOR_OUTSIDE = 'cursor holds a window these parameters do not allow: pass meta.next of the previous page unchanged, with the same parameters (only limit may change).'

// ---------------------------------------------------------------------------------------------------- parameters

export const limitParam = (what = 'points', dflt = DEFAULT_LIMIT) =>
  intParam({ min: 1, max: MAX_LIMIT, default: dflt, description: `most ${what} per page; meta.next pages on` })

/** the window and paging parameters of every series (no coin/exchange/interval: endpoints add those they take) */
export const windowParams = () => ({
  lookback: optionalEnumParam(Lookback, `how far back from end_time (or now) the window reaches; default ${DEFAULT_LOOKBACK}; not together with start_time`, DEFAULT_LOOKBACK),
  start_time: timestampParam('window start, Unix ms (inclusive); instead of lookback', EXAMPLE_START_MS),
  end_time: timestampParam('window end, Unix ms (exclusive); default now', EXAMPLE_END_MS),
  limit: limitParam(),
  cursor: cursorParam(),
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
export function windowOf(v: WindowValues & Record<string, unknown>, now: number): { start: number; end: number } {
  const c = cursorOf(v)
  if (c) return { start: c.s, end: c.e }
  return paramWindow(v, now)
}

function paramWindow(v: WindowValues, now: number): { start: number; end: number } {
  const end = v.end_time ?? v.end ?? now
  return { start: v.start_time ?? end - LOOKBACK_MS[v.lookback ?? DEFAULT_LOOKBACK], end }
}

type Check = z.core.$RefinementCtx

/**
 * The span rules, for the parameters' window and a cursor's alike: inside 2009 … a day ahead of now, at most
 * MAX_SPAN_MS long, and no shorter than the interval. A cursor's window must moreover be one these very parameters
 * make: starting at start_time or lookback long, ending at end_time when it is given.
 */
function cursorWindowFits(v: WindowValues, c: CursorState, now: number): boolean {
  if (!(EARLIEST_MS <= c.s && c.s < c.e && c.e <= now + AHEAD_MS && c.e - c.s <= MAX_SPAN_MS)) return false
  if (v.interval && INTERVAL_MS[v.interval] > c.e - c.s) return false
  if (v.start_time !== undefined ? c.s !== v.start_time : c.e - c.s !== LOOKBACK_MS[v.lookback ?? DEFAULT_LOOKBACK]) return false
  const end = v.end_time ?? v.end
  return end === undefined || c.e === end
}

/**
 * The rules across the window parameters, for an endpoint whose cursor position `position` must fit (given the
 * cursor's window); add with .superRefine(...) on the endpoint's z.object. seriesRules: positions are interval starts.
 */
export const windowRules =
  (position: (c: CursorState) => boolean) =>
  (v: WindowValues & Record<string, unknown>, ctx: Check): void => {
    if (v.cursor) return cursorRule(v, ctx, (c) => cursorWindowFits(v, c, parsingNow()) && position(c))
    if (v.lookback !== undefined && v.start_time !== undefined)
      return ctx.addIssue(ruleIssue('lookback', 'give either lookback or start_time (with an optional end_time), not both.'))
    const { start, end } = paramWindow(v, parsingNow())
    if (v.start_time !== undefined && start >= end) return ctx.addIssue(ruleIssue('start_time', 'start_time must be before end_time (or before now when end_time is omitted).'))
    if (end - start > MAX_SPAN_MS) return ctx.addIssue(ruleIssue('start_time', `the window may span at most ${MAX_SPAN_MS / 86_400_000} days; page through longer histories with several windows.`))
    if (v.interval && INTERVAL_MS[v.interval] > end - start)
      ctx.addIssue(ruleIssue('interval', `interval ${v.interval} is longer than the window; choose one that fits.`, INTERVALS.filter((i) => INTERVAL_MS[i] <= end - start)))
  }

/** the rules of a series: its cursor's next page starts at an interval start inside the window */
export const seriesRules = windowRules((c) => c.s <= c.f && c.f < c.e)

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
  const c = cursorOf(v)
  const from = c ? Math.max(first, Math.ceil(c.f / intervalMs) * intervalMs) : first
  const limit = typeof v.limit === 'number' ? v.limit : DEFAULT_LIMIT
  const to = Math.min(end, from + limit * intervalMs)
  const slots: number[] = []
  for (let t = from; t < to; t += intervalMs) slots.push(t)
  const next = to < end && Math.ceil(to / intervalMs) * intervalMs < end ? nextCursor(v, { s: start, e: end, f: to }) : null
  return { start, end, intervalMs, from, to, slots, next }
}
