// GET /v1/oi/changes (3 credits): open interest per venue and aggregated, with its change over 1h, 4h and 24h.
import { z } from 'zod'
import type { CoverageGap } from '../analytics/coverage.js'
import { buildOiChanges, OI_HORIZON_MS, OI_SAMPLE_TOLERANCE_MS } from '../analytics/oi-changes.js'
import { coinParam } from '../domain/params.js'
import { CoinOiRef } from '../graphql/schema/open-interest.js'
import type { ExchangeId } from '../domain/exchanges.js'
import { coverageOf, missingOrStale, rangesOf, type CoverageContext } from '../read/coverage.js'
import { oiSamples } from '../read/market-data.js'
import { coinsOf, defineEndpoint, fromAllCoinsView } from './define.js'

export const oiChanges = defineEndpoint({
  path: '/v1/oi/changes',
  field: 'oiChanges',
  operation: 'oi-changes',
  cost: 3,
  summary: 'Open interest per exchange and aggregated, with change % over 1h, 4h, 24h',
  description: 'Open interest per exchange and aggregated, in coins and USD, with change % over 1h, 4h, 24h.',
  params: z.object({ coin: coinParam(false) }),
  type: [CoinOiRef],
  resolve: (v, ctx) => fromAllCoinsView(ctx, 'oi-changes', coinsOf(v, ctx), (coins, now) => oiView({ services: ctx.services, now }, coins)),
})

/** the open interest changes of each coin asked, at ctx.now */
async function oiView(ctx: CoverageContext, coins: readonly string[]) {
  const samples = await oiSamples(ctx.services.market, coins, ctx.now)
  return new Map(coins.map((coin, i) => {
    const o = buildOiChanges({ coin, samples: samples[i]!, now: ctx.now })
    const seen = new Set(samples[i]!.filter((x) => x.ts <= ctx.now).map((x) => x.exchange as string))
    const current = o.exchanges.filter((e) => e.oi !== null).map((e) => e.exchange)
    const gaps: CoverageGap[] = o.exchanges
      .filter((e) => e.oi === null && seen.has(e.exchange))
      .map((e) => ({ exchange: e.exchange, status: 'stale', reason: `latest ${coin} open interest older than 5 minutes` }))
    const withOi = samples[i]!.filter((x) => x.ts <= ctx.now && x.openInterest !== null && current.includes(x.exchange as ExchangeId))
    const coverage = coverageOf(ctx, {
      coin,
      used: current, gaps, noData: () => `no ${coin} perp open interest sample`,
      requested: { from: ctx.now - OI_HORIZON_MS['24h'], to: ctx.now },
      // a venue's span: its samples, each good for the tolerance the reference lookup allows
      ranges: rangesOf(withOi, OI_SAMPLE_TOLERANCE_MS),
      toleranceMs: OI_SAMPLE_TOLERANCE_MS,
    })
    return [coin, { ...o, missing: missingOrStale(o.exchanges, seen, `${coin} perp open interest sample`, '5 minutes'), coverage }]
  }))
}
