// GET /v1/funding/history (3 credits): settled funding per venue per settlement (rate, interval, 8h-normalised,
// annualised), the OI-weighted series per interval, and the funding paid over the window
// (docs/methodology.md#funding-history).
import { z } from 'zod'
import type { Coverage, WindowRange } from '../analytics/coverage.js'
import type { ExchangeId } from '../domain/exchanges.js'
import { buildFundingHistory, type FundingHistory, type Settlement, type VenueFundingHistory, type WeightedFundingPoint } from '../analytics/funding-history.js'
import { seriesParams, seriesRules } from '../domain/series.js'
import { HOUR_MS } from '../domain/time.js'
import { builder } from '../graphql/builder.js'
import { CoverageRef, ExchangeNoteRef, FundingKindEnum } from '../graphql/schema/common.js'
import { seriesHeaderFields, type SeriesHeader } from '../graphql/schema/series.js'
import { coverageOf, missingExchanges, rangesOf, type ExchangeNote } from '../read/coverage.js'
import { cacheOf } from '../read/versioned-cache.js'
import { defineEndpoint } from './define.js'
import { SAMPLE_RESOLUTION_MS, venuesOf, windowRows } from './work.js'
import { onPage, seriesWindow, windowKey } from './series-kit.js'
import { fragmentList } from '../graphql/list-fragments.js'

const SettlementRef = builder.objectRef<Settlement>('FundingSettlement').implement({
  description: 'One settled funding payment of a venue',
  fields: (t) => ({
    ts: t.field({ type: 'Timestamp', description: 'settlement time (the venue\'s)', resolve: (s) => s.ts }),
    rate: t.exposeFloat('rate', { description: 'per funding interval (fraction; 0.0001 = 0.01 %), paid by longs when positive' }),
    intervalHours: t.exposeFloat('intervalHours', { description: 'the funding interval this rate is per' }),
    rate8h: t.exposeFloat('rate8h', { description: 'rate × 8 / intervalHours' }),
    annualized: t.exposeFloat('annualized', { description: 'rate × 24 × 365 / intervalHours (simple, not compounded)' }),
    kind: t.field({ type: FundingKindEnum, description: 'always settled', resolve: () => 'settled' as const }),
  }),
})

const VenueFundingRef = builder.objectRef<VenueFundingHistory>('VenueFundingHistory').implement({
  fields: (t) => ({
    exchange: t.exposeString('exchange'),
    settlements: t.field({ type: [SettlementRef], description: 'this page\'s settlements, ascending', resolve: fragmentList((v) => v.settlements) }),
    cumulative: t.exposeFloat('cumulative', { description: 'Σ rate of every settlement in the window (all pages): what a long of constant size paid, as a fraction of its notional (negative: received)' }),
  }),
})

const WeightedPointRef = builder.objectRef<WeightedFundingPoint>('WeightedFundingPoint').implement({
  description: 'The OI-weighted 8h rate of the settlements in one interval',
  fields: (t) => ({
    ts: t.field({ type: 'Timestamp', description: 'interval open time (UTC-aligned)', resolve: (p) => p.ts }),
    rate8h: t.exposeFloat('rate8h', { description: 'Σ w·rate8h / Σ w over the venues that settled in the interval, w = the venue\'s OI in USD at the interval\'s end' }),
    annualized: t.exposeFloat('annualized', { description: 'rate8h × 3 × 365' }),
    exchanges: t.stringList({ description: 'the venues in the mean', resolve: (p) => p.exchanges }),
  }),
})

const CumulativeRef = builder.objectRef<FundingHistory['cumulative']>('CumulativeFunding').implement({
  fields: (t) => ({
    rate: t.exposeFloat('rate', { nullable: true, description: 'OI-weighted mean of the venues\' cumulative funding over the window (weights: each venue\'s mean OI in USD); null without OI' }),
    exchanges: t.stringList({ resolve: (c) => c.exchanges }),
  }),
})

type Out = SeriesHeader & { exchanges: VenueFundingHistory[]; weighted: WeightedFundingPoint[]; cumulative: FundingHistory['cumulative']; missing: ExchangeNote[]; coverage: Coverage }

const FundingHistoryRef = builder.objectRef<Out>('FundingHistory').implement({
  description: 'Settled funding per venue and OI-weighted (docs/methodology.md#funding-history)',
  fields: (t) => ({
    ...seriesHeaderFields(t),
    exchanges: t.field({ type: [VenueFundingRef], description: 'each venue with settlements in the window', resolve: (o) => o.exchanges }),
    weighted: t.field({ type: [WeightedPointRef], description: 'per interval with a settlement: the OI-weighted 8h rate; an interval without one has no point', resolve: fragmentList((o) => o.weighted) }),
    cumulative: t.field({ type: CumulativeRef, description: 'funding paid over the whole window, OI-weighted across venues', resolve: (o) => o.cumulative }),
    missing: t.field({ type: [ExchangeNoteRef], resolve: (o) => o.missing }),
    coverage: t.field({ type: CoverageRef, resolve: (o) => o.coverage }),
  }),
})

type FundingWindow = FundingHistory & { ranges: Map<ExchangeId, WindowRange>; longest: number }

export const fundingHistory = defineEndpoint({
  path: '/v1/funding/history',
  field: 'fundingHistory',
  operation: 'funding-history',
  cost: 3,
  summary: 'Settled funding per exchange per settlement (rate, interval, 8h, annualized), the OI-weighted series and cumulative funding over the window',
  description: 'Settled funding rates per venue and settlement (per interval, 8h-normalised, annualised), the OI-weighted 8h rate per interval, and the cumulative funding over the window.',
  params: z.object(seriesParams()).superRefine(seriesRules),
  work: (v, now) => windowRows(v, now, SAMPLE_RESOLUTION_MS) * venuesOf(v),
  type: FundingHistoryRef,
  resolve: async (v, ctx) => {
    const w = seriesWindow(v, ctx.now)
    const { coin, exchange } = v
    const market = ctx.services.market
    const key = `${coin}|${exchange ?? ''}|${windowKey(w)}`
    const version = `${market.reader.version('funding')}.${market.reader.version('samples')}`
    const all = await cacheOf<Promise<FundingWindow>>(market, 'funding-history', { maxEntries: 256, oneVersion: true }).get(key, version, async () => {
      const [rows, buckets] = await Promise.all([market.reader.funding([coin], w.first, w.end), market.reader.sampleBuckets(coin, w.first, w.end, w.intervalMs, exchange)])
      const oi = buckets.map((b) => ({ exchange: b.exchange, ts: b.ts, usd: b.oiUsd?.close ?? null }))
      const history = buildFundingHistory({ rows: rows.filter((r) => !exchange || r.exchange === exchange), intervalMs: w.intervalMs, from: w.first, to: w.end, oi })
      // once per data version, not per request: each venue's data range (a settlement stands for the interval
      // before it) and the longest funding interval
      const ranges = rangesOf(history.exchanges.flatMap((e) => e.settlements.map((s) => ({ exchange: e.exchange, ts: s.ts - s.intervalHours * HOUR_MS, h: s.intervalHours }))), (r) => r.h * HOUR_MS)
      const longest = Math.max(1, ...history.exchanges.flatMap((e) => e.settlements.map((s) => s.intervalHours)))
      return { ...history, ranges, longest }
    })
    const used = all.exchanges.map((e) => e.exchange)
    const noData = () => `no ${coin} funding settlement in the window`
    const { ranges, longest } = all
    return {
      coin, interval: v.interval, exchange: exchange ?? null, start: w.start, end: w.end, asOf: Math.min(w.end, ctx.now), next: w.next,
      exchanges: all.exchanges.map((e) => ({ ...e, settlements: onPage(e.settlements, w) })),
      weighted: onPage(all.weighted, w),
      cumulative: all.cumulative,
      missing: missingExchanges('perp', used, noData, exchange),
      coverage: coverageOf(ctx, { coin, used, noData, only: exchange, requested: { from: w.first, to: w.end }, ranges, toleranceMs: longest * HOUR_MS, history: { coin, kinds: ['funding'] } }),
    }
  },
})
