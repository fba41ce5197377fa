// liquidation_order (each order a venue published), liquidation_minute (long/short USD per venue, coin and minute)
// and positioning_sample (the long/short ratios the CEXs publish). The minute rows are never written on their own:
// after new orders go in, the touched minutes are recomputed from the stored orders, so a minute is always the sum
// of the orders in it (a repeated order — a reconnect, a replay — is stored once and counted once).
import type { Sql } from '../database.js'
import type { ExchangeId } from '../../domain/exchanges.js'
import { MINUTE_MS } from '../../domain/time.js'
import type { PositionSide, PositioningKind, SampleSource } from '../../domain/events.js'
import { lastPerKey } from './samples.js'

export interface LiquidationOrderRow {
  exchange: ExchangeId
  coin: string
  ts: number
  id: string
  side: PositionSide
  price: number
  size: number
  usd: number
}

export interface LiquidationMinuteRow {
  exchange: ExchangeId
  coin: string
  ts: number
  longUsd: number
  shortUsd: number
  longCount: number
  shortCount: number
}

export interface PositioningRow {
  exchange: ExchangeId
  coin: string
  kind: PositioningKind
  ts: number
  longShare: number
  shortShare: number
  ratio: number
  periodMs: number
  /** absent: 'live' */
  source?: SampleSource
}

type Query = Pick<Sql, 'query'>

/** stores new orders (a known order is kept as it was) and recomputes the minutes they fall in */
export async function writeLiquidations(sql: Pick<Sql, 'transaction'>, rows: readonly LiquidationOrderRow[]): Promise<void> {
  if (!rows.length) return
  const minutes = new Map<string, { exchange: string; coin: string; ts: number }>()
  for (const r of rows) {
    const ts = Math.floor(r.ts / MINUTE_MS) * MINUTE_MS
    minutes.set(`${r.exchange}|${r.coin}|${ts}`, { exchange: r.exchange, coin: r.coin, ts })
  }
  const m = [...minutes.values()]
  const col = <T>(f: (r: LiquidationOrderRow) => T) => rows.map(f)
  await sql.transaction(async (tx) => {
    await tx.query(
      `INSERT INTO liquidation_order (exchange, coin, ts, id, side, price, size, usd)
       SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::float8[], $7::float8[], $8::float8[])
       ON CONFLICT DO NOTHING`,
      [col((r) => r.exchange), col((r) => r.coin), col((r) => r.ts), col((r) => r.id), col((r) => r.side), col((r) => r.price), col((r) => r.size), col((r) => r.usd)],
    )
    await tx.query(
      `INSERT INTO liquidation_minute (exchange, coin, ts, long_usd, short_usd, long_count, short_count)
       SELECT o.exchange, o.coin, t.m,
              COALESCE(SUM(o.usd) FILTER (WHERE o.side = 'long'), 0), COALESCE(SUM(o.usd) FILTER (WHERE o.side = 'short'), 0),
              COUNT(*) FILTER (WHERE o.side = 'long'), COUNT(*) FILTER (WHERE o.side = 'short')
       FROM unnest($1::text[], $2::text[], $3::bigint[]) AS t(exchange, coin, m)
       JOIN liquidation_order o ON o.exchange = t.exchange AND o.coin = t.coin AND o.ts >= t.m AND o.ts < t.m + ${MINUTE_MS}
       GROUP BY o.exchange, o.coin, t.m
       ON CONFLICT (exchange, coin, ts) DO UPDATE SET long_usd = EXCLUDED.long_usd, short_usd = EXCLUDED.short_usd,
         long_count = EXCLUDED.long_count, short_count = EXCLUDED.short_count`,
      [m.map((x) => x.exchange), m.map((x) => x.coin), m.map((x) => x.ts)],
    )
  })
}

export async function writePositioning(sql: Query, batch: readonly PositioningRow[]): Promise<void> {
  if (!batch.length) return
  // one row per key, the last one (a live one over the history endpoint's): polls between two publications answer the
  // same sample again, and one INSERT may not update a row twice (ON CONFLICT DO UPDATE)
  const rows = lastPerKey(batch, (r) => `${r.exchange}|${r.coin}|${r.kind}|${r.ts}`)
  const col = <T>(f: (r: PositioningRow) => T) => rows.map(f)
  await sql.query(
    `INSERT INTO positioning_sample (exchange, coin, kind, ts, long_share, short_share, ratio, period_ms, source)
     SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::float8[], $6::float8[], $7::float8[], $8::int[], $9::text[])
     ON CONFLICT (exchange, coin, kind, ts) DO UPDATE SET long_share = EXCLUDED.long_share, short_share = EXCLUDED.short_share,
       ratio = EXCLUDED.ratio, period_ms = EXCLUDED.period_ms, source = EXCLUDED.source
     WHERE NOT (positioning_sample.source = 'live' AND EXCLUDED.source = 'venue_history')`,
    [col((r) => r.exchange), col((r) => r.coin), col((r) => r.kind), col((r) => r.ts), col((r) => r.longShare), col((r) => r.shortShare), col((r) => r.ratio), col((r) => r.periodMs), col((r) => r.source ?? 'live')],
  )
}

/** minute rows of coins in [start, end), ascending */
export async function readLiquidationMinutes(sql: Query, q: { coins: readonly string[]; start: number; end: number; exchange?: ExchangeId }): Promise<LiquidationMinuteRow[]> {
  const rows = await sql.query<Record<string, unknown>>(
    `SELECT exchange, coin, ts, long_usd, short_usd, long_count, short_count FROM liquidation_minute
     WHERE coin = ANY($1::text[]) AND ts >= $2 AND ts < $3 AND ($4::text IS NULL OR exchange = $4) ORDER BY ts, exchange`,
    [[...q.coins], q.start, q.end, q.exchange ?? null],
  )
  return rows.map((r) => ({
    exchange: r['exchange'] as ExchangeId,
    coin: String(r['coin']),
    ts: Number(r['ts']),
    longUsd: Number(r['long_usd']),
    shortUsd: Number(r['short_usd']),
    longCount: Number(r['long_count']),
    shortCount: Number(r['short_count']),
  }))
}

export interface OrderQuery {
  coin?: string
  exchange?: ExchangeId
  side?: PositionSide
  minUsd?: number
  start: number
  end: number
  /** newest first from here: orders at or before `ts`, skipping the first `skip` of those at exactly `ts` (the page before showed them) */
  from?: { ts: number; skip: number } | null
  limit: number
}

const orderOf = (r: Record<string, unknown>): LiquidationOrderRow => ({
  exchange: r['exchange'] as ExchangeId,
  coin: String(r['coin']),
  ts: Number(r['ts']),
  id: String(r['id']),
  side: r['side'] as PositionSide,
  price: Number(r['price']),
  size: Number(r['size']),
  usd: Number(r['usd']),
})

/** orders newest first (ts desc, then exchange and id desc), filtered; at most limit rows */
export async function readLiquidationOrders(sql: Query, q: OrderQuery): Promise<LiquidationOrderRow[]> {
  const rows = await sql.query<Record<string, unknown>>(
    `SELECT exchange, coin, ts, id, side, price, size, usd FROM liquidation_order
     WHERE ts >= $1 AND ts < $2 AND ($3::text IS NULL OR coin = $3) AND ($4::text IS NULL OR exchange = $4)
       AND ($5::text IS NULL OR side = $5) AND usd >= $6
       AND ($7::bigint IS NULL OR ts <= $7)
     ORDER BY ts DESC, exchange DESC, id DESC OFFSET $8 LIMIT $9`,
    [q.start, q.end, q.coin ?? null, q.exchange ?? null, q.side ?? null, q.minUsd ?? 0, q.from?.ts ?? null, q.from?.skip ?? 0, q.limit],
  )
  return rows.map(orderOf)
}

export async function readPositioning(sql: Query, q: { coins: readonly string[]; start: number; end: number }): Promise<PositioningRow[]> {
  const rows = await sql.query<Record<string, unknown>>(
    `SELECT exchange, coin, kind, ts, long_share, short_share, ratio, period_ms, source FROM positioning_sample
     WHERE coin = ANY($1::text[]) AND ts >= $2 AND ts < $3 ORDER BY ts, exchange, kind`,
    [[...q.coins], q.start, q.end],
  )
  return rows.map((r) => ({
    exchange: r['exchange'] as ExchangeId,
    coin: String(r['coin']),
    kind: r['kind'] as PositioningKind,
    ts: Number(r['ts']),
    longShare: Number(r['long_share']),
    shortShare: Number(r['short_share']),
    ratio: Number(r['ratio']),
    periodMs: Number(r['period_ms']),
    source: r['source'] as SampleSource,
  }))
}
