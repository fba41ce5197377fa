// /v1/markets/ohlc and /v1/markets/ticker.
import { buildOhlc, INTERVAL_MS, LOOKBACK_MS, type Candle, type Lookback, type OhlcInterval, type OhlcPayload } from '../../analytics/ohlc.js'
import { buildTicker, missingTickerRow, TICKER_STALE_MS, type TickerRow } from '../../analytics/ticker.js'
import { HOUR_MS, MINUTE_MS } from '../../domain/time.js'
import { type Bar } from '../../domain/bars.js'
import { EXCHANGE_IDS, type ExchangeId, type MarketType } from '../../domain/exchanges.js'
import { routeArgs, parseRouteArgs, coinsOf } from '../args.js'
import { builder } from '../builder.js'
import { loadAll, loadBars, memoByVersion, pureFragment } from '../market-data.js'
import type { Coverage, WindowRange } from '../../analytics/coverage.js'
import { CoverageRef, coverageOf, ExchangeNoteRef, FundingKindEnum, missingExchanges, rangesOf, venueGaps, type ExchangeNote } from './common.js'

type OhlcMemo = OhlcPayload & { ranges: Map<ExchangeId, WindowRange> }
const ohlcMemo = new WeakMap<object, Map<string, { version: number; value: Promise<OhlcMemo> }>>()

/** the data's span may fall short of the window's ends by this much (the minute in progress is not stored yet) */
export const WINDOW_TOLERANCE_MS = 2 * MINUTE_MS

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

type Ohlc = OhlcPayload & { start: number; end: number; asOf: number; missing: ExchangeNote[]; coverage: Coverage }

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
    coverage: t.field({ type: CoverageRef, resolve: (o) => o.coverage }),
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
        const out = buildOhlc({ coin: v.coin as string, marketType, interval, lookback, end, exchange, minutesByExchange: byExchange })
        // each venue's span: the candles its trades entered
        const size = INTERVAL_MS[interval]
        const ranges = rangesOf(out.candles.flatMap((c) => (c.exchanges ?? [out.exchange]).map((e) => ({ exchange: e, ts: c.ts }))), size)
        return { ...out, ranges }
      })
      const { ranges, ...rest } = payload
      const missing = missingExchanges(marketType, payload.exchanges, () => 'no trades in the window', exchange)
      const coverage = coverageOf(ctx, { marketType, used: payload.exchanges as ExchangeId[], noData: () => 'no trades in the window', only: exchange, requested: { from: start, to: end }, ranges, toleranceMs: WINDOW_TOLERANCE_MS })
      return { ...rest, candles: known ? [] : payload.candles, start, end, asOf: Math.min(end, ctx.now), missing, coverage }
    },
  }),
)

const TickerStatusEnum = builder.enumType('TickerStatus', { values: ['fresh', 'stale', 'no_data', 'down', 'degraded'] as const })

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
    ts: t.field({ type: 'Timestamp', nullable: true, description: 'when the venue reported these values (its own time where its payload has one); null without data', resolve: (r) => r.ts }),
    ageMs: t.exposeFloat('ageMs', { nullable: true }),
    stale: t.exposeBoolean('stale', { description: `no fresh values: older than ${TICKER_STALE_MS / 1000} s, or none` }),
    status: t.field({ type: TickerStatusEnum, description: 'fresh, stale, or why a venue listing the coin has no values (no_data, down, degraded)', resolve: (r) => r.status }),
    reason: t.exposeString('reason', { nullable: true }),
  }),
})

builder.queryField('ticker', (t) =>
  t.field({
    type: [TickerRef],
    description: 'Mark price, index price, funding rate and next funding time per coin and exchange (about every 5 s). Costs 1 credit (GET /v1/markets/ticker).',
    args: routeArgs(t.arg, 'ticker'),
    resolve: async (_r, args, ctx) => {
      const v = parseRouteArgs('ticker', args, ctx)
      const coins = coinsOf(v, ctx)
      const only = v.exchange as ExchangeId | undefined
      const rows = (await loadAll(ctx.loaders.tickers, coins)).flat()
      const live = buildTicker(only ? rows.filter((r) => r.exchange === only) : rows, ctx.now)
      // one row per coin and venue listing it: a venue without values is a row saying why (its coverage)
      const out: TickerRow[] = []
      for (const coin of [...coins].sort()) {
        const have = live.filter((r) => r.coin === coin)
        const gaps = venueGaps(ctx.services.market, ctx.now, 'perp', have.map((r) => r.exchange), () => `no ${coin} perp ticker`, only)
        for (const g of gaps) if (g.status !== 'not_listed') have.push(missingTickerRow(coin, g.exchange, g.status as 'no_data' | 'down' | 'degraded', g.reason))
        out.push(...have.sort((a, b) => EXCHANGE_IDS.indexOf(a.exchange) - EXCHANGE_IDS.indexOf(b.exchange)))
      }
      return out
    },
  }),
)
