// What a figure covers: the venues in it, those left out and why (listing, feed status, data), and the span of the
// data against the window asked (docs/methodology.md#coverage). Shared by every endpoint's use case.
import { buildCoverage, type Coverage, type CoverageGap, type WindowRange } from '../analytics/coverage.js'
import { EXCHANGES } from '../domain/exchanges.js'
import { HOUR_MS, MINUTE_MS, floorTo } from '../domain/time.js'
import type { ExchangeId, MarketType } from '../domain/exchanges.js'
import type { MarketState } from './state.js'
import type { StoredMark } from '../store/market/partial-minutes.js'
import type { HistoryKind } from '../domain/venue-history.js'

/** candles' data may fall short of a window's ends by this much (the minute in progress is not stored yet): ohlc, volume profile, the flow series */
export const CANDLE_TOLERANCE_MS = 2 * MINUTE_MS

/** what coverage reads of a request: the market and the request's clock */
export interface CoverageContext {
  services: { market: MarketState }
  now: number
}

export interface ExchangeNote {
  exchange: string
  reason: string
}

/** exchanges listing the market type that contributed nothing, with the reason */
export function missingExchanges(marketType: MarketType, present: Iterable<ExchangeId | string>, reason: (e: ExchangeId) => string, only?: ExchangeId): ExchangeNote[] {
  const have = new Set(present)
  return EXCHANGES.filter((e) => (only ? e.id === only : true))
    .filter((e) => !have.has(e.id))
    .map((e) => ({ exchange: e.id, reason: e.marketTypes.includes(marketType) ? reason(e.id) : `${e.name} has no ${marketType} market` }))
}

/** missing venues of a per-coin result: stale when the venue has data (only too old), else no data */
export function missingOrStale(present: readonly { exchange: string; ts: number | null }[], seen: ReadonlySet<string>, what: string, maxAge: string): ExchangeNote[] {
  const have = present.filter((e) => e.ts !== null).map((e) => e.exchange)
  return missingExchanges('perp', have, (e) => (seen.has(e) ? `latest ${what} older than ${maxAge} (stale feed)` : `no ${what}`))
}

/**
 * The venues listing the market type that are absent from `present`, each with its status: not listed, the feed
 * down or degraded (what /v1/markets/exchanges reports), else no data (with `noData`'s reason).
 */
export function venueGaps(market: MarketState, now: number, marketType: MarketType, present: Iterable<string>, noData: (e: ExchangeId) => string, only?: ExchangeId): CoverageGap[] {
  const have = new Set(present)
  return EXCHANGES.filter((e) => (only ? e.id === only : true) && !have.has(e.id)).map((e): CoverageGap => {
    if (!e.marketTypes.includes(marketType)) return { exchange: e.id, status: 'not_listed', reason: `${e.name} has no ${marketType} market` }
    const status = market.status(e.id, now)
    if (status === 'down') return { exchange: e.id, status: 'down', reason: market.enabled.has(e.id) ? `the ${e.name} feed is down` : `${e.name} is not collected by this deployment` }
    if (status === 'degraded') return { exchange: e.id, status: 'degraded', reason: `the ${e.name} feed is degraded; ${noData(e.id)}` }
    return { exchange: e.id, status: 'no_data', reason: noData(e.id) }
  })
}

export interface CoverageSpec {
  /** default perp */
  marketType?: MarketType
  /** venues whose data entered the figure */
  used: Iterable<ExchangeId>
  /** venues with data that was left out, or is in only in part, and why */
  gaps?: readonly CoverageGap[]
  /** the reason for a listed venue without any data */
  noData: (e: ExchangeId) => string
  /** the one venue asked for */
  only?: ExchangeId
  /** the figure's one coin: a coin delisted from the universe says so (Coverage.delisted) */
  coin?: string
  /** windowed figures: the window asked for, each used venue's data range in it, and the slack at its ends */
  requested?: WindowRange | null
  ranges?: ReadonlyMap<ExchangeId, WindowRange>
  toleranceMs?: number
  /** live venues: the coin and the kinds of venue history the figure is built from (their holes make it partial) */
  history?: { coin: string; kinds: readonly HistoryKind[] }
}

/**
 * The coverage of a figure: the venues used; every other venue listing the market with why it is missing (feed
 * down or degraded, or no data); venues used while marked degraded; and, for windowed figures, the span of the data
 * against the window (a running backfill named as the reason).
 */
export function coverageOf(ctx: CoverageContext, spec: CoverageSpec): Coverage {
  const market = ctx.services.market
  const used = new Set(spec.used)
  for (const e of spec.ranges?.keys() ?? []) used.add(e)
  const gaps = [...(spec.gaps ?? [])]
  if (spec.history && spec.requested) gaps.push(...historyHoleGaps(market, spec.history, spec.requested, spec.only))
  const known = new Set<string>([...used, ...gaps.map((g) => g.exchange)])
  gaps.push(...venueGaps(market, ctx.now, spec.marketType ?? 'perp', known, spec.noData, spec.only))
  for (const e of used) {
    const why = market.degradedReason(e)
    if (why && !gaps.some((g) => g.exchange === e)) gaps.push({ exchange: e, status: 'degraded', reason: why })
  }
  const b = market.backfill
  const gone = spec.coin ? market.delisting(spec.coin) : null
  const delisted = gone && { since: gone.at, note: `${spec.coin} left the universe on ${new Date(gone.at).toISOString()} (listed on ${gone.venues.length ? gone.venues.join(', ') : 'no venue'}, fewer than 2): its history is kept, nothing newer arrives` }
  return buildCoverage({ used, ranges: spec.ranges, gaps, requested: spec.requested, toleranceMs: spec.toleranceMs, backfill: b && { completeFrom: b.completeFrom, done: b.done }, delisted })
}

/**
 * Venues whose REST history has nothing for part of the window (history_hole: the venue could not serve it, asked
 * again by every gap repair): in only in part (`truncated`), the spans named.
 */
function historyHoleGaps(market: MarketState, h: { coin: string; kinds: readonly HistoryKind[] }, window: WindowRange, only?: ExchangeId): CoverageGap[] {
  const byVenue = new Map<ExchangeId, { from: number; to: number }[]>()
  for (const x of market.historyHoles)
    if (x.coin === h.coin && h.kinds.includes(x.kind) && (!only || x.exchange === only) && x.from < window.to && x.to > window.from) byVenue.set(x.exchange, [...(byVenue.get(x.exchange) ?? []), x])
  return [...byVenue].map(([exchange, spans]) => {
    const named = spans.slice(0, NAMED_MINUTES).map((x) => `${isoMs(x.from)} to ${isoMs(x.to)}`)
    const more = spans.length > NAMED_MINUTES ? ` and ${spans.length - NAMED_MINUTES} more` : ''
    return { exchange, status: 'truncated', reason: `the venue's history has no data for ${named.join(', ')}${more} (the live feed was not collecting then and the venue cannot serve it)` }
  })
}

/** each venue's data range among rows stamped at bucket opens: its first bucket's open to its last bucket's end */
export function rangesOf<R extends { exchange: ExchangeId | string; ts: number }>(rows: Iterable<R>, bucketMs: number | ((row: R) => number)): Map<ExchangeId, WindowRange> {
  const out = new Map<ExchangeId, WindowRange>()
  for (const r of rows) {
    const e = r.exchange as ExchangeId
    const end = r.ts + (typeof bucketMs === 'number' ? bucketMs : bucketMs(r))
    const cur = out.get(e)
    if (!cur) out.set(e, { from: r.ts, to: end })
    else {
      if (r.ts < cur.from) cur.from = r.ts
      if (end > cur.to) cur.to = end
    }
  }
  return out
}

/** each venue's range among rows stamped anywhere inside their hour (hourly closes, the hour's latest sample): whole hours */
export const hourRanges = (rows: readonly { exchange: ExchangeId; ts: number }[]): Map<ExchangeId, WindowRange> =>
  rangesOf(rows.map((r) => ({ exchange: r.exchange, ts: floorTo(r.ts, HOUR_MS) })), HOUR_MS)

/** each venue's range in a per-venue series of points at interval opens (`pick`: only the points that carry the figure) */
export function seriesRanges<P extends { ts: number }>(venues: readonly { exchange: ExchangeId; points: readonly P[] }[], intervalMs: number, pick?: (p: P) => boolean): Map<ExchangeId, WindowRange> {
  return rangesOf(venues.flatMap((v) => (pick ? v.points.filter(pick) : v.points).map((p) => ({ exchange: v.exchange, ts: p.ts }))), intervalMs)
}

const isoMs = (ms: number) => new Date(ms).toISOString()
/** how many short minutes a reason names before it says how many more there are */
const NAMED_MINUTES = 3

/**
 * Venues whose stored minutes in the window hold only part of their trades (minute_partial: a restart cut them and
 * their source could not replay the rest): each is in only in part (`truncated`), the minutes named with what they hold.
 */
function partialMinuteGaps(marks: readonly StoredMark[], only?: ExchangeId): CoverageGap[] {
  const byVenue = new Map<ExchangeId, StoredMark[]>()
  for (const m of marks) if (!only || m.exchange === only) byVenue.set(m.exchange, [...(byVenue.get(m.exchange) ?? []), m])
  return [...byVenue].map(([exchange, ms]) => {
    const named = ms.slice(0, NAMED_MINUTES).map((m) => {
      const part = [m.coveredFrom === null ? null : `from ${isoMs(m.coveredFrom)}`, m.coveredTo === null ? null : `up to ${isoMs(m.coveredTo)}`].filter(Boolean).join(' and ')
      return `${isoMs(m.ts)} (trades ${part} only)`
    })
    const more = ms.length > NAMED_MINUTES ? ` and ${ms.length - NAMED_MINUTES} more` : ''
    const n = ms.length === 1 ? '1 minute holds' : `${ms.length} minutes hold`
    return { exchange, status: 'truncated', reason: `${n} only part of ${ms.length === 1 ? 'its' : 'their'} trades (cut by a restart the feed could not replay): ${named.join(', ')}${more}` }
  })
}

/** the partial-minute gaps of one coin's candles over [start, end) */
export async function loadPartialMinuteGaps(market: MarketState, q: { coin: string; marketType: MarketType; start: number; end: number; exchange?: ExchangeId }): Promise<CoverageGap[]> {
  return partialMinuteGaps(await market.reader.partialMinutes(q.coin, q.marketType, q.start, q.end), q.exchange)
}
