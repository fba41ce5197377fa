// What the series endpoints share (docs/contract.md#series): the window of a page, and one market type's taker
// flow per venue and aggregated, with its coverage (/v1/flow/cvd, /v1/flow/taker-volume).
import type { CoverageGap, WindowRange } from '../analytics/coverage.js'
import { flowSeries, type FlowSeries } from '../analytics/flow-series.js'
import { lackGaps } from '../analytics/provenance.js'
import { hasMarket, type ExchangeId, type MarketType } from '../domain/exchanges.js'
import { pageOf, type SeriesPage, type WindowValues } from '../domain/series.js'
import { HOUR_MS, MINUTE_MS } from '../domain/time.js'
import { INTERVAL_MS, type Interval } from '../domain/windows.js'
import type { RequestContext } from '../graphql/context.js'
import type { FlowLeg } from '../graphql/schema/series.js'
import { CANDLE_TOLERANCE_MS, coverageOf, loadPartialMinuteGaps, missingExchanges, seriesRanges } from '../read/coverage.js'
import { loadBars } from '../read/market-data.js'
import { cacheOf } from '../read/versioned-cache.js'

export interface SeriesWindow extends SeriesPage {
  interval: Interval
  /** the first interval start of the whole window (page 1's first slot) */
  first: number
  /** the window's minute: results over [first, end) are the same within it (stored rows sit on whole minutes) */
  minuteKey: number
}

/** what a whole-window result depends on besides the coin and filters: interval, first slot and window minute */
export const windowKey = (w: SeriesWindow): string => `${w.interval}|${w.first}|${w.minuteKey}`

/** the page a series request asks for, with the whole window's first slot */
export function seriesWindow(v: WindowValues & Record<string, unknown> & { interval: Interval }, now: number): SeriesWindow {
  const size = INTERVAL_MS[v.interval]
  const page = pageOf(v, size, now)
  return { ...page, interval: v.interval, first: Math.ceil(page.start / size) * size, minuteKey: Math.ceil(page.end / MINUTE_MS) }
}

/** per points array: whether it is in ascending time order (checked once), and its pages by index range */
const pages = new WeakMap<readonly { ts: number }[], { sorted: boolean; byRange: Map<string, readonly { ts: number }[]> }>()

/** the first index whose time is at or after `t`, in points ascending by time */
function lowerBound(points: readonly { ts: number }[], t: number): number {
  let [lo, hi] = [0, points.length]
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (points[mid]!.ts < t) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * The points of a page: those at its slots. The same array for the same points and the same points on the page
 * (the points of a cached series do not change), so REST writes a repeated page's JSON once
 * (src/graphql/list-fragments.ts); a page found by binary search, not by a pass over the window.
 */
export function onPage<P extends { ts: number }>(points: readonly P[], w: SeriesPage): P[] {
  let entry = pages.get(points)
  if (!entry) pages.set(points, (entry = { sorted: points.every((p, i) => i === 0 || points[i - 1]!.ts <= p.ts), byRange: new Map() }))
  if (!entry.sorted) return points.filter((p) => p.ts >= w.from && p.ts < w.to)
  const [i, j] = [lowerBound(points, w.from), lowerBound(points, w.to)]
  const key = `${i}|${j}`
  let page = entry.byRange.get(key) as P[] | undefined
  if (!page) {
    page = i === 0 && j === points.length ? (points as P[]) : points.slice(i, j)
    if (entry.byRange.size >= 16) entry.byRange.clear()
    entry.byRange.set(key, page)
  }
  // shared between requests: never changed by a caller
  return page
}

/** a window's flow with each venue's data range and its minutes a restart left short (once per data version, not per request) */
type WindowFlows = FlowSeries & { ranges: Map<ExchangeId, WindowRange>; short: CoverageGap[] }

/** one market type's flow over the whole window (every page of it), per venue and aggregated; cached per candle version */
function windowFlows(ctx: RequestContext, q: { coin: string; marketType: MarketType; exchange?: ExchangeId; w: SeriesWindow }): Promise<WindowFlows> {
  const market = ctx.services.market
  const { coin, marketType, exchange, w } = q
  const key = `${coin}|${marketType}|${exchange ?? ''}|${windowKey(w)}`
  return cacheOf<Promise<WindowFlows>>(market, 'flow-series', { maxEntries: 256, oneVersion: true }).get(key, market.reader.version('candles'), async () => {
    if (exchange && !hasMarket(exchange, marketType)) return { exchanges: [], aggregate: [], ranges: new Map(), short: [] }
    const q = { coin, marketType, start: w.first, end: w.end, exchange }
    const hourly = w.intervalMs >= HOUR_MS
    const [bars, short] = await Promise.all([loadBars(market, { ...q, hourly }), loadPartialMinuteGaps(market, q)])
    const flow = flowSeries(bars, { intervalMs: w.intervalMs, from: w.first, to: w.end })
    // minutes without a taker split (venue klines) are not in the flow: the coverage names them
    const noSplit = lackGaps(bars, 'no_taker_split', hourly ? HOUR_MS : MINUTE_MS, { from: w.first, to: w.end })
    return { ...flow, ranges: seriesRanges(flow.exchanges, w.intervalMs), short: [...short, ...noSplit] }
  })
}

/** a page of one market type's flow with its missing venues and coverage */
export async function flowLeg(ctx: RequestContext, q: { coin: string; marketType: MarketType; exchange?: ExchangeId; w: SeriesWindow }): Promise<FlowLeg> {
  const { coin, marketType, exchange, w } = q
  const all = await windowFlows(ctx, q)
  const used = all.exchanges.map((v) => v.exchange)
  const noData = () => `no ${coin} ${marketType} trades in the window`
  const ranges = all.ranges
  return {
    marketType,
    exchanges: all.exchanges.map((v) => ({ exchange: v.exchange, points: onPage(v.points, w) })),
    aggregate: exchange ? null : onPage(all.aggregate, w),
    missing: missingExchanges(marketType, used, noData, exchange),
    coverage: coverageOf(ctx, { coin, marketType, used, gaps: all.short, noData, only: exchange, requested: { from: w.first, to: w.end }, ranges, toleranceMs: CANDLE_TOLERANCE_MS, history: { coin: q.coin, kinds: [marketType === 'spot' ? 'candles_spot' : 'candles_perp'] } }),
  }
}
