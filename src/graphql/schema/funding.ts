// /v1/funding/weighted
import { FUNDING_STATS_WINDOW, type CoinWeightedFunding, type VenueFunding } from '../../analytics/funding.js'
import type { ExchangeNote } from '../../read/coverage.js'
import { builder } from '../builder.js'
import type { Coverage } from '../../analytics/coverage.js'
import { CoverageRef, ExchangeNoteRef, FundingKindEnum } from './common.js'

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

export type WeightedFundingOut = CoinWeightedFunding & { missing: ExchangeNote[]; coverage: Coverage }

export const WeightedFundingRef = builder.objectRef<WeightedFundingOut>('WeightedFunding').implement({
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

