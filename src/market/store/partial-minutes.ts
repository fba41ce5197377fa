// minute_partial: the stored minutes that hold only part of their trades (a shutdown inside the minute), with how
// far each reaches. A restart whose source replays the rest reopens the minute and completes it; until then the
// mark says the row is short instead of letting it pass for a complete minute.
import type { Sql } from '../../store/database.js'
import type { MarketKey, MinuteBar } from '../bars.js'
import { rowToBar, type CandleRow } from './candles.js'

export interface PartialMinute {
  bar: MinuteBar
  /** Unix ms of the newest trade the stored row holds */
  coveredTo: number
}

export const minuteKey = (k: MarketKey, ts: number) => `${k.exchange}:${k.coin}:${k.marketType}:${ts}`

/** the partial minutes that are their market's newest stored minute, with the stored row (volume at price included) */
export async function readResumablePartials(sql: Pick<Sql, 'query'>): Promise<PartialMinute[]> {
  const rows = await sql.query<CandleRow & { covered_to: number | string }>(
    `SELECT c.*, p.covered_to FROM minute_partial p
     JOIN candle_1m c ON c.exchange = p.exchange AND c.coin = p.coin AND c.market_type = p.market_type AND c.ts = p.ts
     WHERE NOT EXISTS (SELECT 1 FROM candle_1m n WHERE n.exchange = p.exchange AND n.coin = p.coin AND n.market_type = p.market_type AND n.ts > p.ts)`,
  )
  return rows.map((r) => ({ bar: rowToBar(r), coveredTo: Number(r.covered_to) }))
}

/** mark stored minutes as partial (or move their mark on) */
export async function markPartial(sql: Pick<Sql, 'query'>, marks: readonly PartialMinute[]): Promise<void> {
  if (!marks.length) return
  await sql.query(
    `INSERT INTO minute_partial (exchange, coin, market_type, ts, covered_to)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[])
     ON CONFLICT (exchange, coin, market_type, ts) DO UPDATE SET covered_to = EXCLUDED.covered_to`,
    [marks.map((m) => m.bar.exchange), marks.map((m) => m.bar.coin), marks.map((m) => m.bar.marketType), marks.map((m) => m.bar.ts), marks.map((m) => m.coveredTo)],
  )
}

/** these minutes were written whole: they are partial no more */
export async function clearPartial(sql: Pick<Sql, 'query'>, bars: readonly MinuteBar[]): Promise<void> {
  if (!bars.length) return
  await sql.query(
    `DELETE FROM minute_partial p USING unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) AS d(exchange, coin, market_type, ts)
     WHERE p.exchange = d.exchange AND p.coin = d.coin AND p.market_type = d.market_type AND p.ts = d.ts`,
    [bars.map((b) => b.exchange), bars.map((b) => b.coin), bars.map((b) => b.marketType), bars.map((b) => b.ts)],
  )
}
