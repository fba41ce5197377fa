// GET /v1/flow/imbalance (5 credits): order-book depth and bid/ask ratio within ±0.5, 1, 2, 5 % of mid.
import { z } from 'zod'
import type { CoverageGap } from '../analytics/coverage.js'
import { buildImbalance } from '../analytics/imbalance.js'
import { coinParam, exchangeParam } from '../domain/params.js'
import { CoinImbalanceRef } from '../graphql/schema/flow.js'
import { coverageOf, missingExchanges } from '../read/coverage.js'
import { loadAll, requestLoaders } from '../read/request-loaders.js'
import { coinsOf, defineEndpoint } from './define.js'

const fmtPct = (p: number | null) => (p === null ? 'its whole side' : `${Math.round(p * 1000) / 1000} %`)

export const imbalance = defineEndpoint({
  path: '/v1/flow/imbalance',
  field: 'imbalance',
  operation: 'imbalance',
  cost: 5,
  summary: 'Order-book bid/ask depth and ratio within ±0.5, 1, 2, 5 % of mid, per exchange and aggregated',
  description: 'Order-book bid/ask depth (USD) and ratio within ±0.5, 1, 2, 5 % of mid, per exchange and aggregated.',
  params: z.object({ coin: coinParam(false), exchange: exchangeParam() }),
  type: [CoinImbalanceRef],
  resolve: async (v, ctx) => {
    const coins = coinsOf(v, ctx)
    const books = await loadAll(requestLoaders(ctx).books, coins)
    return coins.map((coin, i) => {
      const list = v.exchange ? books[i]!.filter((b) => b.exchange === v.exchange) : books[i]!
      const c = buildImbalance({ coin, books: list, now: ctx.now })
      const gaps: CoverageGap[] = []
      for (const e of c.exchanges) {
        if (e.stale) gaps.push({ exchange: e.exchange, status: 'stale', reason: `${coin} order book older than 60 s` })
        else if (e.bands === null) gaps.push({ exchange: e.exchange, status: 'no_data', reason: e.reason ?? `no depth bands from the ${coin} order book` })
        else {
          const unreached = (c.aggregate.bands ?? []).filter((b) => b.excluded.some((x) => x.exchange === e.exchange)).map((b) => `±${b.bandPct} %`)
          if (unreached.length) gaps.push({ exchange: e.exchange, status: 'truncated', reason: `the book does not reach ${unreached.join(', ')} (bid side to ${fmtPct(e.bidReachPct)}, ask side to ${fmtPct(e.askReachPct)})` })
        }
      }
      const coverage = coverageOf(ctx, { coin, used: c.aggregate.exchanges, gaps, noData: () => `no ${coin} order book`, only: v.exchange })
      return { ...c, missing: missingExchanges('perp', c.exchanges.map((e) => e.exchange), () => `no ${coin} order book`, v.exchange), coverage }
    })
  },
})
