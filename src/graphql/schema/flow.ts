// /v1/flow/imbalance
import { buildImbalance, type BandDepth, type CoinImbalance, type ExchangeImbalance } from '../../analytics/imbalance.js'
import { coinsOf, parseRouteArgs, routeArgs } from '../args.js'
import { builder } from '../builder.js'
import { loadAll } from '../market-data.js'
import { ExchangeNoteRef, missingExchanges, type ExchangeNote } from './common.js'

const BandRef = builder.objectRef<BandDepth>('DepthBand').implement({
  fields: (t) => ({
    bandPct: t.exposeFloat('bandPct', { description: 'half-width around the mid, %' }),
    bidDepthUsd: t.exposeFloat('bidDepthUsd'),
    askDepthUsd: t.exposeFloat('askDepthUsd'),
    ratio: t.exposeFloat('ratio', { nullable: true, description: 'bid depth / ask depth' }),
  }),
})

const ExchangeImbalanceRef = builder.objectRef<ExchangeImbalance>('ExchangeImbalance').implement({
  fields: (t) => ({
    exchange: t.exposeString('exchange'),
    ts: t.field({ type: 'Timestamp', resolve: (e) => e.ts }),
    stale: t.exposeBoolean('stale', { description: 'the snapshot is older than 60 s (left out of the aggregate)' }),
    mid: t.exposeFloat('mid', { nullable: true }),
    bands: t.field({ type: [BandRef], nullable: true, resolve: (e) => e.bands }),
    note: t.exposeString('reason', { nullable: true }),
  }),
})

type Out = CoinImbalance & { missing: ExchangeNote[] }

const AggregateImbalanceRef = builder.objectRef<CoinImbalance['aggregate']>('AggregateImbalance').implement({
  fields: (t) => ({
    exchanges: t.stringList({ resolve: (a) => a.exchanges }),
    bands: t.field({ type: [BandRef], nullable: true, resolve: (a) => a.bands }),
    note: t.exposeString('reason', { nullable: true }),
  }),
})

const CoinImbalanceRef = builder.objectRef<Out>('CoinImbalance').implement({
  description: 'Order-book depth within ±0.5/1/2/5 % of mid and bid/ask ratio (docs/methodology.md#imbalance)',
  fields: (t) => ({
    coin: t.exposeString('coin'),
    ts: t.field({ type: 'Timestamp', resolve: (c) => c.ts }),
    exchanges: t.field({ type: [ExchangeImbalanceRef], resolve: (c) => c.exchanges }),
    aggregate: t.field({ type: AggregateImbalanceRef, resolve: (c) => c.aggregate }),
    missing: t.field({ type: [ExchangeNoteRef], resolve: (c) => c.missing }),
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
        return { ...c, missing: missingExchanges('perp', c.exchanges.map((e) => e.exchange), () => `no ${coin} order book`, v.exchange as never) }
      })
    },
  }),
)
