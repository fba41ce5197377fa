// GET /v1/liquidations/orders (2 credits): the liquidation orders the venues published, newest first, filtered by
// coin, exchange, side and min_usd; paged (meta.next) inside a fixed window (docs/contract.md#paging); with which
// venues the list holds every order of, a sample of, or none of (docs/methodology.md#liquidation-coverage).
import { z } from 'zod'
import { PositionSide } from '../domain/liquidations.js'
import { coinParam, cursorParam, exchangeParam, nonNegativeParam, optionalEnumParam } from '../domain/params.js'
import { cursorOf, limitParam, nextCursor, windowOf, windowParams, windowRules } from '../domain/series.js'
import { LiquidationOrdersRef } from '../graphql/schema/liquidations.js'
import { liquidationCoverage } from '../read/liquidation-coverage.js'
import { defineEndpoint } from './define.js'
import { missingOf } from './liquidation-history.js'

/** a cursor's position: the ts of the page's oldest order × TIE + how many orders at that ts were shown */
const TIE = 4096

const params = z
  .object({
    coin: coinParam(false),
    exchange: exchangeParam(),
    side: optionalEnumParam(PositionSide, 'long or short: the side of the position liquidated; omitted = both'),
    min_usd: nonNegativeParam('only orders of at least this many USD', 100_000),
    ...windowParams(),
    limit: limitParam('orders', 100),
    cursor: cursorParam(),
  })
  // the position's millisecond is inside the window, or the one before its start (a page that ended on a full millisecond)
  .superRefine(windowRules((c) => (c.s - 1) * TIE <= c.f && c.f < c.e * TIE))

export const liquidationOrders = defineEndpoint({
  path: '/v1/liquidations/orders',
  field: 'liquidationOrders',
  operation: 'liquidation-orders',
  cost: 2,
  summary: 'Individual liquidation orders, newest first; filter by coin, exchange, side, min_usd; paged',
  description: 'Liquidation orders as the venues published them, newest first.',
  params,
  type: LiquidationOrdersRef,
  resolve: async (v, ctx) => {
    const { start, end } = windowOf(v, ctx.now)
    const c = cursorOf(v)
    const from = c ? { ts: Math.floor(c.f / TIE), skip: c.f % TIE } : null
    const q = { coin: v.coin, exchange: v.exchange, side: v.side, minUsd: v.min_usd, start, end, from, limit: v.limit + 1 }
    const rows = await ctx.services.market.reader.liquidationOrders(q)
    const orders = rows.slice(0, v.limit)
    let next: string | null = null
    if (rows.length > v.limit) {
      const last = orders.at(-1)!
      const ties = orders.filter((o) => o.ts === last.ts).length + (from && from.ts === last.ts ? from.skip : 0)
      // more orders at one millisecond than a position holds: page on from the next older millisecond
      next = nextCursor(v, { s: start, e: end, f: ties < TIE ? last.ts * TIE + ties : (last.ts - 1) * TIE })
    }
    // the venues' liquidation streams over the window: a venue whose stream was up and has no order here had none to list
    const cov = await liquidationCoverage(ctx, { window: { from: start, to: end }, coin: v.coin, only: v.exchange, used: orders.map((o) => o.exchange) })
    return { orders, start, end, asOf: Math.min(end, ctx.now), next, missing: missingOf(cov.coverage), ...cov }
  },
})
