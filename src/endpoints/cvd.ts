// GET /v1/flow/cvd (3 credits): cumulative volume delta over time, perp and spot, per venue and aggregated, with the
// taker buy and sell volume of each interval (docs/methodology.md#flow-series).
import { z } from 'zod'
import { seriesParams, seriesRules } from '../domain/series.js'
import { builder } from '../graphql/builder.js'
import { FlowLegRef, seriesHeaderFields, type FlowLeg, type SeriesHeader } from '../graphql/schema/series.js'
import { defineEndpoint } from './define.js'
import { candleResolution, venuesOf, windowRows } from './work.js'
import { flowLeg, seriesWindow } from './series-kit.js'

type Cvd = SeriesHeader & { perp: FlowLeg; spot: FlowLeg }

const CvdRef = builder.objectRef<Cvd>('CvdSeries').implement({
  description: 'Cumulative volume delta of one coin per interval, perp and spot (docs/methodology.md#flow-series)',
  fields: (t) => ({
    ...seriesHeaderFields(t),
    perp: t.field({ type: FlowLegRef, description: 'perpetual futures on every venue', resolve: (c) => c.perp }),
    spot: t.field({ type: FlowLegRef, description: 'spot markets: the venues that have one (Binance, Bybit, OKX); the others are not_listed in its coverage', resolve: (c) => c.spot }),
  }),
})

export const cvd = defineEndpoint({
  path: '/v1/flow/cvd',
  field: 'cvd',
  operation: 'cvd',
  cost: 3,
  summary: 'Cumulative volume delta series, perp and spot, per exchange and aggregated, with taker buy and sell volume per interval',
  description: 'Cumulative volume delta (taker buy − taker sell volume, cumulated from the window start) per interval, perp and spot, per venue and aggregated.',
  params: z.object(seriesParams()).superRefine(seriesRules),
  // perp and spot candles over the window
  work: (v, now) => 2 * windowRows(v, now, candleResolution(v.interval)) * venuesOf(v),
  rest: {
    omit: ['perp.exchanges.points.ratio', 'perp.exchanges.points.exchanges', 'perp.aggregate.ratio', 'spot.exchanges.points.ratio', 'spot.exchanges.points.exchanges', 'spot.aggregate.ratio'],
    why: 'the buy/sell ratio is GET /v1/flow/taker-volume\'s; a venue\'s own points have no list of venues summed',
  },
  type: CvdRef,
  resolve: async (v, ctx) => {
    const w = seriesWindow(v, ctx.now)
    const q = { coin: v.coin, exchange: v.exchange, w }
    const [perp, spot] = await Promise.all([flowLeg(ctx, { ...q, marketType: 'perp' }), flowLeg(ctx, { ...q, marketType: 'spot' })])
    return { coin: v.coin, interval: v.interval, exchange: v.exchange ?? null, start: w.start, end: w.end, asOf: Math.min(w.end, ctx.now), next: w.next, perp, spot }
  },
})
