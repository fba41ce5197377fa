// The coverage of a liquidation figure over its window: the venues' liquidation streams' uptime as their sources
// reported it (feed_uptime, the same on every node), each venue's completeness (analytics/liquidation-coverage.ts),
// and the generic coverage object built from them (coverage.ts). Also each venue's liquidation feed as it stands now.
import type { Coverage, WindowRange } from '../analytics/coverage.js'
import { buildLiquidationCoverage, LIQUIDATION_OUTAGE_TOLERANCE_MS, type LiquidationCoverage } from '../analytics/liquidation-coverage.js'
import { EXCHANGE_IDS, exchangeById, type ExchangeId } from '../domain/exchanges.js'
import { LIQUIDATION_FEEDS, type LiquidationFeedInfo } from '../domain/liquidations.js'
import { coverageOf, type CoverageContext } from './coverage.js'

/** a stream whose span was extended this recently is up now (the writer extends it on every flush, every 2 s) */
const FEED_UP_SLACK_MS = 15_000

export interface LiquidationFigureCoverage {
  liquidationCoverage: LiquidationCoverage
  coverage: Coverage
}

/**
 * A liquidation figure's coverage over `window`: of one coin's streams (or any coin's), over one venue or all. `used`:
 * venues whose orders entered the figure (orders stored without a span of uptime around them are in only in part).
 */
export async function liquidationCoverage(ctx: CoverageContext, q: { window: WindowRange; coin?: string; only?: ExchangeId; used?: Iterable<ExchangeId> }): Promise<LiquidationFigureCoverage> {
  const market = ctx.services.market
  const spans = await market.reader.feedSpans('liquidations', q.window.from, q.window.to, q.coin)
  const venues = EXCHANGE_IDS.filter((e) => !q.only || e === q.only)
  const built = buildLiquidationCoverage({ venues, spans, window: q.window, now: ctx.now })
  // history the backfill has not written yet is backfilling, not down
  const b = market.backfill
  const gaps = built.gaps.map((g) => {
    const v = built.coverage.exchanges.find((x) => x.exchange === g.exchange)!
    const filling = b && !b.done && g.status === 'down' && v.outages.every((o) => o.to <= b.completeFrom + LIQUIDATION_OUTAGE_TOLERANCE_MS)
    return filling ? { ...g, status: 'backfilling' as const, reason: `history is still being backfilled; ${g.reason}` } : g
  })
  const used = new Set<ExchangeId>([...built.ranges.keys(), ...(q.used ?? [])])
  const noData = (e: ExchangeId) => `no ${exchangeById.get(e)!.name} liquidation stream was up in the window`
  const coverage = coverageOf(ctx, { coin: q.coin, used, gaps, noData, only: q.only, requested: q.window, ranges: built.ranges, toleranceMs: LIQUIDATION_OUTAGE_TOLERANCE_MS })
  return { liquidationCoverage: built.coverage, coverage }
}

/** a venue's liquidation feed and its stream's state now (status null without a feed) */
export type LiquidationFeedState = LiquidationFeedInfo & { status: 'operational' | 'down' | null; statusReason: string | null; upSince: number | null }

/** each venue's liquidation feed with its stream's state now: up while its latest span of uptime is still being extended */
export async function liquidationFeeds(ctx: CoverageContext): Promise<Map<ExchangeId, LiquidationFeedState>> {
  const market = ctx.services.market
  const latest = new Map((await market.reader.latestFeedSpans('liquidations')).map((s) => [s.exchange, s]))
  const iso = (ms: number) => new Date(ms).toISOString()
  return new Map(
    EXCHANGE_IDS.map((e): [ExchangeId, LiquidationFeedState] => {
      const feed = LIQUIDATION_FEEDS[e]
      const span = latest.get(e)
      if (!feed.published) return [e, { ...feed, status: null, statusReason: null, upSince: null }]
      if (span && span.to >= ctx.now - FEED_UP_SLACK_MS) return [e, { ...feed, status: 'operational', statusReason: null, upSince: span.from }]
      const why = span ? `the liquidation stream has not been up since ${iso(span.to)}` : market.enabled.has(e) ? 'the liquidation stream has not been up yet' : 'not collected by this deployment (MARKET_SOURCE)'
      return [e, { ...feed, status: 'down', statusReason: why, upSince: null }]
    }),
  )
}
