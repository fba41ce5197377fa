// GET /v1/markets/ticker (1 credit): the latest mark, index and funding per coin and venue, a row for every venue
// listing the coin (without values, its status says why).
import { z } from 'zod'
import { buildTicker, missingTickerRow, type TickerRow } from '../analytics/ticker.js'
import { coinParam, exchangeParam } from '../domain/params.js'
import { TickerRef } from '../graphql/schema/markets.js'
import { EXCHANGE_IDS } from '../domain/exchanges.js'
import { venueGaps } from '../read/coverage.js'
import { loadAll, requestLoaders } from '../read/request-loaders.js'
import { coinsOf, defineEndpoint } from './define.js'

export const ticker = defineEndpoint({
  path: '/v1/markets/ticker',
  field: 'ticker',
  operation: 'ticker',
  cost: 1,
  summary: 'Mark, index, funding rate and next funding time per exchange (refreshed about every 5 s)',
  description: 'Mark price, index price, funding rate and next funding time per coin and exchange (about every 5 s).',
  params: z.object({ coin: coinParam(false), exchange: exchangeParam() }),
  // the live tickers as of the last data tick: the answer is kept until the next (or ANSWER_MAX_AGE_MS)
  answerVersion: (services) => services.market.live.version,
  type: [TickerRef],
  resolve: async (v, ctx) => {
    const coins = coinsOf(v, ctx)
    const only = v.exchange
    const rows = (await loadAll(requestLoaders(ctx).tickers, coins)).flat()
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
})
