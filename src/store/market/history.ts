// history_progress (how far each series is stored from the venue's REST history) and history_hole (spans the venue
// cannot serve), and the reads the planner needs: which minutes, open-interest slots and ratio periods a span
// already holds, so a page asks only for what is missing and a resumed or repaired series asks nothing twice.
import type { Sql } from '../database.js'
import type { ExchangeId, MarketType } from '../../domain/exchanges.js'
import type { ExhaustedReason, HistoryKind } from '../../domain/venue-history.js'

export interface SeriesProgress {
  exchange: ExchangeId
  coin: string
  kind: HistoryKind
  /** [coveredFrom, coveredTo): stored from the venue (or found stored) */
  coveredFrom: number
  coveredTo: number
  exhaustedBefore: number | null
  exhaustedReason: ExhaustedReason | null
  pages: number
}

export const seriesKey = (s: { exchange: string; coin: string; kind: string }) => `${s.exchange}:${s.coin}:${s.kind}`

const n = (v: number | string | null) => (v === null ? null : Number(v))

export async function readProgress(sql: Pick<Sql, 'query'>, exchange: ExchangeId): Promise<Map<string, SeriesProgress>> {
  const rows = await sql.query<{ exchange: ExchangeId; coin: string; kind: HistoryKind; covered_from: string | number; covered_to: string | number; exhausted_before: string | number | null; exhausted_reason: ExhaustedReason | null; pages: number }>(
    'SELECT exchange, coin, kind, covered_from, covered_to, exhausted_before, exhausted_reason, pages FROM history_progress WHERE exchange = $1',
    [exchange],
  )
  return new Map(
    rows.map((r) => {
      const p: SeriesProgress = { exchange: r.exchange, coin: r.coin, kind: r.kind, coveredFrom: Number(r.covered_from), coveredTo: Number(r.covered_to), exhaustedBefore: n(r.exhausted_before), exhaustedReason: r.exhausted_reason, pages: Number(r.pages) }
      return [seriesKey(p), p]
    }),
  )
}

export async function writeProgress(sql: Pick<Sql, 'query'>, p: SeriesProgress): Promise<void> {
  await sql.query(
    `INSERT INTO history_progress (exchange, coin, kind, covered_from, covered_to, exhausted_before, exhausted_reason, pages, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now())
     ON CONFLICT (exchange, coin, kind) DO UPDATE SET covered_from = EXCLUDED.covered_from, covered_to = EXCLUDED.covered_to,
       exhausted_before = EXCLUDED.exhausted_before, exhausted_reason = EXCLUDED.exhausted_reason, pages = EXCLUDED.pages, updated_at = now()`,
    [p.exchange, p.coin, p.kind, p.coveredFrom, p.coveredTo, p.exhaustedBefore, p.exhaustedReason, p.pages],
  )
}

export interface HistoryHole {
  exchange: ExchangeId
  coin: string
  marketType: MarketType
  kind: HistoryKind
  /** [from, to), Unix ms */
  from: number
  to: number
  reason: string
}

export async function readHoles(sql: Pick<Sql, 'query'>, exchange?: ExchangeId): Promise<HistoryHole[]> {
  const rows = await sql.query<{ exchange: ExchangeId; coin: string; market_type: MarketType; kind: HistoryKind; from_ts: string | number; to_ts: string | number; reason: string }>(
    `SELECT exchange, coin, market_type, kind, from_ts, to_ts, reason FROM history_hole${exchange ? ' WHERE exchange = $1' : ''} ORDER BY exchange, coin, kind, from_ts`,
    exchange ? [exchange] : [],
  )
  return rows.map((r) => ({ exchange: r.exchange, coin: r.coin, marketType: r.market_type, kind: r.kind, from: Number(r.from_ts), to: Number(r.to_ts), reason: r.reason }))
}

/**
 * What a fetch of [from, to) found for a series: the holes it left (the venue had nothing there) replace the holes
 * stored inside that span (gone where the venue now serves the data); a hole reaching outside the span keeps its
 * outer part.
 */
export async function replaceHoles(sql: Pick<Sql, 'query' | 'transaction'>, series: { exchange: ExchangeId; coin: string; kind: HistoryKind; marketType: MarketType }, span: { from: number; to: number }, holes: readonly { from: number; to: number; reason: string }[]): Promise<void> {
  await sql.transaction(async (tx) => {
    const old = await tx.query<{ from_ts: string | number; to_ts: string | number; reason: string; first_seen: Date }>(
      'DELETE FROM history_hole WHERE exchange = $1 AND coin = $2 AND kind = $3 AND from_ts < $5 AND to_ts > $4 RETURNING from_ts, to_ts, reason, first_seen',
      [series.exchange, series.coin, series.kind, span.from, span.to],
    )
    const keep: { from: number; to: number; reason: string; firstSeen: Date | null }[] = []
    for (const o of old) {
      const [f, t] = [Number(o.from_ts), Number(o.to_ts)]
      if (f < span.from) keep.push({ from: f, to: span.from, reason: o.reason, firstSeen: o.first_seen })
      if (t > span.to) keep.push({ from: span.to, to: t, reason: o.reason, firstSeen: o.first_seen })
    }
    const firstSeen = (h: { from: number; to: number }) => old.find((o) => Number(o.from_ts) < h.to && Number(o.to_ts) > h.from)?.first_seen ?? null
    const all = [...keep, ...holes.map((h) => ({ ...h, firstSeen: firstSeen(h) }))]
    if (!all.length) return
    await tx.query(
      `INSERT INTO history_hole (exchange, coin, market_type, kind, from_ts, to_ts, reason, first_seen, last_try)
       SELECT $1, $2, $3, $4, f, t, r, COALESCE(s, now()), now() FROM unnest($5::bigint[], $6::bigint[], $7::text[], $8::timestamptz[]) AS u(f, t, r, s)
       ON CONFLICT (exchange, coin, kind, from_ts) DO UPDATE SET to_ts = EXCLUDED.to_ts, reason = EXCLUDED.reason, last_try = now()`,
      [series.exchange, series.coin, series.marketType, series.kind, all.map((h) => h.from), all.map((h) => h.to), all.map((h) => h.reason), all.map((h) => h.firstSeen)],
    )
  })
}

/** the minutes of [from, to) stored whole in candle_1m (a minute marked partial counts as missing: a kline completes it) */
export async function storedWholeMinutes(sql: Pick<Sql, 'query'>, q: { exchange: ExchangeId; coin: string; marketType: MarketType; from: number; to: number }): Promise<Set<number>> {
  const rows = await sql.query<{ ts: string | number }>(
    `SELECT c.ts FROM candle_1m c WHERE c.exchange = $1 AND c.coin = $2 AND c.market_type = $3 AND c.ts >= $4 AND c.ts < $5
       AND NOT EXISTS (SELECT 1 FROM minute_partial p WHERE p.exchange = c.exchange AND p.coin = c.coin AND p.market_type = c.market_type AND p.ts = c.ts)`,
    [q.exchange, q.coin, q.marketType, q.from, q.to],
  )
  return new Set(rows.map((r) => Number(r.ts)))
}

/** the stamps of stored perp samples carrying open interest in [from, to) */
export async function storedOiStamps(sql: Pick<Sql, 'query'>, q: { exchange: ExchangeId; coin: string; from: number; to: number }): Promise<number[]> {
  const rows = await sql.query<{ ts: string | number }>(
    `SELECT ts FROM market_sample WHERE exchange = $1 AND coin = $2 AND market_type = 'perp' AND ts >= $3 AND ts < $4 AND open_interest IS NOT NULL ORDER BY ts`,
    [q.exchange, q.coin, q.from, q.to],
  )
  return rows.map((r) => Number(r.ts))
}

/** the stamps of stored positioning ratios of [from, to), per kind of ratio */
export async function storedPositioningStamps(sql: Pick<Sql, 'query'>, q: { exchange: ExchangeId; coin: string; from: number; to: number }): Promise<Map<string, number[]>> {
  const rows = await sql.query<{ kind: string; ts: string | number }>(
    'SELECT kind, ts FROM positioning_sample WHERE exchange = $1 AND coin = $2 AND ts >= $3 AND ts < $4 ORDER BY ts',
    [q.exchange, q.coin, q.from, q.to],
  )
  const out = new Map<string, number[]>()
  for (const r of rows) out.set(r.kind, [...(out.get(r.kind) ?? []), Number(r.ts)])
  return out
}
