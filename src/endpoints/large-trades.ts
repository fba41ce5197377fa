// GET /v1/flow/large-trades (3 credits): individual trades of at least `min_usd` notional across venues, newest first,
// paged with an opaque cursor over (ts, seq). Only trades of at least the storage threshold are kept, for the
// retention window (docs/operations.md#large-trades), so min_usd below the threshold is refused.
import { z } from 'zod'
import type { Coverage } from '../analytics/coverage.js'
import { AHEAD_MS, coinParam, cursorParam, EARLIEST_MS, exchangeParam, intParam, parsingNow } from '../domain/params.js'
import { cursorOf, cursorRule, limitParam, nextCursor } from '../domain/series.js'
import { HOUR_MS, MINUTE_MS, floorTo } from '../domain/time.js'
import { builder } from '../graphql/builder.js'
import { CoverageRef } from '../graphql/schema/common.js'
import { coverageOf } from '../read/coverage.js'
import type { MarketReader } from '../read/reader.js'
import { LARGE_TRADE_RETENTION_MS, LARGE_TRADE_STORE_MIN_USD, type LargeTrade, type LargeTradeQuery } from '../store/market/large-trades.js'
import { defineEndpoint } from './define.js'

// GraphQL Int is 32-bit
const MAX_MIN_USD = 2_000_000_000

const params = z
  .object({
    coin: coinParam(false),
    exchange: exchangeParam(),
    min_usd: intParam({ min: LARGE_TRADE_STORE_MIN_USD, max: MAX_MIN_USD, default: 1_000_000, description: `smallest notional (USD) of a trade listed; trades under ${LARGE_TRADE_STORE_MIN_USD.toLocaleString('en-US')} are not stored` }),
    limit: limitParam('trades', 100),
    cursor: cursorParam(),
  })
  // a cursor's window is the retention as of its first page cut at its last row (s < e ≤ that page's now + 1; another
  // node's clock may be ahead), f a row's seq
  .superRefine((v, ctx) => cursorRule(v, ctx, (c) => EARLIEST_MS <= c.s && c.s < c.e && c.e - c.s <= LARGE_TRADE_RETENTION_MS + 1 && c.e <= parsingNow() + AHEAD_MS && c.f >= 0))

interface Payload {
  asOf: number
  minUsd: number
  storedMinUsd: number
  retentionHours: number
  trades: LargeTrade[]
  coverage: Coverage
  next: string | null
}

const TradeRef = builder.objectRef<LargeTrade>('LargeTrade').implement({
  fields: (t) => ({
    ts: t.field({ type: 'Timestamp', description: 'the venue\'s trade time', resolve: (x) => x.ts }),
    exchange: t.exposeString('exchange'),
    coin: t.exposeString('coin'),
    marketType: t.exposeString('marketType'),
    side: t.exposeString('side', { description: 'taker side: buy or sell' }),
    price: t.exposeFloat('price'),
    size: t.exposeFloat('size', { description: 'coin units' }),
    notionalUsd: t.exposeFloat('notionalUsd', { description: 'price × size (USDT and USDC count as USD)' }),
    tradeId: t.exposeString('tradeId', { description: 'the venue\'s trade id' }),
  }),
})

const LargeTradesRef = builder.objectRef<Payload>('LargeTrades').implement({
  description: 'Recent trades of at least minUsd across venues, newest first (docs/methodology.md#large-trades)',
  fields: (t) => ({
    asOf: t.field({ type: 'Timestamp', resolve: (p) => p.asOf }),
    minUsd: t.exposeFloat('minUsd'),
    storedMinUsd: t.exposeFloat('storedMinUsd', { description: 'trades under this notional are not stored' }),
    retentionHours: t.exposeInt('retentionHours', { description: 'how long trades are kept' }),
    trades: t.field({ type: [TradeRef], description: 'newest first', resolve: (p) => p.trades }),
    coverage: t.field({ type: CoverageRef, description: 'venues with a listed trade; the window is the retention', resolve: (p) => p.coverage }),
    next: t.exposeString('next', { nullable: true, description: 'cursor of the next page; null on the last' }),
  }),
})

/** rows read beyond a page when the read is widened to whole minutes (see pageRows) */
const WIDENED_SLACK = 64

/**
 * A page of trades, newest first. The first page's window moves with every millisecond, so it is read widened to
 * whole minutes, with some rows to spare (a read the store's memo keeps until trades are written again), and cut
 * to the window here: the window's trades among the widened read's are the first of the exact read's, in its order,
 * so they are the page whenever there are enough of them or the widened read was not cut short by its limit;
 * otherwise the exact window is read.
 */
export async function pageRows(reader: MarketReader, q: LargeTradeQuery & { limit: number }): Promise<LargeTrade[]> {
  if (q.after) return reader.largeTrades(q)
  const limit = q.limit + WIDENED_SLACK
  const wide = await reader.largeTrades({ ...q, from: floorTo(q.from, MINUTE_MS), to: Math.ceil(q.to / MINUTE_MS) * MINUTE_MS, limit })
  const inWindow = wide.filter((r) => r.ts >= q.from && r.ts < q.to)
  return inWindow.length >= q.limit || wide.length < limit ? inWindow.slice(0, q.limit) : reader.largeTrades(q)
}

export const largeTrades = defineEndpoint({
  path: '/v1/flow/large-trades',
  field: 'largeTrades',
  operation: 'large-trades',
  cost: 3,
  summary: 'Recent trades above a notional threshold across venues, newest first, paged',
  description: 'Recent individual trades of at least min_usd across venues, newest first, paged with a cursor.',
  params,
  type: LargeTradesRef,
  resolve: async (v, ctx) => {
    const c = cursorOf(v)
    // the first page fixes the window; a cursor carries it on (its end is the last row's ts + 1, f its seq)
    const from = c ? c.s : ctx.now - LARGE_TRADE_RETENTION_MS
    const to = c ? c.e : ctx.now + 1
    const rows = await pageRows(ctx.services.market.reader, { coin: v.coin, exchange: v.exchange, minUsd: v.min_usd, from, to, after: c ? { ts: c.e - 1, seq: c.f } : undefined, limit: v.limit + 1 })
    const trades = rows.slice(0, v.limit)
    const last = trades.at(-1)
    const next = rows.length > v.limit && last ? nextCursor(v, { s: from, e: last.ts + 1, f: last.seq }) : null
    const coverage = coverageOf(ctx, { coin: v.coin, used: new Set(trades.map((x) => x.exchange)), noData: () => `no trade of at least ${v.min_usd} USD in the last ${LARGE_TRADE_RETENTION_MS / HOUR_MS} h`, only: v.exchange })
    return { asOf: ctx.now, minUsd: v.min_usd, storedMinUsd: LARGE_TRADE_STORE_MIN_USD, retentionHours: LARGE_TRADE_RETENTION_MS / HOUR_MS, trades, coverage, next }
  },
})
