// GET /v1/liquidations/history (3 credits): long and short liquidated USD per interval, per venue and across venues,
// summed from the stored 1-minute aggregates of the orders the venues published (docs/methodology.md#liquidations).
import { z } from 'zod'
import type { CoverageGap } from '../analytics/coverage.js'
import { buildLiquidationHistory } from '../analytics/liquidations.js'
import { EXCHANGES, type ExchangeId } from '../domain/exchanges.js'
import { LIQUIDATION_FEEDS, liquidationVenues } from '../domain/liquidations.js'
import { pageOf, seriesParams, seriesRules } from '../domain/series.js'
import { INTERVAL_MS } from '../domain/windows.js'
import { LiquidationHistoryRef } from '../graphql/schema/liquidations.js'
import { coverageOf, missingExchanges, rangesOf } from '../market/read/coverage.js'
import { defineEndpoint } from './define.js'

const params = z.object(seriesParams()).superRefine(seriesRules)

/** venues that publish no liquidation feed, as coverage gaps */
export const unpublishedGaps = (only?: ExchangeId): CoverageGap[] =>
  EXCHANGES.filter((e) => !LIQUIDATION_FEEDS[e.id].published && (!only || e.id === only)).map((e) => ({ exchange: e.id, status: 'not_published', reason: LIQUIDATION_FEEDS[e.id].note ?? `${e.name} publishes no liquidation feed` }))

export const liquidationHistory = defineEndpoint({
  path: '/v1/liquidations/history',
  field: 'liquidationHistory',
  operation: 'liquidation-history',
  cost: 3,
  summary: 'Long and short liquidated USD per interval, per venue and aggregated (series parameters, paged)',
  description: 'Liquidated USD per interval, long and short, per venue and across venues, from the orders the venues published.',
  params,
  graphql: (t, f) =>
    t.field({
      type: LiquidationHistoryRef,
      description: f.description,
      args: f.args,
      resolve: async (_r, args, ctx) => {
        const v = f.params(args, ctx)
        const { coin, exchange, interval } = v
        const size = INTERVAL_MS[interval]
        const page = pageOf(v, size, ctx.now)
        const market = ctx.services.market
        const minutes = await market.reader.liquidationMinutes([coin], page.from, page.to, exchange)
        const venues = liquidationVenues().filter((e) => !exchange || e === exchange)
        const out = buildLiquidationHistory({ slots: page.slots, intervalMs: size, minutes, venues })
        // a venue's span: the minutes that held its orders (a quiet venue has none, and is said to have no data)
        const ranges = rangesOf(minutes, 60_000)
        const noData = () => `no ${coin} liquidation orders stored in the window`
        const coverage = coverageOf(ctx, { used: ranges.keys(), gaps: unpublishedGaps(exchange), noData, only: exchange })
        const missing = missingExchanges('perp', ranges.keys(), (e) => (LIQUIDATION_FEEDS[e].published ? noData() : LIQUIDATION_FEEDS[e].note!), exchange)
        return { ...out, coin, exchange: exchange ?? null, interval, start: page.start, end: page.end, asOf: Math.min(page.end, ctx.now), missing, coverage, next: page.next }
      },
    }),
})
