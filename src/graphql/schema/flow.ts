// /v1/flow/imbalance
import { type AggregateBand, type BandDepth, type CoinImbalance, type ExchangeImbalance } from '../../analytics/imbalance.js'
import type { ExchangeNote } from '../../read/coverage.js'
import { builder } from '../builder.js'
import type { Coverage } from '../../analytics/coverage.js'
import { CoverageRef, ExchangeNoteRef } from './common.js'

const BandRef = builder.objectRef<BandDepth>('DepthBand').implement({
  description: 'Depth within ±bandPct of mid on one venue; null numbers when no snapshot of the venue reaches the band (note says why)',
  fields: (t) => ({
    bandPct: t.exposeFloat('bandPct', { description: 'half-width around the mid, %' }),
    bidDepthUsd: t.exposeFloat('bidDepthUsd', { nullable: true }),
    askDepthUsd: t.exposeFloat('askDepthUsd', { nullable: true }),
    ratio: t.exposeFloat('ratio', { nullable: true, description: 'bid depth / ask depth' }),
    source: t.exposeString('source', { nullable: true, description: 'the snapshot measured: "book" (the venue\'s own), or a coarser/deeper one ("nSigFigs=3" on Hyperliquid, "books-full" on OKX)' }),
    granularityPct: t.exposeFloat('granularityPct', { nullable: true, description: 'price bucket of that snapshot, % of mid (0 = exact prices): the band edge is uncertain by this much' }),
    note: t.exposeString('reason', { nullable: true }),
  }),
})

const AggregateBandRef = builder.objectRef<AggregateBand>('AggregateDepthBand').implement({
  description: 'Depth within ±bandPct summed over the venues whose books reach the band',
  fields: (t) => ({
    bandPct: t.exposeFloat('bandPct', { description: 'half-width around the mid, %' }),
    bidDepthUsd: t.exposeFloat('bidDepthUsd', { nullable: true }),
    askDepthUsd: t.exposeFloat('askDepthUsd', { nullable: true }),
    ratio: t.exposeFloat('ratio', { nullable: true, description: 'Σ bid depth / Σ ask depth' }),
    exchanges: t.stringList({ description: 'the venues summed in this band', resolve: (b) => b.exchanges }),
    excluded: t.field({ type: [ExchangeNoteRef], description: 'venues with a book left out of this band, and why', resolve: (b) => b.excluded }),
    note: t.exposeString('reason', { nullable: true }),
  }),
})

const ExchangeImbalanceRef = builder.objectRef<ExchangeImbalance>('ExchangeImbalance').implement({
  fields: (t) => ({
    exchange: t.exposeString('exchange'),
    ts: t.field({ type: 'Timestamp', resolve: (e) => e.ts }),
    stale: t.exposeBoolean('stale', { description: 'the snapshot is older than 60 s (left out of the aggregate)' }),
    mid: t.exposeFloat('mid', { nullable: true }),
    bidReachPct: t.exposeFloat('bidReachPct', { nullable: true, description: 'how far below mid the venue\'s bid side reaches, % of mid; null when it sent its whole side' }),
    askReachPct: t.exposeFloat('askReachPct', { nullable: true, description: 'how far above mid the venue\'s ask side reaches, % of mid; null when it sent its whole side' }),
    bands: t.field({ type: [BandRef], nullable: true, resolve: (e) => e.bands }),
    note: t.exposeString('reason', { nullable: true }),
  }),
})

export type ImbalanceOut = CoinImbalance & { missing: ExchangeNote[]; coverage: Coverage }

const AggregateImbalanceRef = builder.objectRef<CoinImbalance['aggregate']>('AggregateImbalance').implement({
  fields: (t) => ({
    exchanges: t.stringList({ description: 'fresh, valid books (each band names the ones that reach it)', resolve: (a) => a.exchanges }),
    bands: t.field({ type: [AggregateBandRef], nullable: true, resolve: (a) => a.bands }),
    note: t.exposeString('reason', { nullable: true }),
  }),
})

export const CoinImbalanceRef = builder.objectRef<ImbalanceOut>('CoinImbalance').implement({
  description: 'Order-book depth within ±0.5/1/2/5 % of mid and bid/ask ratio, only where a venue\'s book reaches the band (docs/methodology.md#imbalance)',
  fields: (t) => ({
    coin: t.exposeString('coin'),
    ts: t.field({ type: 'Timestamp', resolve: (c) => c.ts }),
    exchanges: t.field({ type: [ExchangeImbalanceRef], resolve: (c) => c.exchanges }),
    aggregate: t.field({ type: AggregateImbalanceRef, resolve: (c) => c.aggregate }),
    missing: t.field({ type: [ExchangeNoteRef], resolve: (c) => c.missing }),
    coverage: t.field({ type: CoverageRef, description: 'venues with a fresh, valid book; a venue whose book does not reach every band is in only in part (truncated)', resolve: (c) => c.coverage }),
  }),
})

