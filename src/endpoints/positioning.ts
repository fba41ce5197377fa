// GET /v1/positioning/long-short (3 credits): the account and top-trader long/short ratios each CEX publishes,
// the window's latest and one point per interval (the interval's last sample); the DEXs are listed as not available
// (docs/methodology.md#positioning).
import { z } from 'zod'
import type { CoverageGap } from '../analytics/coverage.js'
import { buildPositioning } from '../analytics/positioning.js'
import { EXCHANGES, type ExchangeId } from '../domain/exchanges.js'
import { POSITIONING_FEEDS, POSITIONING_KINDS } from '../domain/liquidations.js'
import { seriesParams, seriesRules } from '../domain/series.js'
import { MINUTE_MS } from '../domain/time.js'
import { LongShortRef } from '../graphql/schema/liquidations.js'
import { coverageOf, missingExchanges, rangesOf } from '../read/coverage.js'
import { defineEndpoint } from './define.js'
import { venuesOf, windowRows } from './work.js'
import { onPage, seriesWindow } from './series-kit.js'

/** the venues' period is 5 minutes; the last one may not be published yet */
const POSITIONING_TOLERANCE_MS = 10 * MINUTE_MS

const unpublished = (only?: ExchangeId): CoverageGap[] =>
  EXCHANGES.filter((e) => !POSITIONING_FEEDS[e.id].published && (!only || e.id === only)).map((e) => ({ exchange: e.id, status: 'not_published', reason: POSITIONING_FEEDS[e.id].note ?? `${e.name} publishes no long/short ratios` }))

export const positioning = defineEndpoint({
  path: '/v1/positioning/long-short',
  field: 'longShortRatios',
  operation: 'long-short',
  cost: 3,
  summary: 'Account and top-trader long/short ratios per CEX, latest and per interval (series parameters, paged)',
  description: 'The long/short account ratio and top-trader position ratio each CEX publishes, the latest and one point per interval; DEXs marked not available.',
  params: z.object(seriesParams()).superRefine(seriesRules),
  // the venues' ratios, sampled every five minutes
  work: (v, now) => windowRows(v, now, 5 * MINUTE_MS) * venuesOf(v),
  type: LongShortRef,
  resolve: async (v, ctx) => {
    const w = seriesWindow(v, ctx.now)
    const { coin, exchange } = v
    const rows = await ctx.services.market.reader.positioning([coin], w.first, w.end)
    const venues = EXCHANGES.filter((e) => !exchange || e.id === exchange).map((e) => ({ exchange: e.id, kinds: POSITIONING_KINDS[e.id] }))
    const all = buildPositioning({ samples: rows, venues, intervalMs: w.intervalMs, from: w.first, to: w.end })
    const exchanges = all.map((s) => {
      const feed = POSITIONING_FEEDS[s.exchange as ExchangeId]
      const page = <T extends { points: { ts: number }[] }>(x: T | null): T | null => x && { ...x, points: onPage(x.points, w) }
      return { ...s, available: feed.published, feed, account: page(s.account), topPosition: page(s.topPosition) }
    })
    const ranges = rangesOf(rows.filter((r) => !exchange || r.exchange === exchange), (r) => r.periodMs)
    const noData = () => `no ${coin} long/short ratios stored in the window`
    return {
      coin, interval: v.interval, exchange: exchange ?? null, start: w.start, end: w.end, asOf: Math.min(w.end, ctx.now), next: w.next,
      exchanges,
      missing: missingExchanges('perp', ranges.keys(), (e) => (POSITIONING_FEEDS[e].published ? noData() : POSITIONING_FEEDS[e].note!), exchange),
      coverage: coverageOf(ctx, { coin, used: ranges.keys(), gaps: unpublished(exchange), noData, only: exchange, requested: { from: w.first, to: w.end }, ranges, toleranceMs: POSITIONING_TOLERANCE_MS, history: { coin, kinds: ['long_short'] } }),
    }
  },
})
