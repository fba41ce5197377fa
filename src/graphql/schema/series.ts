// Output types the series endpoints share (/v1/flow/cvd, /v1/flow/taker-volume, /v1/oi/history,
// /v1/funding/history, /v1/structure/basis): the window header of a page and the flow points.
import type { AggregateFlowPoint, FlowPoint, VenueFlowSeries } from '../../analytics/flow-series.js'
import type { Coverage } from '../../analytics/coverage.js'
import type { ExchangeNote } from '../../read/coverage.js'
import { builder } from '../builder.js'
import { CoverageRef, ExchangeNoteRef } from './common.js'
import { fragmentList } from '../list-fragments.js'

/** what every series page says about its window */
export interface SeriesHeader {
  coin: string
  interval: string
  /** the one exchange asked for, else null */
  exchange: string | null
  start: number
  end: number
  asOf: number
  next: string | null
}

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T> ? T : never
/** the field builder of an object type whose values are P */
export type Fields<P> = PothosSchemaTypes.ObjectFieldBuilder<Types, P>

/** the header fields, added to a series type's fields */
export const seriesHeaderFields = <P extends SeriesHeader>(t: Fields<P>) => ({
  coin: t.string({ resolve: (o: P) => o.coin }),
  interval: t.string({ description: 'point spacing; points sit at UTC-aligned interval starts', resolve: (o: P) => o.interval }),
  exchange: t.string({ nullable: true, description: 'the one exchange asked for; null = every venue and the aggregate', resolve: (o: P) => o.exchange }),
  start: t.field({ type: 'Timestamp', description: 'window start (inclusive)', resolve: (o: P) => o.start }),
  end: t.field({ type: 'Timestamp', description: 'window end (exclusive)', resolve: (o: P) => o.end }),
  asOf: t.field({ type: 'Timestamp', resolve: (o: P) => o.asOf }),
  next: t.string({ nullable: true, description: 'cursor of the next page (pass it as cursor with the same arguments); null on the last page. REST puts it in meta.next', resolve: (o: P) => o.next }),
})

/** the same header with exchange before interval: the order the heatmap's and the long/short ratios' REST bodies have always had */
export const exchangeFirst = <H extends { coin: unknown; exchange: unknown }>({ coin, exchange, ...rest }: H): H => ({ coin, exchange, ...rest }) as H

const FlowPointRef = builder.objectRef<FlowPoint & { exchanges?: string[] }>('FlowPoint').implement({
  description: 'Taker flow of one interval, coin units (docs/methodology.md#flow-series)',
  fields: (t) => ({
    ts: t.field({ type: 'Timestamp', description: 'interval open time (UTC-aligned)', resolve: (p) => p.ts }),
    buyVolume: t.exposeFloat('buyVolume', { description: 'taker-buy volume' }),
    sellVolume: t.exposeFloat('sellVolume', { description: 'taker-sell volume' }),
    delta: t.exposeFloat('delta', { description: 'buyVolume − sellVolume' }),
    cvd: t.exposeFloat('cvd', { description: 'cumulative delta from the window\'s first interval through this one' }),
    ratio: t.exposeFloat('ratio', { nullable: true, description: 'buyVolume / sellVolume; null when nothing was sold' }),
    exchanges: t.stringList({ nullable: true, description: 'aggregate points: the venues with a bar in this interval, summed', resolve: (p) => p.exchanges ?? null }),
  }),
})

const VenueFlowRef = builder.objectRef<VenueFlowSeries>('VenueFlowSeries').implement({
  fields: (t) => ({
    exchange: t.exposeString('exchange'),
    points: t.field({ type: [FlowPointRef], description: 'ascending; an interval without a bar of the venue is absent (never a zero)', resolve: fragmentList((v) => v.points) }),
  }),
})

export interface FlowLeg {
  marketType: string
  exchanges: VenueFlowSeries[]
  /** null when one exchange was asked for */
  aggregate: AggregateFlowPoint[] | null
  missing: ExchangeNote[]
  coverage: Coverage
}

/** the flow fields of one market type */
export const flowLegFields = <P extends FlowLeg>(t: Fields<P>) => ({
  marketType: t.string({ resolve: (l: P) => l.marketType }),
  exchanges: t.field({ type: [VenueFlowRef], description: 'each venue with bars in the window', resolve: (l: P) => l.exchanges }),
  aggregate: t.field({ type: [FlowPointRef], nullable: true, description: 'summed over the venues with a bar in each interval (each point names them); null when one exchange was asked for', resolve: fragmentList((l: P) => l.aggregate) }),
  missing: t.field({ type: [ExchangeNoteRef], resolve: (l: P) => l.missing }),
  coverage: t.field({ type: CoverageRef, resolve: (l: P) => l.coverage }),
})

export const FlowLegRef = builder.objectRef<FlowLeg>('FlowLeg').implement({
  description: 'Taker flow of one market type: per venue and aggregated',
  fields: (t) => flowLegFields(t),
})
