// Where a window's stored rows start and end: for cutting a long read into pieces over the rows there are, not
// over the whole window (a year's window over a month of data). Each coin's first and last row by an index scan that
// stops at the first match ((coin, market_type, ts) on the candle tables, (coin, ts) on the others).
import type { Sql } from '../../store/database.js'

/** the windowed tables a read may be cut into pieces over */
export type ExtentTable = 'candle_1m' | 'candle_1h' | 'market_sample' | 'funding_rate' | 'liquidation_minute' | 'positioning_sample'

export interface ExtentQuery {
  coins: readonly string[]
  /** candle and sample tables */
  marketType?: string
  exchange?: string
  /** [start, end), Unix ms */
  start: number
  end: number
}

/** the first and the last `ts` of the rows in the window, or null when there is none */
export async function readExtent(sql: Pick<Sql, 'query'>, table: ExtentTable, q: ExtentQuery): Promise<{ first: number; last: number } | null> {
  const params: unknown[] = [[...q.coins], q.start, q.end]
  const where = ['t.coin = c.coin', 't.ts >= $2', 't.ts < $3']
  if (q.marketType && (table === 'candle_1m' || table === 'candle_1h' || table === 'market_sample')) where.push(`t.market_type = $${params.push(q.marketType)}`)
  if (q.exchange) where.push(`t.exchange = $${params.push(q.exchange)}`)
  const w = where.join(' AND ')
  const [row] = await sql.query<{ first: number | string | null; last: number | string | null }>(
    `SELECT min(f.ts) AS first, max(l.ts) AS last FROM unnest($1::text[]) AS c(coin)
     CROSS JOIN LATERAL (SELECT t.ts FROM ${table} t WHERE ${w} ORDER BY t.ts LIMIT 1) f
     CROSS JOIN LATERAL (SELECT t.ts FROM ${table} t WHERE ${w} ORDER BY t.ts DESC LIMIT 1) l`,
    params,
  )
  return row && row.first !== null && row.last !== null ? { first: Number(row.first), last: Number(row.last) } : null
}
