// /v1/flow/imbalance
import { buildImbalance, type AggregateBand, type BandDepth, type CoinImbalance, type ExchangeImbalance } from '../../analytics/imbalance.js'
import { coinsOf, parseRouteArgs, routeArgs } from '../args.js'
import { builder } from '../builder.js'
import { loadAll } from '../market-data.js'
import type { Coverage, CoverageGap } from '../../analytics/coverage.js'
import type { ExchangeId } from '../../domain/exchanges.js'
import { CoverageRef, coverageOf, ExchangeNoteRef, missingExchanges, type ExchangeNote } from './common.js'

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

type Out = CoinImbalance & { missing: ExchangeNote[]; coverage: Coverage }

const AggregateImbalanceRef = builder.objectRef<CoinImbalance['aggregate']>('AggregateImbalance').implement({
  fields: (t) => ({
    exchanges: t.stringList({ description: 'fresh, valid books (each band names the ones that reach it)', resolve: (a) => a.exchanges }),
    bands: t.field({ type: [AggregateBandRef], nullable: true, resolve: (a) => a.bands }),
    note: t.exposeString('reason', { nullable: true }),
  }),
})

const CoinImbalanceRef = builder.objectRef<Out>('CoinImbalance').implement({
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

builder.queryField('imbalance', (t) =>
  t.field({
    type: [CoinImbalanceRef],
    description: 'Order-book bid/ask depth (USD) and ratio within ±0.5, 1, 2, 5 % of mid, per exchange and aggregated. Costs 5 credits (GET /v1/flow/imbalance).',
    args: routeArgs(t.arg, 'imbalance'),
    resolve: async (_r, args, ctx) => {
      const v = parseRouteArgs('imbalance', args, ctx)
      const coins = coinsOf(v, ctx)
      const books = await loadAll(ctx.loaders.books, coins)
      return coins.map((coin, i) => {
        const list = v.exchange ? books[i]!.filter((b) => b.exchange === v.exchange) : books[i]!
        const c = buildImbalance({ coin, books: list, now: ctx.now })
        const gaps: CoverageGap[] = []
        for (const e of c.exchanges) {
          if (e.stale) gaps.push({ exchange: e.exchange, status: 'stale', reason: `${coin} order book older than 60 s` })
          else if (e.bands === null) gaps.push({ exchange: e.exchange, status: 'no_data', reason: e.reason ?? `no depth bands from the ${coin} order book` })
          else {
            const unreached = (c.aggregate.bands ?? []).filter((b) => b.excluded.some((x) => x.exchange === e.exchange)).map((b) => `±${b.bandPct} %`)
            if (unreached.length) gaps.push({ exchange: e.exchange, status: 'truncated', reason: `the book does not reach ${unreached.join(', ')} (bid side to ${fmtPct(e.bidReachPct)}, ask side to ${fmtPct(e.askReachPct)})` })
          }
        }
        const coverage = coverageOf(ctx, { used: c.aggregate.exchanges, gaps, noData: () => `no ${coin} order book`, only: v.exchange as ExchangeId | undefined })
        return { ...c, missing: missingExchanges('perp', c.exchanges.map((e) => e.exchange), () => `no ${coin} order book`, v.exchange as never), coverage }
      })
    },
  }),
)

const fmtPct = (p: number | null) => (p === null ? 'its whole side' : `${Math.round(p * 1000) / 1000} %`)
