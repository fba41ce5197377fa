// GET /v1/flow/taker-volume (2 credits): taker buy and sell volume and their ratio per interval, per venue and
// aggregated (docs/methodology.md#flow-series).
import { z } from 'zod'
import { marketTypeParam } from '../domain/params.js'
import { seriesParams, seriesRules } from '../domain/series.js'
import { builder } from '../graphql/builder.js'
import { flowLegFields, seriesHeaderFields, type FlowLeg, type SeriesHeader } from '../graphql/schema/series.js'
import { defineEndpoint } from './define.js'
import { candleResolution, venuesOf, windowRows } from './work.js'
import { spotNeedsCex } from './rules.js'
import { flowLeg, seriesWindow } from './series-kit.js'

type TakerVolume = SeriesHeader & FlowLeg

const TakerVolumeRef = builder.objectRef<TakerVolume>('TakerVolumeSeries').implement({
  description: 'Taker buy and sell volume of one coin per interval, per venue and aggregated (docs/methodology.md#flow-series)',
  fields: (t) => ({ ...seriesHeaderFields(t), ...flowLegFields(t) }),
})

export const takerVolume = defineEndpoint({
  path: '/v1/flow/taker-volume',
  field: 'takerVolume',
  operation: 'taker-volume',
  cost: 2,
  summary: 'Taker buy and sell volume and buy/sell ratio per interval, per exchange and aggregated',
  description: 'Taker buy and sell volume (coin units) and the buy/sell ratio per interval, per venue and aggregated.',
  params: z
    .object({ ...seriesParams(), market_type: marketTypeParam() })
    .superRefine(spotNeedsCex)
    .superRefine(seriesRules),
  work: (v, now) => windowRows(v, now, candleResolution(v.interval)) * venuesOf(v),
  rest: {
    omit: ['exchanges.points.delta', 'exchanges.points.cvd', 'exchanges.points.exchanges', 'aggregate.delta', 'aggregate.cvd'],
    why: 'delta and CVD are GET /v1/flow/cvd\'s; a venue\'s own points have no list of venues summed',
  },
  type: TakerVolumeRef,
  resolve: async (v, ctx) => {
    const w = seriesWindow(v, ctx.now)
    const leg = await flowLeg(ctx, { coin: v.coin, exchange: v.exchange, marketType: v.market_type, w })
    return { coin: v.coin, interval: v.interval, exchange: v.exchange ?? null, start: w.start, end: w.end, asOf: Math.min(w.end, ctx.now), next: w.next, ...leg }
  },
})
