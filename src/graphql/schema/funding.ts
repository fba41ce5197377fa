// /v1/funding/weighted
import { buildWeightedFunding, FUNDING_STATS_WINDOW, type CoinWeightedFunding, type VenueFunding } from '../../analytics/funding.js'
import { coinsOf, parseRouteArgs, routeArgs } from '../args.js'
import { builder } from '../builder.js'
import { loadAll } from '../market-data.js'
import type { Coverage, CoverageGap } from '../../analytics/coverage.js'
import { HOUR_MS, floorTo } from '../../domain/time.js'
import type { ExchangeId } from '../../domain/exchanges.js'
import { CoverageRef, coverageOf, ExchangeNoteRef, FundingKindEnum, missingOrStale, rangesOf, type ExchangeNote } from './common.js'

const VenueFundingRef = builder.objectRef<VenueFunding>('VenueFunding').implement({
  fields: (t) => ({
    exchange: t.exposeString('exchange'),
    ts: t.field({ type: 'Timestamp', nullable: true, resolve: (v) => v.ts }),
    rate: t.exposeFloat('rate', { nullable: true, description: 'as the venue publishes it, per intervalHours' }),
    fundingKind: t.field({ type: FundingKindEnum, nullable: true, description: 'predicted: the venue\'s current rate for its next settlement; null with rate', resolve: (v) => v.fundingKind }),
    intervalHours: t.exposeFloat('intervalHours', { nullable: true }),
    rate8h: t.exposeFloat('rate8h', { nullable: true, description: 'normalized to 8 h: rate × 8 / intervalHours' }),
    annualizedRate: t.exposeFloat('annualizedRate', { nullable: true }),
    oiUsd: t.exposeFloat('oiUsd', { nullable: true }),
    weight: t.exposeFloat('weight', { nullable: true }),
    note: t.exposeString('reason', { nullable: true }),
  }),
})

type Out = CoinWeightedFunding & { missing: ExchangeNote[]; coverage: Coverage }

const WeightedFundingRef = builder.objectRef<Out>('WeightedFunding').implement({
  description: 'Open-interest-weighted funding of one coin (docs/methodology.md#weighted-funding)',
  fields: (t) => ({
    coin: t.exposeString('coin'),
    ts: t.field({ type: 'Timestamp', resolve: (f) => f.ts }),
    weightedRate: t.exposeFloat('weightedRate', { nullable: true, description: 'Σ rate8h × OI_usd / Σ OI_usd, per intervalHours (8)' }),
    fundingKind: t.field({ type: FundingKindEnum, nullable: true, description: 'predicted: weighted from each venue\'s current predicted rate; null with weightedRate', resolve: (f) => f.fundingKind }),
    intervalHours: t.exposeFloat('intervalHours'),
    annualizedRate: t.exposeFloat('annualizedRate', { nullable: true, description: 'weightedRate × 3 × 365 (simple)' }),
    zScore: t.float({ nullable: true, description: `against hourly weighted rates of the last 7 days (at least ${FUNDING_STATS_WINDOW.minPoints})`, resolve: (f) => f.zScore.value }),
    percentile: t.float({ nullable: true, description: '0..100, same history as zScore', resolve: (f) => f.percentile.value }),
    historyPoints: t.int({ resolve: (f) => f.zScore.points }),
    note: t.string({ nullable: true, resolve: (f) => f.reason ?? f.zScore.reason }),
    exchanges: t.field({ type: [VenueFundingRef], resolve: (f) => f.exchanges.filter((e) => e.ts !== null) }),
    missing: t.field({ type: [ExchangeNoteRef], resolve: (f) => f.missing }),
    coverage: t.field({ type: CoverageRef, description: 'venues in the weighted rate; the window is the z-score\'s hourly history', resolve: (f) => f.coverage }),
  }),
})

builder.queryField('weightedFunding', (t) =>
  t.field({
    type: [WeightedFundingRef],
    description: 'OI-weighted funding rate per coin with each venue\'s rate, OI and weight, annualized, z-score and percentile. Costs 3 credits (GET /v1/funding/weighted).',
    args: routeArgs(t.arg, 'weightedFunding'),
    resolve: async (_r, args, ctx) => {
      const coins = coinsOf(parseRouteArgs('weightedFunding', args, ctx), ctx)
      const samples = await loadAll(ctx.loaders.fundingSamples, coins)
      return coins.map((coin, i) => {
        const f = buildWeightedFunding({ coin, samples: samples[i]!, now: ctx.now })
        const seen = new Set(samples[i]!.filter((x) => x.ts <= ctx.now).map((x) => x.exchange as string))
        // in the weighted rate: a current rate and OI; a venue with a sample but no weight is in only in part
        const weighted = f.exchanges.filter((e) => e.weight !== null).map((e) => e.exchange)
        const gaps: CoverageGap[] = f.exchanges
          .filter((e) => e.weight === null && (e.ts !== null || seen.has(e.exchange)))
          .map((e) => ({ exchange: e.exchange, status: e.ts === null ? 'stale' : 'no_data', reason: e.ts === null ? `latest ${coin} funding sample older than 5 minutes` : (e.reason ?? 'not weighted') }))
        const past = samples[i]!.filter((x) => x.ts <= ctx.now && x.fundingRate !== null)
        const coverage = coverageOf(ctx, {
          used: weighted, gaps, noData: () => `no ${coin} perp funding sample`,
          requested: { from: floorTo(ctx.now, HOUR_MS) - FUNDING_STATS_WINDOW.lookbackMs, to: ctx.now },
          ranges: rangesOf(past.filter((x) => weighted.includes(x.exchange as ExchangeId)).map((x) => ({ exchange: x.exchange, ts: floorTo(x.ts, HOUR_MS) })), HOUR_MS),
          toleranceMs: HOUR_MS,
        })
        return { ...f, missing: missingOrStale(f.exchanges, seen, `${coin} perp funding sample`, '5 minutes'), coverage }
      })
    },
  }),
)
