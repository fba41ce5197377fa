// Individual large trades: every trade the ingest path sees (live connectors, replay, the live simulator) whose
// notional is at least LARGE_TRADE_STORE_MIN_USD is kept for LARGE_TRADE_RETENTION_MS, then pruned
// (docs/operations.md#large-trades). /v1/flow/large-trades reads them newest first.
import type { Sql } from '../database.js'
import { DAY_MS } from '../../domain/time.js'
import type { ExchangeId, MarketType } from '../../domain/exchanges.js'
import type { TradeEvent } from '../../domain/events.js'

/** trades below this notional (USD) are not stored: the smallest min_usd a caller may ask */
export const LARGE_TRADE_STORE_MIN_USD = 100_000
/** how long stored trades are kept */
export const LARGE_TRADE_RETENTION_MS = 7 * DAY_MS

export interface LargeTrade {
  seq: number
  exchange: ExchangeId
  coin: string
  marketType: MarketType
  tradeId: string
  ts: number
  price: number
  size: number
  side: 'buy' | 'sell'
  notionalUsd: number
}

/** whether the ingest path keeps this trade (at `now`: trades older than the retention are not written) */
export const isStoredLargeTrade = (e: TradeEvent, now: number): boolean => e.price * e.size >= LARGE_TRADE_STORE_MIN_USD && e.ts >= now - LARGE_TRADE_RETENTION_MS

/** insert (a trade already stored, by venue trade id, is left as it is), in the order given */
export async function writeLargeTrades(sql: Pick<Sql, 'query'>, trades: readonly TradeEvent[]): Promise<void> {
  if (!trades.length) return
  await sql.query(
    `INSERT INTO large_trade (exchange, coin, market_type, trade_id, ts, price, size, side, notional_usd)
     SELECT a, b, c, d, e, f, g, h, i
     FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::float8[], $7::float8[], $8::text[], $9::float8[]) WITH ORDINALITY AS t(a, b, c, d, e, f, g, h, i, n)
     ORDER BY n
     ON CONFLICT (exchange, coin, market_type, trade_id) DO NOTHING`,
    [
      trades.map((t) => t.exchange), trades.map((t) => t.coin), trades.map((t) => t.marketType), trades.map((t) => t.id), trades.map((t) => t.ts),
      trades.map((t) => t.price), trades.map((t) => t.size), trades.map((t) => t.side), trades.map((t) => t.price * t.size),
    ],
  )
}

/** drop the trades older than `before` (Unix ms) */
export async function pruneLargeTrades(sql: Pick<Sql, 'query'>, before: number): Promise<void> {
  await sql.query('DELETE FROM large_trade WHERE ts < $1', [before])
}

export interface LargeTradeQuery {
  coin?: string
  exchange?: ExchangeId
  minUsd: number
  /** ts window [from, to) */
  from: number
  to: number
  /** the last row of the previous page: rows strictly after it in newest-first order */
  after?: { ts: number; seq: number }
  limit: number
}

/** newest first (ts, then seq, descending) */
export async function readLargeTrades(sql: Pick<Sql, 'query'>, q: LargeTradeQuery): Promise<LargeTrade[]> {
  const params: unknown[] = [q.minUsd, q.from, q.to, q.limit]
  const where = ['notional_usd >= $1', 'ts >= $2', 'ts < $3']
  if (q.coin) where.push(`coin = $${params.push(q.coin)}`)
  if (q.exchange) where.push(`exchange = $${params.push(q.exchange)}`)
  if (q.after) where.push(`(ts < $${params.push(q.after.ts)} OR (ts = $${params.length} AND seq < $${params.push(q.after.seq)}))`)
  const rows = await sql.query<{ seq: string | number; exchange: string; coin: string; market_type: string; trade_id: string; ts: string | number; price: number; size: number; side: string; notional_usd: number }>(
    `SELECT seq, exchange, coin, market_type, trade_id, ts, price, size, side, notional_usd FROM large_trade WHERE ${where.join(' AND ')} ORDER BY ts DESC, seq DESC LIMIT $4`,
    params,
  )
  return rows.map((r) => ({
    seq: Number(r.seq), exchange: r.exchange as ExchangeId, coin: r.coin, marketType: r.market_type as MarketType, tradeId: r.trade_id, ts: Number(r.ts),
    price: r.price, size: r.size, side: r.side as 'buy' | 'sell', notionalUsd: r.notional_usd,
  }))
}
