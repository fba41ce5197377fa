// Per-interval aggregates of market_sample, computed by the store (one row per venue and interval instead of every
// per-minute sample): open interest OHLC in coins and USD, the last mark/index premium and funding interval, and the
// aggregate OI over the venues present in an interval. Methodology: docs/methodology.md#oi-history, #basis.
import type { Sql } from '../database.js'
import type { ExchangeId } from '../../domain/exchanges.js'

export interface Ohlc {
  open: number
  high: number
  low: number
  close: number
}

export interface VenueSampleBucket {
  exchange: ExchangeId
  /** interval start */
  ts: number
  /** one-sided OI in coins over the interval's samples (null: no OI sample) */
  oi: Ohlc | null
  /** OI × mark of the same sample, over the samples with both */
  oiUsd: Ohlc | null
  /** the interval's last sample with a mark and an index price: mark / index − 1 */
  premium: number | null
  mark: number | null
  index: number | null
  /** the funding interval (hours) of the interval's last sample carrying one */
  fundingIntervalHours: number | null
  /** the first and last sample time in the interval */
  firstTs: number
  lastTs: number
}

export interface AggregateSampleBucket {
  ts: number
  /** the venues with OI in the interval: every slot summed has all of them */
  exchanges: ExchangeId[]
  oi: Ohlc
  /** null when no slot has a USD value for every venue */
  oiUsd: Ohlc | null
}

type Num = number | string | null
const num = (v: Num): number | null => (v === null ? null : Number(v))
const ohlc = (o: Num, h: Num, l: Num, c: Num): Ohlc | null => (o === null || h === null || l === null || c === null ? null : { open: Number(o), high: Number(h), low: Number(l), close: Number(c) })

interface Query {
  coin: string
  start: number
  end: number
  bucketMs: number
  exchange?: ExchangeId
}

const SAMPLES = `SELECT exchange, ts, ts - ts % $4 AS bucket, open_interest AS oi,
    CASE WHEN open_interest IS NOT NULL AND mark_price > 0 THEN open_interest * mark_price END AS usd,
    mark_price, index_price, funding_interval_hours
  FROM market_sample WHERE coin = $1 AND market_type = 'perp' AND ts >= $2 AND ts < $3 AND ($5::text IS NULL OR exchange = $5)`

/** one row per venue and interval with any sample */
export async function readVenueSampleBuckets(sql: Pick<Sql, 'query'>, q: Query): Promise<VenueSampleBucket[]> {
  const rows = await sql.query<Record<string, Num> & { exchange: string }>(
    `WITH s AS (${SAMPLES})
     SELECT exchange, bucket,
       (array_agg(oi ORDER BY ts) FILTER (WHERE oi IS NOT NULL))[1] AS o, max(oi) AS h, min(oi) AS l,
       (array_agg(oi ORDER BY ts DESC) FILTER (WHERE oi IS NOT NULL))[1] AS c,
       (array_agg(usd ORDER BY ts) FILTER (WHERE usd IS NOT NULL))[1] AS uo, max(usd) AS uh, min(usd) AS ul,
       (array_agg(usd ORDER BY ts DESC) FILTER (WHERE usd IS NOT NULL))[1] AS uc,
       (array_agg(mark_price ORDER BY ts DESC) FILTER (WHERE mark_price > 0 AND index_price > 0))[1] AS mark,
       (array_agg(index_price ORDER BY ts DESC) FILTER (WHERE mark_price > 0 AND index_price > 0))[1] AS idx,
       (array_agg(funding_interval_hours ORDER BY ts DESC) FILTER (WHERE funding_interval_hours > 0))[1] AS fih,
       min(ts) AS first_ts, max(ts) AS last_ts
     FROM s GROUP BY exchange, bucket ORDER BY exchange, bucket`,
    [q.coin, q.start, q.end, q.bucketMs, q.exchange ?? null],
  )
  return rows.map((r) => {
    const mark = num(r.mark!)
    const index = num(r.idx!)
    return {
      exchange: r.exchange as ExchangeId,
      ts: Number(r.bucket),
      oi: ohlc(r.o!, r.h!, r.l!, r.c!),
      oiUsd: ohlc(r.uo!, r.uh!, r.ul!, r.uc!),
      premium: mark !== null && index !== null ? mark / index - 1 : null,
      mark,
      index,
      fundingIntervalHours: num(r.fih!),
      firstTs: Number(r.first_ts),
      lastTs: Number(r.last_ts),
    }
  })
}

/**
 * The aggregate OI per interval: the interval's venue set S is every venue with an OI sample in it; a sampling slot
 * counts only when every venue of S has its OI there (Σ over S), so a venue missing from one slot is not a dip.
 */
export async function readAggregateOiBuckets(sql: Pick<Sql, 'query'>, q: Query): Promise<AggregateSampleBucket[]> {
  const rows = await sql.query<Record<string, Num> & { ex: string[] | string }>(
    `WITH s AS (${SAMPLES}),
     o AS (SELECT * FROM s WHERE oi IS NOT NULL),
     v AS (SELECT bucket, count(DISTINCT exchange) AS nv, array_agg(DISTINCT exchange) AS ex FROM o GROUP BY bucket),
     slot AS (SELECT bucket, ts, sum(oi) AS oi, sum(usd) AS usd, count(*) AS n, count(usd) AS nu FROM o GROUP BY bucket, ts)
     SELECT slot.bucket, v.ex,
       (array_agg(slot.oi ORDER BY slot.ts))[1] AS o, max(slot.oi) AS h, min(slot.oi) AS l, (array_agg(slot.oi ORDER BY slot.ts DESC))[1] AS c,
       (array_agg(slot.usd ORDER BY slot.ts) FILTER (WHERE slot.nu = slot.n))[1] AS uo, max(slot.usd) FILTER (WHERE slot.nu = slot.n) AS uh,
       min(slot.usd) FILTER (WHERE slot.nu = slot.n) AS ul, (array_agg(slot.usd ORDER BY slot.ts DESC) FILTER (WHERE slot.nu = slot.n))[1] AS uc
     FROM slot JOIN v ON v.bucket = slot.bucket WHERE slot.n = v.nv GROUP BY slot.bucket, v.ex ORDER BY slot.bucket`,
    [q.coin, q.start, q.end, q.bucketMs, q.exchange ?? null],
  )
  return rows.map((r) => ({
    ts: Number(r.bucket),
    exchanges: (typeof r.ex === 'string' ? r.ex.replace(/[{}]/g, '').split(',') : r.ex) as ExchangeId[],
    oi: ohlc(r.o!, r.h!, r.l!, r.c!)!,
    oiUsd: ohlc(r.uo!, r.uh!, r.ul!, r.uc!),
  }))
}
