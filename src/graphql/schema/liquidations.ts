// /v1/liquidations/history, /v1/liquidations/orders, /v1/liquidations/heatmap, /v1/positioning/long-short
import type { Coverage } from '../../analytics/coverage.js'
import type { LiquidationHistory, LiquidationPoint } from '../../analytics/liquidations.js'
import type { LiquidationCoverage } from '../../analytics/liquidation-coverage.js'
import { LIQUIDATION_FEEDS, type FeedInfo } from '../../domain/liquidations.js'
import type { PositioningPoint, PositioningSeries, VenuePositioning } from '../../analytics/positioning.js'
import type { ExchangeNote } from '../../read/coverage.js'
import type { LiquidationOrderRow } from '../../store/market/liquidations.js'
import { builder } from '../builder.js'
import { CoverageRef, ExchangeNoteRef } from './common.js'
import { LiquidationCoverageRef, LiquidationPriceEnum } from './liquidation-coverage.js'
import { exchangeFirst, seriesHeaderFields, type SeriesHeader } from './series.js'

export const FeedInfoRef = builder.objectRef<FeedInfo>('FeedInfo').implement({
  description: 'Whether a venue publishes a kind of data, from where, and what to know reading it',
  fields: (t) => ({
    published: t.exposeBoolean('published'),
    source: t.exposeString('source', { nullable: true }),
    note: t.exposeString('note', { nullable: true }),
  }),
})

const PointRef = builder.objectRef<LiquidationPoint>('LiquidationPoint').implement({
  fields: (t) => ({
    ts: t.field({ type: 'Timestamp', description: 'interval start', resolve: (p) => p.ts }),
    longUsd: t.exposeFloat('longUsd', { description: 'USD of long positions liquidated in the interval' }),
    shortUsd: t.exposeFloat('shortUsd', { description: 'USD of short positions liquidated in the interval' }),
    totalUsd: t.exposeFloat('totalUsd'),
    longCount: t.exposeInt('longCount'),
    shortCount: t.exposeInt('shortCount'),
  }),
})

const VenueSeriesRef = builder.objectRef<{ exchange: string; points: LiquidationPoint[] }>('LiquidationVenueSeries').implement({
  fields: (t) => ({ exchange: t.exposeString('exchange'), points: t.field({ type: [PointRef], resolve: (s) => s.points }) }),
})

export type LiquidationHistoryOut = LiquidationHistory & {
  coin: string
  exchange: string | null
  interval: string
  start: number
  end: number
  asOf: number
  missing: ExchangeNote[]
  coverage: Coverage
  liquidationCoverage: LiquidationCoverage
  next: string | null
}

export const LiquidationHistoryRef = builder.objectRef<LiquidationHistoryOut>('LiquidationHistory').implement({
  description: 'Long and short liquidated USD per interval, per venue and across venues, from the stored orders',
  fields: (t) => ({
    coin: t.exposeString('coin'),
    exchange: t.exposeString('exchange', { nullable: true }),
    interval: t.exposeString('interval'),
    start: t.field({ type: 'Timestamp', resolve: (h) => h.start }),
    end: t.field({ type: 'Timestamp', resolve: (h) => h.end }),
    asOf: t.field({ type: 'Timestamp', resolve: (h) => h.asOf }),
    totalLongUsd: t.exposeFloat('totalLongUsd', { description: 'over the intervals of this page' }),
    totalShortUsd: t.exposeFloat('totalShortUsd'),
    aggregate: t.field({ type: [PointRef], description: 'every venue summed', resolve: (h) => h.aggregate }),
    exchanges: t.field({ type: [VenueSeriesRef], resolve: (h) => h.exchanges }),
    missing: t.field({ type: [ExchangeNoteRef], resolve: (h) => h.missing }),
    coverage: t.field({ type: CoverageRef, resolve: (h) => h.coverage }),
    liquidationCoverage: t.field({ type: LiquidationCoverageRef, description: 'which venues the sums cover completely, as a lower bound or not at all, over the whole window', resolve: (h) => h.liquidationCoverage }),
    next: t.exposeString('next', { nullable: true, description: 'cursor for the next page; null on the last' }),
  }),
})

const OrderRef = builder.objectRef<LiquidationOrderRow>('LiquidationOrder').implement({
  fields: (t) => ({
    exchange: t.exposeString('exchange'),
    coin: t.exposeString('coin'),
    ts: t.field({ type: 'Timestamp', resolve: (o) => o.ts }),
    id: t.exposeString('id', { description: "the venue's id, or one made of the order's fields where the venue sends none" }),
    side: t.exposeString('side', { description: 'long or short: the position that was closed' }),
    price: t.exposeFloat('price', { description: 'the price the venue reports (priceBasis)' }),
    priceBasis: t.field({
      type: LiquidationPriceEnum,
      nullable: true,
      description: "which price that is: Binance the order's average fill, Bybit and OKX the position's bankruptcy price, dYdX the trade's fill",
      resolve: (o) => LIQUIDATION_FEEDS[o.exchange].price,
    }),
    size: t.exposeFloat('size', { description: 'coins' }),
    usd: t.exposeFloat('usd', { description: 'price × size (USDT and USDC at par)' }),
  }),
})

export type LiquidationOrdersOut = { orders: LiquidationOrderRow[]; start: number; end: number; asOf: number; missing: ExchangeNote[]; coverage: Coverage; liquidationCoverage: LiquidationCoverage; next: string | null }

export const LiquidationOrdersRef = builder.objectRef<LiquidationOrdersOut>('LiquidationOrders').implement({
  description: 'Liquidation orders as the venues published them, newest first',
  fields: (t) => ({
    start: t.field({ type: 'Timestamp', resolve: (o) => o.start }),
    end: t.field({ type: 'Timestamp', resolve: (o) => o.end }),
    asOf: t.field({ type: 'Timestamp', resolve: (o) => o.asOf }),
    orders: t.field({ type: [OrderRef], resolve: (o) => o.orders }),
    missing: t.field({ type: [ExchangeNoteRef], resolve: (o) => o.missing }),
    coverage: t.field({ type: CoverageRef, resolve: (o) => o.coverage }),
    liquidationCoverage: t.field({ type: LiquidationCoverageRef, description: 'which venues the list holds every order of, a sample of, or none of, over the window', resolve: (o) => o.liquidationCoverage }),
    next: t.exposeString('next', { nullable: true }),
  }),
})

const PositioningPointRef = builder.objectRef<PositioningPoint>('PositioningPoint').implement({
  description: 'A long/short figure as the venue published it',
  fields: (t) => ({
    ts: t.field({ type: 'Timestamp', description: 'series: interval start; latest: the sample time', resolve: (p) => p.ts }),
    sampledAt: t.field({ type: 'Timestamp', description: "the venue's timestamp of the sample (series: the interval's last sample)", resolve: (p) => p.sampledAt }),
    longShare: t.exposeFloat('longShare', { description: 'share long, 0..1' }),
    shortShare: t.exposeFloat('shortShare', { description: 'share short, 0..1' }),
    ratio: t.exposeFloat('ratio', { description: 'long / short as the venue published it' }),
  }),
})

const PositioningSeriesRef = builder.objectRef<PositioningSeries>('PositioningSeries').implement({
  fields: (t) => ({
    latest: t.field({ type: PositioningPointRef, nullable: true, description: "the window's last sample; null when none is stored", resolve: (s) => s.latest }),
    points: t.field({ type: [PositioningPointRef], description: 'ascending; an interval without a sample is absent', resolve: (s) => s.points }),
  }),
})

export type VenuePositioningOut = VenuePositioning & { available: boolean; feed: FeedInfo }

const VenuePositioningRef = builder.objectRef<VenuePositioningOut>('VenuePositioning').implement({
  fields: (t) => ({
    exchange: t.exposeString('exchange'),
    available: t.exposeBoolean('available', { description: 'whether the venue publishes long/short ratios (the DEXs do not)' }),
    feed: t.field({ type: FeedInfoRef, resolve: (v) => v.feed }),
    account: t.field({ type: PositioningSeriesRef, nullable: true, description: 'share of accounts net long and short; null where the venue publishes none', resolve: (v) => v.account }),
    topPosition: t.field({ type: PositioningSeriesRef, nullable: true, description: "long and short share of the top traders' positions (Binance); null where the venue publishes none", resolve: (v) => v.topPosition }),
  }),
})

export type LongShortOut = SeriesHeader & { exchanges: VenuePositioningOut[]; missing: ExchangeNote[]; coverage: Coverage }

export const LongShortRef = builder.objectRef<LongShortOut>('LongShortRatios').implement({
  description: 'Account and top-trader long/short ratios per CEX, latest and per interval (docs/methodology.md#positioning)',
  fields: (t) => ({
    ...exchangeFirst(seriesHeaderFields(t)),
    exchanges: t.field({ type: [VenuePositioningRef], description: 'every venue asked for, the DEXs marked not available', resolve: (o) => o.exchanges }),
    missing: t.field({ type: [ExchangeNoteRef], resolve: (o) => o.missing }),
    coverage: t.field({ type: CoverageRef, resolve: (o) => o.coverage }),
  }),
})
