// /v1/markets/ohlc and /v1/markets/ticker.
import { type Candle, type OhlcPayload } from '../../analytics/ohlc.js'
import { TICKER_CLOCK_SKEW_MS, TICKER_STALE_MS, type TickerRow } from '../../analytics/ticker.js'
import type { ExchangeNote } from '../../read/coverage.js'
import { builder } from '../builder.js'
import type { Coverage } from '../../analytics/coverage.js'
import { CoverageRef, ExchangeNoteRef, FundingKindEnum } from './common.js'
import { fragmentList } from '../list-fragments.js'

const CandleRef = builder.objectRef<Candle>('Candle').implement({
  description: 'One candle; volumes in coin units',
  fields: (t) => ({
    ts: t.field({ type: 'Timestamp', description: 'bucket open time (UTC-aligned)', resolve: (c) => c.ts }),
    open: t.exposeFloat('open'),
    high: t.exposeFloat('high'),
    low: t.exposeFloat('low'),
    close: t.exposeFloat('close'),
    volume: t.exposeFloat('volume'),
    buyVolume: t.exposeFloat('buyVolume', { nullable: true, description: 'taker-buy volume, over the minutes with a taker split (noSplitMinutes: those without); null when none has one' }),
    sellVolume: t.exposeFloat('sellVolume', { nullable: true, description: 'taker-sell volume, over the same minutes as buyVolume' }),
    trades: t.exposeInt('trades', { nullable: true, description: 'trade count; null when a minute of the candle is a venue kline without one' }),
    exchanges: t.stringList({ nullable: true, description: 'composite only: the exchanges whose prices entered this candle', resolve: (c) => c.exchanges ?? null }),
    outliers: t.stringList({ nullable: true, description: 'composite only: the exchanges left out of this candle, their close more than 5 % from the median of the venues\' closes (coverage status outlier; docs/methodology.md#price-outliers)', resolve: (c) => c.outliers ?? null }),
    source: t.exposeString('source', { description: 'where the candle\'s minutes came from: trades (folded from the venue\'s trades), venue_kline (the venue\'s own candles; when any minute is one) or simulated (docs/data.md#provenance)' }),
    noSplitMinutes: t.exposeInt('noSplitMinutes', { description: 'venue-minutes of the candle without a taker split: buyVolume and sellVolume cover the others' }),
    klineMinutes: t.exposeInt('klineMinutes', { description: 'venue-minutes of the candle built from venue klines' }),
  }),
})

export type Ohlc = OhlcPayload & { start: number; end: number; asOf: number; missing: ExchangeNote[]; coverage: Coverage; next: string | null }

export const OhlcRef = builder.objectRef<Ohlc>('Ohlc').implement({
  description: 'Candles resampled from stored 1-minute trade aggregates (docs/methodology.md#ohlc)',
  fields: (t) => ({
    coin: t.exposeString('coin'),
    exchange: t.exposeString('exchange', { description: 'the exchange, or "composite" across every exchange listing the market' }),
    exchanges: t.stringList({ description: 'the exchanges whose data the candles include', resolve: (o) => o.exchanges }),
    interval: t.exposeString('interval'),
    lookback: t.exposeString('lookback'),
    marketType: t.exposeString('marketType'),
    start: t.field({ type: 'Timestamp', description: 'window start (inclusive)', resolve: (o) => o.start }),
    end: t.field({ type: 'Timestamp', description: 'window end (exclusive)', resolve: (o) => o.end }),
    asOf: t.field({ type: 'Timestamp', resolve: (o) => o.asOf }),
    candles: t.field({ type: [CandleRef], description: 'oldest first; buckets without trades are omitted', resolve: fragmentList((o) => o.candles) }),
    missing: t.field({ type: [ExchangeNoteRef], resolve: (o) => o.missing }),
    coverage: t.field({ type: CoverageRef, resolve: (o) => o.coverage }),
    next: t.exposeString('next', { nullable: true, description: 'cursor of the next page (pass it as cursor with the same arguments); null on the last page. REST puts it in meta.next' }),
  }),
})

const TickerStatusEnum = builder.enumType('TickerStatus', { values: ['fresh', 'stale', 'no_data', 'down', 'degraded'] as const })

export const TickerRef = builder.objectRef<TickerRow>('Ticker').implement({
  description: 'Latest mark, index and funding of one perp market',
  fields: (t) => ({
    coin: t.exposeString('coin'),
    exchange: t.exposeString('exchange'),
    markPrice: t.exposeFloat('markPrice', { nullable: true, description: 'the venue\'s mark price; null on dYdX, which publishes none apart from its oracle (markNote)' }),
    indexPrice: t.exposeFloat('indexPrice', { nullable: true, description: 'the venue\'s index (dYdX and Hyperliquid: the oracle price)' }),
    fundingRate: t.exposeFloat('fundingRate', { nullable: true, description: 'per funding interval (fundingIntervalHours), not annualized' }),
    fundingKind: t.field({ type: FundingKindEnum, nullable: true, description: 'always predicted here: the rate the next settlement will use, as it stands now; null with fundingRate', resolve: (r) => r.fundingKind }),
    fundingIntervalHours: t.exposeFloat('fundingIntervalHours', { nullable: true }),
    nextFundingTime: t.field({ type: 'Timestamp', nullable: true, resolve: (r) => r.nextFundingTime }),
    ts: t.field({ type: 'Timestamp', nullable: true, description: 'when the venue reported these values (its own time where its payload has one); null without data', resolve: (r) => r.ts }),
    ageMs: t.exposeFloat('ageMs', { nullable: true }),
    stale: t.exposeBoolean('stale', { description: `no fresh values: older than ${TICKER_STALE_MS / 1000} s, stamped more than ${TICKER_CLOCK_SKEW_MS / 1000} s after now, or none` }),
    status: t.field({ type: TickerStatusEnum, description: 'fresh, stale, or why a venue listing the coin has no values (no_data, down, degraded)', resolve: (r) => r.status }),
    reason: t.exposeString('reason', { nullable: true }),
    markNote: t.exposeString('markNote', { nullable: true, description: 'why markPrice is null on a venue without a mark of its own (dYdX)' }),
  }),
})

