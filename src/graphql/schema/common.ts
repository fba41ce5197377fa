// Types several analytics share.
import { COVERAGE_STATUSES, type Coverage, type CoverageGap, type Delisting } from '../../analytics/coverage.js'
import type { ExchangeNote } from '../../read/coverage.js'
import { builder } from '../builder.js'

export const FundingKindEnum = builder.enumType('FundingKind', {
  description: 'predicted: the rate the next settlement will use, as it stands now (what tickers carry); settled: a past settlement (docs/methodology.md#funding-kind)',
  values: ['predicted', 'settled'] as const,
})

export const ExchangeNoteRef = builder.objectRef<ExchangeNote>('ExchangeNote').implement({
  description: 'An exchange left out of a result, and why (not listed, no data in the window, stale feed)',
  fields: (t) => ({ exchange: t.exposeString('exchange'), reason: t.exposeString('reason') }),
})

const CoverageStatusEnum = builder.enumType('CoverageStatus', {
  description: 'Why a venue is missing from a figure, or in it only in part (docs/methodology.md#coverage)',
  values: COVERAGE_STATUSES,
})

const CoverageGapRef = builder.objectRef<CoverageGap>('CoverageGap').implement({
  fields: (t) => ({
    exchange: t.exposeString('exchange'),
    status: t.field({ type: CoverageStatusEnum, resolve: (g) => g.status }),
    reason: t.exposeString('reason'),
  }),
})

const DelistingRef = builder.objectRef<Delisting>('Delisting').implement({
  description: "A coin that left the universe (COINS=all: a linear USDT/USDC perp on fewer than 2 venues at a daily refresh); its history is kept",
  fields: (t) => ({
    since: t.field({ type: 'Timestamp', resolve: (d) => d.since }),
    note: t.exposeString('note'),
  }),
})

export const CoverageRef = builder.objectRef<Coverage>('Coverage').implement({
  description: 'What a figure covers: the venues in it, those left out and why, and the time range its data spans (docs/methodology.md#coverage)',
  fields: (t) => ({
    exchanges: t.stringList({ description: 'venues whose data entered the figure', resolve: (c) => c.exchanges }),
    missing: t.field({ type: [CoverageGapRef], description: 'venues left out, or in only in part, and why', resolve: (c) => c.missing }),
    from: t.field({ type: 'Timestamp', nullable: true, description: 'start of the data actually used (null for point-in-time figures)', resolve: (c) => c.from }),
    to: t.field({ type: 'Timestamp', nullable: true, description: 'end (exclusive) of the data actually used', resolve: (c) => c.to }),
    requestedFrom: t.field({ type: 'Timestamp', nullable: true, resolve: (c) => c.requestedFrom }),
    requestedTo: t.field({ type: 'Timestamp', nullable: true, resolve: (c) => c.requestedTo }),
    partial: t.exposeBoolean('partial', { description: 'a venue listing the market is missing or in only in part, or the data does not span the requested range' }),
    note: t.exposeString('note', { nullable: true, description: 'why the figure is partial' }),
    delisted: t.field({ type: DelistingRef, nullable: true, description: "the figure's coin left the universe (COINS=all): since when and why; null while it is listed (docs/connectors.md#the-universe)", resolve: (c) => c.delisted }),
  }),
})

