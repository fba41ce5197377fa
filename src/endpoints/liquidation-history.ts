// GET /v1/liquidations/history (3 credits): long and short liquidated USD per interval, per venue and across venues,
// summed from the stored 1-minute aggregates of the orders the venues published (docs/methodology.md#liquidations),
// with which venues the sums cover completely, as a lower bound or not at all (#liquidation-coverage).
import { z } from 'zod'
import { buildLiquidationHistory } from '../analytics/liquidations.js'
import { liquidationVenues } from '../domain/liquidations.js'
import { seriesParams, seriesRules } from '../domain/series.js'
import { LiquidationHistoryRef } from '../graphql/schema/liquidations.js'
import type { Coverage } from '../analytics/coverage.js'
import type { ExchangeNote } from '../read/coverage.js'
import { liquidationCoverage } from '../read/liquidation-coverage.js'
import { defineEndpoint } from './define.js'
import { HOUR_MS } from '../domain/time.js'
import { venuesOf, windowRows } from './work.js'
import { seriesWindow } from './series-kit.js'

const params = z.object(seriesParams()).superRefine(seriesRules)

/** the venues a liquidation figure left out (its coverage's missing venues not in it), with the reason */
export const missingOf = (coverage: Coverage): ExchangeNote[] =>
  coverage.missing.filter((g) => !coverage.exchanges.includes(g.exchange)).map((g) => ({ exchange: g.exchange, reason: g.reason }))

export const liquidationHistory = defineEndpoint({
  path: '/v1/liquidations/history',
  field: 'liquidationHistory',
  operation: 'liquidation-history',
  cost: 3,
  summary: 'Long and short liquidated USD per interval, per venue and aggregated (series parameters, paged), with which venues it covers completely',
  description: 'Liquidated USD per interval, long and short, per venue and across venues, from the orders the venues published; says which venues the sums cover completely, as a lower bound or not at all.',
  params,
  // liquidations are stored per minute that had any: sparse, counted by the hour
  work: (v, now) => windowRows(v, now, HOUR_MS) * venuesOf(v),
  type: LiquidationHistoryRef,
  resolve: async (v, ctx) => {
    const { coin, exchange, interval } = v
    const w = seriesWindow(v, ctx.now)
    const market = ctx.services.market
    const minutes = await market.reader.liquidationMinutes([coin], w.from, w.to, exchange)
    const venues = liquidationVenues().filter((e) => !exchange || e === exchange)
    const out = buildLiquidationHistory({ slots: w.slots, intervalMs: w.intervalMs, minutes, venues })
    // the venues' liquidation streams over the whole window: a quiet venue whose stream was up adds its zeros
    const cov = await liquidationCoverage(ctx, { window: { from: w.first, to: w.end }, coin, only: exchange, used: minutes.map((m) => m.exchange) })
    return { ...out, coin, exchange: exchange ?? null, interval, start: w.start, end: w.end, asOf: Math.min(w.end, ctx.now), missing: missingOf(cov.coverage), ...cov, next: w.next }
  },
})
