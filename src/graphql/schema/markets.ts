// /v1/markets/ohlc and /v1/markets/ticker.
import { buildOhlc, INTERVAL_MS, LOOKBACK_MS, type Candle, type Lookback, type OhlcInterval, type OhlcPayload } from '../../analytics/ohlc.js'
import { buildTicker, TICKER_STALE_MS, type TickerRow } from '../../analytics/ticker.js'
import { HOUR_MS, MINUTE_MS, type Bar } from '../../market/bars.js'
import type { ExchangeId, MarketType } from '../../market/events.js'
import { routeArgs, parseRouteArgs, coinsOf } from '../args.js'
import { builder } from '../builder.js'
import { loadAll, loadBars, memoByVersion, pureFragment } from '../market-data.js'
import { ExchangeNoteRef, FundingKindEnum, missingExchanges, type ExchangeNote } from './common.js'

const ohlcMemo = new WeakMap<object, Map<string, { version: number; value: Promise<OhlcPayload> }>>()

const CandleRef = builder.objectRef<Candle>('Candle').implement({
  description: 'One candle; volumes in coin units',
  fields: (t) => ({
    ts: t.field({ type: 'Timestamp', description: 'bucket open time (UTC-aligned)', resolve: (c) => c.ts }),
    open: t.exposeFloat('open'),
    high: t.exposeFloat('high'),
    low: t.exposeFloat('low'),
    close: t.exposeFloat('close'),
    volume: t.exposeFloat('volume'),
    buyVolume: t.exposeFloat('buyVolume', { description: 'taker-buy volume' }),
    sellVolume: t.exposeFloat('sellVolume', { description: 'taker-sell volume' }),
    trades: t.exposeInt('trades'),
    exchanges: t.stringList({ nullable: true, description: 'composite only: the exchanges whose prices entered this candle', resolve: (c) => c.exchanges ?? null }),
  }),
})

type Ohlc = OhlcPayload & { start: number; end: number; asOf: number; missing: ExchangeNote[] }

const OhlcRef = builder.objectRef<Ohlc>('Ohlc').implement({
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
    candles: t.field({ type: [CandleRef], description: 'oldest first; buckets without trades are omitted', resolve: (o) => o.candles }),
    missing: t.field({ type: [ExchangeNoteRef], resolve: (o) => o.missing }),
  }),
})

builder.queryField('ohlc', (t) =>
  t.field({
    type: OhlcRef,
    description: 'OHLC candles for one coin. Costs 2 credits (GET /v1/markets/ohlc).',
    args: routeArgs(t.arg, 'ohlc'),
    resolve: async (_r, args, ctx) => {
      const v = parseRouteArgs('ohlc', args, ctx)
      const interval = v.interval as OhlcInterval
      const lookback = v.lookback as Lookback
      const marketType = v.market_type as MarketType
      const exchange = v.exchange as ExchangeId | undefined
      const end = (v.end as number | undefined) ?? ctx.now
      const start = end - LOOKBACK_MS[lookback]
      const market = ctx.services.market
      // bars and bucket opens sit on whole minutes, so the candles depend on the window only through its minutes
      const key = `${v.coin}|${exchange ?? ''}|${interval}|${lookback}|${marketType}|${Math.ceil(end / MINUTE_MS)}`
      // the candles are a function of the memo key and the data version: a REST caller that already wrote their
      // JSON for this version gets it again, and GraphQL execution skips them
      const known = pureFragment(ctx, 'candles', `${key}|${market.reader.version('candles')}`)
      const payload = await memoByVersion(market, 'candles', ohlcMemo, key, async () => {
        const bars = await loadBars(market, { coin: v.coin as string, marketType, start, end, exchange, hourly: INTERVAL_MS[interval] >= HOUR_MS })
        const byExchange: Partial<Record<ExchangeId, Bar[]>> = {}
        for (const b of bars) (byExchange[b.exchange] ??= []).push(b)
        return buildOhlc({ coin: v.coin as string, marketType, interval, lookback, end, exchange, minutesByExchange: byExchange })
      })
      const missing = missingExchanges(marketType, payload.exchanges, () => 'no trades in the window', exchange)
      return { ...payload, candles: known ? [] : payload.candles, start, end, asOf: Math.min(end, ctx.now), missing }
    },
  }),
)

const TickerRef = builder.objectRef<TickerRow>('Ticker').implement({
  description: 'Latest mark, index and funding of one perp market',
  fields: (t) => ({
    coin: t.exposeString('coin'),
    exchange: t.exposeString('exchange'),
    markPrice: t.exposeFloat('markPrice', { nullable: true }),
    indexPrice: t.exposeFloat('indexPrice', { nullable: true }),
    fundingRate: t.exposeFloat('fundingRate', { nullable: true, description: 'per funding interval (fundingIntervalHours), not annualized' }),
    fundingKind: t.field({ type: FundingKindEnum, nullable: true, description: 'always predicted here: the rate the next settlement will use, as it stands now; null with fundingRate', resolve: (r) => r.fundingKind }),
    fundingIntervalHours: t.exposeFloat('fundingIntervalHours', { nullable: true }),
    nextFundingTime: t.field({ type: 'Timestamp', nullable: true, resolve: (r) => r.nextFundingTime }),
    ts: t.field({ type: 'Timestamp', description: 'when the venue reported these values', resolve: (r) => r.ts }),
    ageMs: t.exposeFloat('ageMs'),
    stale: t.exposeBoolean('stale', { description: `older than ${TICKER_STALE_MS / 1000} s` }),
  }),
})

builder.queryField('ticker', (t) =>
  t.field({
    type: [TickerRef],
    description: 'Mark price, index price, funding rate and next funding time per coin and exchange (about every 5 s). Costs 1 credit (GET /v1/markets/ticker).',
    args: routeArgs(t.arg, 'ticker'),
    resolve: async (_r, args, ctx) => {
      const v = parseRouteArgs('ticker', args, ctx)
      const rows = (await loadAll(ctx.loaders.tickers, coinsOf(v, ctx))).flat()
      return buildTicker(v.exchange ? rows.filter((r) => r.exchange === v.exchange) : rows, ctx.now)
    },
  }),
)
