// GET /v1/oi/history (3 credits): open interest OHLC per interval, per venue and aggregated, in coins and USD
// (docs/methodology.md#oi-history).
import { z } from 'zod'
import type { Coverage, WindowRange } from '../analytics/coverage.js'
import type { ExchangeId } from '../domain/exchanges.js'
import { buildOiHistory, type OiHistory, type OiPoint } from '../analytics/oi-history.js'
import { OI_SAMPLE_TOLERANCE_MS } from '../analytics/oi-changes.js'
import { seriesParams, seriesRules } from '../domain/series.js'
import { builder } from '../graphql/builder.js'
import { CoverageRef, ExchangeNoteRef } from '../graphql/schema/common.js'
import { seriesHeaderFields, type SeriesHeader } from '../graphql/schema/series.js'
import { coverageOf, missingExchanges, seriesRanges, type ExchangeNote } from '../read/coverage.js'
import { cacheOf } from '../read/versioned-cache.js'
import { defineEndpoint } from './define.js'
import { SAMPLE_RESOLUTION_MS, venuesOf, windowRows } from './work.js'
import { onPage, seriesWindow, windowKey } from './series-kit.js'
import { fragmentList } from '../graphql/list-fragments.js'

const OiPointRef = builder.objectRef<OiPoint & { exchanges?: string[] }>('OiBar').implement({
  description: 'Open interest over one interval: the first, highest, lowest and last sample, one-sided, in coins and in USD (OI × mark of the same sample)',
  fields: (t) => ({
    ts: t.field({ type: 'Timestamp', description: 'interval open time (UTC-aligned)', resolve: (p) => p.ts }),
    open: t.exposeFloat('open'),
    high: t.exposeFloat('high'),
    low: t.exposeFloat('low'),
    close: t.exposeFloat('close'),
    openUsd: t.exposeFloat('openUsd', { nullable: true }),
    highUsd: t.exposeFloat('highUsd', { nullable: true }),
    lowUsd: t.exposeFloat('lowUsd', { nullable: true }),
    closeUsd: t.exposeFloat('closeUsd', { nullable: true, description: 'null when no sample of the interval has a mark price (for the aggregate: for every venue)' }),
    exchanges: t.stringList({ nullable: true, description: 'aggregate points: the venues summed (those with open interest in the interval)', resolve: (p) => p.exchanges ?? null }),
  }),
})

const VenueOiRef = builder.objectRef<OiHistory['exchanges'][number]>('VenueOiSeries').implement({
  fields: (t) => ({
    exchange: t.exposeString('exchange'),
    points: t.field({ type: [OiPointRef], description: 'ascending; an interval without a sample of the venue is absent', resolve: fragmentList((v) => v.points) }),
  }),
})

type Out = SeriesHeader & { exchanges: OiHistory['exchanges']; aggregate: OiHistory['aggregate'] | null; missing: ExchangeNote[]; coverage: Coverage }

const OiHistoryRef = builder.objectRef<Out>('OiHistory').implement({
  description: 'Open interest OHLC per interval, per venue and aggregated (docs/methodology.md#oi-history)',
  fields: (t) => ({
    ...seriesHeaderFields(t),
    exchanges: t.field({ type: [VenueOiRef], description: 'each venue with open-interest samples in the window', resolve: (o) => o.exchanges }),
    aggregate: t.field({ type: [OiPointRef], nullable: true, description: 'Σ over the venues with open interest in each interval, at the sampling slots where all of them have a value; null when one exchange was asked for', resolve: fragmentList((o) => o.aggregate) }),
    missing: t.field({ type: [ExchangeNoteRef], resolve: (o) => o.missing }),
    coverage: t.field({ type: CoverageRef, resolve: (o) => o.coverage }),
  }),
})

/** a window's history with each venue's data range (computed once per data version, not per request) */
type WindowHistory = OiHistory & { ranges: Map<ExchangeId, WindowRange> }

export const oiHistory = defineEndpoint({
  path: '/v1/oi/history',
  field: 'oiHistory',
  operation: 'oi-history',
  cost: 3,
  summary: 'Open interest OHLC per interval, per exchange and aggregated, in coins and USD',
  description: 'Open interest OHLC (first, high, low, last sample) per interval, per venue and aggregated, in coins and USD.',
  params: z.object(seriesParams()).superRefine(seriesRules),
  // each venue's minute samples bucketed by the store, then the aggregate's
  work: (v, now) => 2 * windowRows(v, now, SAMPLE_RESOLUTION_MS) * venuesOf(v),
  rest: { omit: ['exchanges.points.exchanges'], why: 'a venue\'s own points have no list of venues summed' },
  type: OiHistoryRef,
  resolve: async (v, ctx) => {
    const w = seriesWindow(v, ctx.now)
    const { coin, exchange } = v
    const market = ctx.services.market
    const key = `${coin}|${exchange ?? ''}|${windowKey(w)}`
    const all = await cacheOf<Promise<WindowHistory>>(market, 'oi-history', { maxEntries: 256, oneVersion: true }).get(key, market.reader.version('samples'), async () => {
      const [venues, aggregate] = await Promise.all([
        market.reader.sampleBuckets(coin, w.first, w.end, w.intervalMs, exchange),
        exchange ? Promise.resolve([]) : market.reader.aggregateOiBuckets(coin, w.first, w.end, w.intervalMs),
      ])
      const history = buildOiHistory({ venues, aggregate, from: w.first, to: w.end })
      return { ...history, ranges: seriesRanges(history.exchanges, w.intervalMs) }
    })
    const used = all.exchanges.map((e) => e.exchange)
    const noData = () => `no ${coin} open-interest sample in the window`
    const ranges = all.ranges
    return {
      coin, interval: v.interval, exchange: exchange ?? null, start: w.start, end: w.end, asOf: Math.min(w.end, ctx.now), next: w.next,
      exchanges: all.exchanges.map((e) => ({ exchange: e.exchange, points: onPage(e.points, w) })),
      aggregate: exchange ? null : onPage(all.aggregate, w),
      missing: missingExchanges('perp', used, noData, exchange),
      coverage: coverageOf(ctx, { coin, used, noData, only: exchange, requested: { from: w.first, to: w.end }, ranges, toleranceMs: OI_SAMPLE_TOLERANCE_MS, history: { coin, kinds: ['open_interest'] } }),
    }
  },
})
