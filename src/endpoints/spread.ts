// GET /v1/structure/spread (3 credits): cross-venue perp price spread in bps (marks; last trades where a venue has no
// mark of its own), outliers set aside, the cheapest and dearest venue, z-score.
import { z } from 'zod'
import type { CoverageGap } from '../analytics/coverage.js'
import { buildSpread, SPREAD_MAX_PRICE_AGE_MS, SPREAD_Z_WINDOW } from '../analytics/spread.js'
import { coinParam } from '../domain/params.js'
import { SpreadRef } from '../graphql/schema/structure.js'
import { DAY_MS, MINUTE_MS } from '../domain/time.js'
import { coverageOf, missingExchanges, rangesOf, type CoverageContext } from '../read/coverage.js'
import { currentPrices, lastTradeRows, markRows, noMarkTradeBars, oiSamples } from '../read/market-data.js'
import type { MinuteBar } from '../domain/minute-bars.js'
import { mapInSlices } from '../read/time-slices.js'
import { coinsOf, defineEndpoint, fromAllCoinsView } from './define.js'

export const spread = defineEndpoint({
  path: '/v1/structure/spread',
  field: 'spread',
  operation: 'spread',
  cost: 3,
  summary: 'Cross-exchange price spread in bps with cheapest/dearest venue and z-score',
  description: 'Cross-exchange price spread in bps with the cheapest and dearest venue and a z-score.',
  params: z.object({ coin: coinParam(false) }),
  type: [SpreadRef],
  resolve: (v, ctx) => fromAllCoinsView(ctx, 'spread', coinsOf(v, ctx), (coins, now) => spreadView({ services: ctx.services, now }, coins)),
})

/** the spread of each coin asked, at ctx.now */
async function spreadView(ctx: CoverageContext, coins: readonly string[]) {
  const { market } = ctx.services
  const samples = await oiSamples(market, coins, ctx.now)
  // a coin at a time, each with its own day of last trades (the venues without a mark of their own are priced by
  // them, over the z-score's day), giving the loop a turn whenever a 20 ms slice has passed: computed on the tick
  // for every coin, in one go it held the loop ~230 ms at 12 coins (docs/performance.md, ninth round)
  return new Map(await mapInSlices(coins, async (coin, i) => [coin, spreadOf(coin, samples[i]!, await noMarkTradeBars(market, coin, ctx.now - DAY_MS - SPREAD_Z_WINDOW.stepMs, ctx.now + 1))] as const))

  function spreadOf(coin: string, coinSamples: (typeof samples)[number], coinBars: MinuteBar[]) {
    const rows = [...markRows(coinSamples), ...lastTradeRows(coinBars)]
    const s = buildSpread({ coin, current: currentPrices(market, coin, coinSamples, coinBars), history: rows, now: ctx.now })
    const missing = missingExchanges('perp', s.prices.filter((p) => p.ts !== null).map((p) => p.exchange), () => `no ${coin} perp data`)
    const stale = `latest price older than ${SPREAD_MAX_PRICE_AGE_MS / 60_000} minutes by its own timestamp (stale feed)`
    for (const p of s.prices) if (p.ts !== null && p.price === null) missing.push({ exchange: p.exchange, reason: stale })
    for (const p of s.prices) if (p.outlier) missing.push({ exchange: p.exchange, reason: p.outlierReason! })
    const used = s.prices.filter((p) => p.price !== null && !p.outlier).map((p) => p.exchange)
    const gaps: CoverageGap[] = [
      ...s.prices.filter((p) => p.ts !== null && p.price === null).map((p): CoverageGap => ({ exchange: p.exchange, status: 'stale', reason: stale })),
      ...s.prices.filter((p) => p.outlier).map((p): CoverageGap => ({ exchange: p.exchange, status: 'outlier', reason: p.outlierReason! })),
    ]
    const history = rows.filter((r) => r.price !== null && r.ts <= ctx.now && used.includes(r.exchange))
    const coverage = coverageOf(ctx, {
      coin,
      used, gaps, noData: () => `no ${coin} perp price`,
      requested: { from: ctx.now - SPREAD_Z_WINDOW.lookbackMs, to: ctx.now },
      ranges: rangesOf(history, MINUTE_MS),
      toleranceMs: SPREAD_MAX_PRICE_AGE_MS,
    })
    return { ...s, missing, coverage }
  }
}
