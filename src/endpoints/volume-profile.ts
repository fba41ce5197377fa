// GET /v1/structure/volume-profile (3 credits): volume per price level with HVN/LVN, point of control, value area.
import { z } from 'zod'
import { volumeProfile } from '../analytics/volume-profile.js'
import { coinParam, endParam, exchangeParam, intParam, lookbackParam, marketTypeParam } from '../domain/params.js'
import { LOOKBACK_MS } from '../domain/windows.js'
import { VolumeProfileRef } from '../graphql/schema/profile.js'
import { EXCHANGE_IDS } from '../domain/exchanges.js'
import { CANDLE_TOLERANCE_MS, coverageOf, loadPartialMinuteGaps, missingExchanges } from '../read/coverage.js'
import { coinVap } from '../read/volume-at-price.js'
import { defineEndpoint } from './define.js'
import { HOUR_MS } from '../domain/time.js'
import { VAP_ROW_ROWS, venuesOf, windowRows } from './work.js'
import { spotNeedsCex } from './rules.js'

export const volumeProfileEndpoint = defineEndpoint({
  path: '/v1/structure/volume-profile',
  field: 'volumeProfile',
  operation: 'volume-profile',
  cost: 3,
  summary: 'Volume per price level with HVN/LVN classification, point of control and 70 % value area',
  description: 'Volume profile with HVN/LVN levels, point of control and 70 % value area.',
  params: z
    .object({
      coin: coinParam(true),
      lookback: lookbackParam(),
      bins: intParam({ min: 1, max: 200, default: 50, description: 'number of equal-width price levels (1..200)' }),
      exchange: exchangeParam(),
      market_type: marketTypeParam(),
      end: endParam(),
    })
    .superRefine(spotNeedsCex),
  // hourly candles with their volume at price
  work: (v, now) => windowRows(v, now, HOUR_MS) * venuesOf(v) * VAP_ROW_ROWS,
  type: VolumeProfileRef,
  resolve: async ({ coin, market_type: marketType, exchange, lookback, bins, ...v }, ctx) => {
    const end = v.end ?? ctx.now
    const start = end - LOOKBACK_MS[lookback]
    const q = { coin, marketType, start, end, exchange }
    const [{ vap, exchanges, ranges, klineOnly }, short] = await Promise.all([coinVap(ctx.services.market, q), loadPartialMinuteGaps(ctx.services.market, q)])
    // minutes from venue klines have no volume at price: named (kline_only), never passed off as built from trades
    const gaps = [...short, ...klineOnly]
    const profile = volumeProfile(vap, bins)
    const present = EXCHANGE_IDS.filter((e) => exchanges.has(e))
    return {
      ...profile, coin, exchange: exchange ?? 'all', exchanges: present, marketType, lookback, bins, start, end, asOf: Math.min(end, ctx.now),
      missing: missingExchanges(marketType, present, (e) => klineOnly.find((g) => g.exchange === e)?.reason ?? 'no trades in the window', exchange),
      coverage: coverageOf(ctx, { coin, marketType, used: present, gaps, noData: () => 'no trades in the window', only: exchange, requested: { from: start, to: end }, ranges, toleranceMs: CANDLE_TOLERANCE_MS, history: { coin: q.coin, kinds: [marketType === 'spot' ? 'candles_spot' : 'candles_perp'] } }),
    }
  },
})
