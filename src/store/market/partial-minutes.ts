// minute_partial: the stored minutes that hold only part of their trades, with the part they hold: up to covered_to
// (a shutdown inside the minute) and/or from covered_from (a source that came up inside the minute and cannot replay
// its start). A restart whose source replays the rest reopens a minute cut at its end and completes it; until a
// minute is written whole the mark says the row is short instead of letting it pass for a complete minute, and the
// coverage of what reads it says so.
import type { Sql } from '../database.js'
import type { MarketKey, MinuteBar } from '../../domain/minute-bars.js'
import type { ExchangeId, MarketType } from '../../domain/exchanges.js'
import { rowToBar, type CandleRow } from './candles.js'

export interface PartialMinute {
  bar: MinuteBar
  /** Unix ms of the newest trade the stored row holds */
  coveredTo: number
}

/** the part of a minute a stored row holds: null ends are the minute's own */
export interface MinuteMark {
  coveredFrom: number | null
  coveredTo: number | null
}

export const minuteKey = (k: MarketKey, ts: number) => `${k.exchange}:${k.coin}:${k.marketType}:${ts}`

/**
 * the minutes cut only at their end that are their market's newest stored minute (before `before`), with the stored
 * row (volume at price included): what a source that replays can complete (one cut at its start too cannot be)
 */
export async function readResumablePartials(sql: Pick<Sql, 'query'>, before = Number.MAX_SAFE_INTEGER): Promise<PartialMinute[]> {
  const rows = await sql.query<CandleRow & { covered_to: number | string }>(
    `SELECT c.*, p.covered_to FROM minute_partial p
     JOIN candle_1m c ON c.exchange = p.exchange AND c.coin = p.coin AND c.market_type = p.market_type AND c.ts = p.ts
     WHERE p.covered_to IS NOT NULL AND p.covered_from IS NULL AND p.ts < $1
       AND NOT EXISTS (SELECT 1 FROM candle_1m n WHERE n.exchange = p.exchange AND n.coin = p.coin AND n.market_type = p.market_type AND n.ts > p.ts AND n.ts < $1)`,
    [before],
  )
  return rows.map((r) => ({ bar: rowToBar(r), coveredTo: Number(r.covered_to) }))
}

/** of the bars to write, those holding only part of their minute: cut at the end (`partial`: the newest trade) or begun before their source */
export function marksOf(bars: readonly MinuteBar[], partial: ReadonlyMap<MinuteBar, number>, coveredFrom: (b: MinuteBar) => number | undefined): Map<MinuteBar, MinuteMark> {
  const out = new Map<MinuteBar, MinuteMark>()
  for (const b of bars) {
    const mark = { coveredFrom: coveredFrom(b) ?? null, coveredTo: partial.get(b) ?? null }
    if (mark.coveredFrom !== null || mark.coveredTo !== null) out.set(b, mark)
  }
  return out
}

/** mark stored minutes as partial (or move their mark on) */
export async function markPartial(sql: Pick<Sql, 'query'>, marks: ReadonlyMap<MinuteBar, MinuteMark>): Promise<void> {
  if (!marks.size) return
  const bars = [...marks.keys()]
  const m = [...marks.values()]
  await sql.query(
    `INSERT INTO minute_partial (exchange, coin, market_type, ts, covered_to, covered_from)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[])
     ON CONFLICT (exchange, coin, market_type, ts) DO UPDATE SET covered_to = EXCLUDED.covered_to, covered_from = EXCLUDED.covered_from`,
    [bars.map((b) => b.exchange), bars.map((b) => b.coin), bars.map((b) => b.marketType), bars.map((b) => b.ts), m.map((x) => x.coveredTo), m.map((x) => x.coveredFrom)],
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

export interface StoredMark extends MinuteMark {
  exchange: ExchangeId
  ts: number
}

/** the marked minutes of one coin and market type in [start, end) */
export async function readPartialMinutes(sql: Pick<Sql, 'query'>, q: { coin: string; marketType: MarketType; start: number; end: number }): Promise<StoredMark[]> {
  const rows = await sql.query<{ exchange: ExchangeId; ts: number | string; covered_from: number | string | null; covered_to: number | string | null }>(
    'SELECT exchange, ts, covered_from, covered_to FROM minute_partial WHERE coin = $1 AND market_type = $2 AND ts >= $3 AND ts < $4 ORDER BY ts, exchange',
    [q.coin, q.marketType, q.start, q.end],
  )
  const num = (v: number | string | null) => (v === null ? null : Number(v))
  return rows.map((r) => ({ exchange: r.exchange, ts: Number(r.ts), coveredFrom: num(r.covered_from), coveredTo: num(r.covered_to) }))
}
