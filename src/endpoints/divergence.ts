// GET /v1/signals/divergence (5 credits): OI/price, CVD/price, funding/price and spot/perp CVD divergences, 1h and 4h.
import { z } from 'zod'
import type { Coverage, CoverageGap } from '../analytics/coverage.js'
import { lackGaps } from '../analytics/provenance.js'
import { divergenceLookbackMinutes, type CoinDivergence } from '../analytics/divergence.js'
import { coinParam } from '../domain/params.js'
import { CoinDivergenceRef } from '../graphql/schema/signals.js'
import { HOUR_MS, MINUTE_MS, floorTo } from '../domain/time.js'
import type { ExchangeId } from '../domain/exchanges.js'
import { coverageOf, hourRanges, type CoverageContext } from '../read/coverage.js'
import { closeOutlierGaps, coinDivergence } from '../read/signal-inputs.js'
import { coinsOf, defineEndpoint } from './define.js'

export const divergence = defineEndpoint({
  path: '/v1/signals/divergence',
  field: 'divergence',
  operation: 'divergence',
  cost: 5,
  summary: 'OI/price, CVD/price, funding/price and spot/perp CVD divergences on 1h and 4h',
  description: 'OI/price, CVD/price, funding/price and spot/perp CVD divergences on 1h and 4h.',
  params: z.object({ coin: coinParam(false) }),
  rest: { omit: ['active'], why: 'the active pairs are the pairs with active: true, already in pairs' },
  type: [CoinDivergenceRef],
  resolve: (v, ctx) =>
    coinsOf(v, ctx).map((coin) => {
      const d = coinDivergence(ctx.services.market, coin, ctx.now)
      return { ...d, coverage: divergenceCoverage(ctx, coin, d, closeOutlierGaps(d.closeOutliers)) }
    }),
})

function divergenceCoverage(ctx: CoverageContext, coin: string, d: CoinDivergence, gaps: CoverageGap[]): Coverage {
  const used = new Set<ExchangeId>(d.pairs.flatMap((p) => p.legs.flatMap((l) => l.exchanges as ExchangeId[])))
  const from = floorTo(ctx.now, MINUTE_MS) - divergenceLookbackMinutes('4h') * MINUTE_MS
  const closes = ctx.services.market.series.hours.perpCloses(coin, from, ctx.now).filter((c) => used.has(c.exchange))
  const ranges = hourRanges(closes)
  // minutes without a taker split (venue klines) are not in the CVD legs: named per venue (the hours holding them)
  const hours = { from: floorTo(from, HOUR_MS), to: ctx.now }
  const bars = (['perp', 'spot'] as const).flatMap((m) => ctx.services.market.series.hours.marketBars(coin, m, hours.from, hours.to))
  gaps = [...gaps, ...lackGaps(bars, 'no_taker_split', HOUR_MS, hours)]
  return coverageOf(ctx, { coin, used, gaps, noData: () => `no ${coin} perp data`, requested: { from, to: ctx.now }, ranges, toleranceMs: HOUR_MS })
}
