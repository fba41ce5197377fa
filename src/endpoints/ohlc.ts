// GET /v1/markets/ohlc (2 credits): candles resampled from 1-minute trade aggregates, for one venue or as a composite.
import { z } from 'zod'
import { buildOhlc } from '../analytics/ohlc.js'
import { outlierRunReason } from '../analytics/price-outliers.js'
import type { CoverageGap } from '../analytics/coverage.js'
import { lackGaps } from '../analytics/provenance.js'
import type { Bar } from '../domain/bars.js'
import { HOUR_MS, MINUTE_MS } from '../domain/time.js'
import { coinParam, endParam, enumParam, exchangeParam, lookbackParam, marketTypeParam } from '../domain/params.js'
import { Interval, INTERVAL_MS } from '../domain/windows.js'
import { cursorParam } from '../domain/params.js'
import { limitParam, MAX_LIMIT, pageOf, seriesRules } from '../domain/series.js'
import { OhlcRef } from '../graphql/schema/markets.js'
import type { ExchangeId } from '../domain/exchanges.js'
import { CANDLE_TOLERANCE_MS, coverageOf, loadPartialMinuteGaps, missingExchanges, rangesOf } from '../read/coverage.js'
import { loadBars } from '../read/market-data.js'
import { cacheOf } from '../read/versioned-cache.js'
import { defineEndpoint } from './define.js'
import { candleResolution, venuesOf, windowRows } from './work.js'
import { intervalWithinLookback, spotNeedsCex } from './rules.js'
import { onPage } from './series-kit.js'

const params = z
  .object({
    coin: coinParam(true),
    exchange: exchangeParam('one exchange; omitted = a composite series across every exchange listing the market (volumes summed, prices volume-weighted)'),
    interval: enumParam(Interval, { description: 'candle size', default: '1h' }),
    lookback: lookbackParam(),
    market_type: marketTypeParam(),
    end: endParam(),
    // up to MAX_LIMIT candles answer in one page, as before paging existed; longer 1m/5m windows page on
    limit: limitParam('candles', MAX_LIMIT),
    cursor: cursorParam(),
  })
  .superRefine(intervalWithinLookback)
  .superRefine(spotNeedsCex)
  .superRefine(seriesRules)

type Payload = ReturnType<typeof buildOhlc> & { ranges: ReturnType<typeof rangesOf>; short: CoverageGap[] }

export const ohlc = defineEndpoint({
  path: '/v1/markets/ohlc',
  field: 'ohlc',
  operation: 'ohlc',
  cost: 2,
  summary: 'OHLC candles resampled from 1-minute trade aggregates; one exchange, or a composite across all when exchange is omitted',
  description: 'OHLC candles for one coin.',
  params,
  work: (v, now) => windowRows(v, now, candleResolution(v.interval)) * venuesOf(v),
  type: OhlcRef,
  resolve: async (v, ctx) => {
    const { coin, interval, lookback, market_type: marketType, exchange } = v
    // the cursor, when given, fixes the window of the first page
    const page = pageOf(v, INTERVAL_MS[interval], ctx.now)
    const { start, end } = page
    // the candles a window holds start at its first whole bucket (the one before holds trades from before the window)
    const first = Math.ceil(start / INTERVAL_MS[interval]) * INTERVAL_MS[interval]
    const market = ctx.services.market
    // bars and bucket opens sit on whole minutes, so the candles depend on the window only through its minutes
    const key = `${coin}|${exchange ?? ''}|${interval}|${lookback}|${marketType}|${Math.ceil(end / MINUTE_MS)}`
    const payload = await cacheOf<Promise<Payload>>(market, 'ohlc', { oneVersion: true }).get(key, market.reader.version('candles'), async () => {
      const hourly = INTERVAL_MS[interval] >= HOUR_MS
      const bars = await loadBars(market, { coin, marketType, start, end, exchange, hourly })
      const byExchange: Partial<Record<ExchangeId, Bar[]>> = {}
      for (const b of bars) (byExchange[b.exchange] ??= []).push(b)
      const out = buildOhlc({ coin, marketType, interval, lookback, end, exchange, minutesByExchange: byExchange })
      // each venue's span: the candles its trades entered
      const size = INTERVAL_MS[interval]
      const ranges = rangesOf(out.candles.flatMap((c) => (c.exchanges ?? [out.exchange]).map((e) => ({ exchange: e, ts: c.ts }))), size)
      // stored minutes a restart left short are in the candles: their venues are in only in part
      const short = await loadPartialMinuteGaps(market, { coin, marketType, start: first, end, exchange })
      // minutes from venue klines without a taker split or a trade count: those candle fields cover the others only
      const lacks = (['no_taker_split', 'no_trade_count'] as const).flatMap((what) => lackGaps(bars, what, hourly ? HOUR_MS : MINUTE_MS, { from: first, to: end }))
      return { ...out, ranges, short: [...short, ...lacks] }
    })
    const { ranges, short, candles: all, ...rest } = payload
    const shown = onPage(all, page)
    // a venue left out of candles as an outlier is named with why, in only part of the window or in none of it
    const gaps = [...payload.outliers.map((o): CoverageGap => ({ exchange: o.exchange, status: 'outlier', reason: outlierRunReason(o, all.length, 'candles') })), ...short]
    const why = (e: ExchangeId) => gaps.find((g) => g.exchange === e)?.reason ?? 'no trades in the window'
    const missing = missingExchanges(marketType, payload.exchanges, why, exchange)
    const coverage = coverageOf(ctx, { coin, marketType, used: payload.exchanges as ExchangeId[], gaps, noData: () => 'no trades in the window', only: exchange, requested: { from: first, to: end }, ranges, toleranceMs: CANDLE_TOLERANCE_MS, history: { coin, kinds: [marketType === 'spot' ? 'candles_spot' : 'candles_perp'] } })
    return { ...rest, candles: shown, start, end, asOf: Math.min(end, ctx.now), missing, coverage, next: page.next }
  },
})
