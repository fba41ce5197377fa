// feed_uptime: when each venue's stream (its liquidation feed) was up, as the source collecting it reported. A span
// written again with a later end extends itself; spans that touch or overlap with the same coins merge into one, so a
// backfill's hours and a live run's ticks leave one row per stretch of uptime, and any time between rows is an outage.
import type { Sql } from '../database.js'
import type { ExchangeId } from '../../domain/exchanges.js'
import type { FeedStream } from '../../domain/events.js'

export interface FeedSpan {
  exchange: ExchangeId
  stream: FeedStream
  coins: string[]
  /** [from, to), Unix ms */
  from: number
  to: number
}

type Query = Pick<Sql, 'query'>

/** writes spans, each merged with the stored spans of its venue, stream and coins that it touches or overlaps */
export async function writeFeedSpans(sql: Pick<Sql, 'transaction'>, spans: readonly FeedSpan[]): Promise<void> {
  // one transaction: a read never sees a span deleted for its merge and not yet written back
  if (spans.length) await sql.transaction((tx) => mergeSpans(tx, spans))
}

async function mergeSpans(sql: Query, spans: readonly FeedSpan[]): Promise<void> {
  for (const s of spans) {
    const coins = [...new Set(s.coins)].sort()
    // the merged span replaces those it met (a concurrent writer's merge at worst leaves two overlapping rows: reads unite them)
    const met = await sql.query<{ from_ts: string; to_ts: string }>(
      `DELETE FROM feed_uptime WHERE exchange = $1 AND stream = $2 AND from_ts <= $4 AND to_ts >= $3 AND coins = $5::text[] RETURNING from_ts, to_ts`,
      [s.exchange, s.stream, s.from, s.to, coins],
    )
    const from = Math.min(s.from, ...met.map((m) => Number(m.from_ts)))
    const to = Math.max(s.to, ...met.map((m) => Number(m.to_ts)))
    await sql.query(
      `INSERT INTO feed_uptime (exchange, stream, coins, from_ts, to_ts) VALUES ($1, $2, $3::text[], $4, $5)
       ON CONFLICT (exchange, stream, from_ts) DO UPDATE SET to_ts = GREATEST(feed_uptime.to_ts, EXCLUDED.to_ts), coins = EXCLUDED.coins`,
      [s.exchange, s.stream, coins, from, to],
    )
  }
}

const spanOf = (r: Record<string, unknown>): FeedSpan => ({
  exchange: r['exchange'] as ExchangeId,
  stream: r['stream'] as FeedStream,
  coins: (r['coins'] as string[] | null) ?? [],
  from: Number(r['from_ts']),
  to: Number(r['to_ts']),
})

/** the spans of a stream that reach into [from, to), of one coin's stream or any; ascending */
export async function readFeedSpans(sql: Query, q: { stream: FeedStream; from: number; to: number; coin?: string }): Promise<FeedSpan[]> {
  const rows = await sql.query<Record<string, unknown>>(
    `SELECT exchange, stream, coins, from_ts, to_ts FROM feed_uptime
     WHERE stream = $1 AND to_ts > $2 AND from_ts < $3 AND ($4::text IS NULL OR $4 = ANY(coins)) ORDER BY exchange, from_ts`,
    [q.stream, q.from, q.to, q.coin ?? null],
  )
  return rows.map(spanOf)
}

/** each venue's latest span of a stream (what says whether it is up now) */
export async function readLatestFeedSpans(sql: Query, stream: FeedStream): Promise<FeedSpan[]> {
  const rows = await sql.query<Record<string, unknown>>(
    `SELECT DISTINCT ON (exchange) exchange, stream, coins, from_ts, to_ts FROM feed_uptime WHERE stream = $1 ORDER BY exchange, to_ts DESC`,
    [stream],
  )
  return rows.map(spanOf)
}
