// GET /v1/funding/weighted (3 credits): open-interest-weighted funding per coin, with each venue's rate, OI and weight.
import { z } from 'zod'
import type { CoverageGap } from '../analytics/coverage.js'
import { buildWeightedFunding, FUNDING_STATS_WINDOW } from '../analytics/funding.js'
import { coinParam } from '../domain/params.js'
import { WeightedFundingRef } from '../graphql/schema/funding.js'
import { HOUR_MS, floorTo } from '../domain/time.js'
import type { ExchangeId } from '../domain/exchanges.js'
import { coverageOf, missingOrStale, rangesOf, type CoverageContext } from '../read/coverage.js'
import { fundingSamples } from '../read/market-data.js'
import { coinsOf, defineEndpoint, fromAllCoinsView } from './define.js'

export const weightedFunding = defineEndpoint({
  path: '/v1/funding/weighted',
  field: 'weightedFunding',
  operation: 'weighted-funding',
  cost: 3,
  summary: 'Open-interest-weighted funding rate with per-exchange rates, annualized, z-score and percentile',
  description: 'OI-weighted funding rate per coin with each venue\'s rate, OI and weight, annualized, z-score and percentile.',
  params: z.object({ coin: coinParam(false) }),
  type: [WeightedFundingRef],
  resolve: (v, ctx) => fromAllCoinsView(ctx, 'weighted-funding', coinsOf(v, ctx), (coins, now) => fundingView({ services: ctx.services, now }, coins)),
})

/** the weighted funding of each coin asked, at ctx.now */
async function fundingView(ctx: CoverageContext, coins: readonly string[]) {
  const samples = await fundingSamples(ctx.services.market, coins, ctx.now)
  return new Map(coins.map((coin, i) => {
    const f = buildWeightedFunding({ coin, samples: samples[i]!, now: ctx.now })
    const seen = new Set(samples[i]!.filter((x) => x.ts <= ctx.now).map((x) => x.exchange as string))
    // in the weighted rate: a current rate and OI; a venue with a sample but no weight is in only in part
    const weighted = f.exchanges.filter((e) => e.weight !== null).map((e) => e.exchange)
    const gaps: CoverageGap[] = f.exchanges
      .filter((e) => e.weight === null && (e.ts !== null || seen.has(e.exchange)))
      .map((e) => ({ exchange: e.exchange, status: e.ts === null ? 'stale' : 'no_data', reason: e.ts === null ? `latest ${coin} funding sample older than 5 minutes` : (e.reason ?? 'not weighted') }))
    const past = samples[i]!.filter((x) => x.ts <= ctx.now && x.fundingRate !== null)
    const coverage = coverageOf(ctx, {
      coin,
      used: weighted, gaps, noData: () => `no ${coin} perp funding sample`,
      requested: { from: floorTo(ctx.now, HOUR_MS) - FUNDING_STATS_WINDOW.lookbackMs, to: ctx.now },
      ranges: rangesOf(past.filter((x) => weighted.includes(x.exchange as ExchangeId)).map((x) => ({ exchange: x.exchange, ts: floorTo(x.ts, HOUR_MS) })), HOUR_MS),
      toleranceMs: HOUR_MS,
    })
    return [coin, { ...f, missing: missingOrStale(f.exchanges, seen, `${coin} perp funding sample`, '5 minutes'), coverage }]
  }))
}
