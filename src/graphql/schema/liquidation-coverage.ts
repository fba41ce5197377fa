// What every liquidation figure covers venue by venue (docs/methodology.md#liquidation-coverage), and what the
// exchanges endpoint says of each venue's liquidation feed.
import type { WindowRange } from '../../analytics/coverage.js'
import type { LiquidationCoverage, VenueLiquidationCoverage } from '../../analytics/liquidation-coverage.js'
import { LiquidationCompleteness, LiquidationPrice } from '../../domain/liquidations.js'
import type { LiquidationFeedState } from '../../read/liquidation-coverage.js'
import { builder } from '../builder.js'

const CompletenessEnum = builder.enumType('LiquidationCompleteness', {
  description: 'complete: the venue publishes every liquidation; sample: only some (sums are a lower bound); none: no feed',
  values: LiquidationCompleteness.options,
})

const BasisEnum = builder.enumType('LiquidationBasis', {
  description: 'complete: every liquidation of the window; lower_bound: some are missing (a sampled feed, a stream down); none: nothing collected',
  values: ['complete', 'lower_bound', 'none'] as const,
})

const StreamEnum = builder.enumType('LiquidationStreamCoverage', {
  description: 'up: the stream was up throughout the window; partial: for part of it; down: not at all; not_published: the venue has no feed',
  values: ['up', 'partial', 'down', 'not_published'] as const,
})

export const LiquidationPriceEnum = builder.enumType('LiquidationPrice', {
  description: "the price a venue's liquidation orders carry: average_fill (Binance ap), bankruptcy (Bybit p, OKX bkPx), fill (dYdX trade price)",
  values: LiquidationPrice.options,
})

const OutageRef = builder.objectRef<WindowRange>('FeedOutage').implement({
  description: 'A stretch of the window a stream was not up',
  fields: (t) => ({
    from: t.field({ type: 'Timestamp', resolve: (o) => o.from }),
    to: t.field({ type: 'Timestamp', description: 'exclusive', resolve: (o) => o.to }),
  }),
})

const VenueRef = builder.objectRef<VenueLiquidationCoverage>('VenueLiquidationCoverage').implement({
  fields: (t) => ({
    exchange: t.exposeString('exchange'),
    completeness: t.field({ type: CompletenessEnum, resolve: (v) => v.completeness }),
    stream: t.field({ type: StreamEnum, resolve: (v) => v.stream }),
    upMs: t.exposeFloat('upMs', { description: 'ms of the window its liquidation stream was up' }),
    outages: t.field({ type: [OutageRef], description: 'stretches of the window its stream was not up (at least a minute each)', resolve: (v) => v.outages }),
    counts: t.field({ type: BasisEnum, description: 'how its orders count in the figure', resolve: (v) => v.counts }),
    reason: t.exposeString('reason', { nullable: true }),
  }),
})

export const LiquidationCoverageRef = builder.objectRef<LiquidationCoverage>('LiquidationCoverage').implement({
  description: 'Which venues a liquidation figure covers as complete, which as a lower bound and which not at all, over its window (docs/methodology.md#liquidation-coverage)',
  fields: (t) => ({
    basis: t.field({ type: BasisEnum, description: 'complete only when every venue publishing a feed is complete', resolve: (c) => c.basis }),
    complete: t.stringList({ resolve: (c) => c.complete }),
    lowerBound: t.stringList({ description: 'a sampled feed, or a stream up for only part of the window', resolve: (c) => c.lowerBound }),
    none: t.stringList({ description: 'no feed, or a stream never up in the window', resolve: (c) => c.none }),
    exchanges: t.field({ type: [VenueRef], resolve: (c) => c.exchanges }),
    from: t.field({ type: 'Timestamp', resolve: (c) => c.from }),
    to: t.field({ type: 'Timestamp', description: 'the window measured ends no later than now', resolve: (c) => c.to }),
    note: t.exposeString('note'),
  }),
})

export const LiquidationFeedRef = builder.objectRef<LiquidationFeedState>('LiquidationFeed').implement({
  description: "A venue's liquidation feed: where from, whether complete or a sample, which price its orders carry, and whether its stream is up now",
  fields: (t) => ({
    published: t.exposeBoolean('published'),
    source: t.exposeString('source', { nullable: true }),
    note: t.exposeString('note', { nullable: true }),
    completeness: t.field({ type: CompletenessEnum, resolve: (f) => f.completeness }),
    price: t.field({ type: LiquidationPriceEnum, nullable: true, resolve: (f) => f.price }),
    usd: t.exposeString('usd', { nullable: true, description: "how an order's USD is computed from the payload" }),
    status: t.exposeString('status', { nullable: true, description: 'operational or down: the liquidation stream itself (not the venue\'s other data); null without a feed' }),
    statusReason: t.exposeString('statusReason', { nullable: true }),
    upSince: t.field({ type: 'Timestamp', nullable: true, description: 'start of the current span of uptime', resolve: (f) => f.upSince }),
  }),
})
