// candle_1m and candle_1h: bulk writes through one unnest statement (Prisma's per-row cost is too high for
// market data), hourly rollups recomputed from the minute rows they summarize, and windowed reads.
// Provenance: every row keeps its source (domain/bars.ts); a field the source does not give is NULL. A venue kline
// never replaces a stored minute folded from trades (live, imported or simulated) unless that minute is marked partial
// (minute_partial: cut by a restart or an outage, the kline is the whole minute and completes it; its mark goes with
// it): the upsert skips it, and the rows the write returns are those the store now holds. A minute from trades
// replaces a stored kline.
import type { Sql } from '../database.js'
import { type CandleSource, type MarketKey, type MinuteBar } from '../../domain/minute-bars.js'
import { HOUR_MS, floorTo } from '../../domain/time.js'
import { type Bar } from '../../domain/bars.js'
import { EXCHANGE_IDS, type ExchangeId, type MarketType } from '../../domain/exchanges.js'
import { decodeVap, encodeVap } from '../../domain/minute-vap.js'
import { foldBars } from './rollup.js'
import { CopyBinaryWriter } from '../copy-binary.js'

export type CandleTable = 'candle_1m' | 'candle_1h'

/** a CandleRow's columns without volume at price, with their types for a binary read (selectRows) */
export const CANDLE_VALUE_COLUMNS = [
  ['exchange', 'text'], ['coin', 'text'], ['market_type', 'text'], ['ts', 'int8'], ['open', 'float8'], ['high', 'float8'], ['low', 'float8'], ['close', 'float8'],
  ['volume', 'float8'], ['buy_volume', 'float8'], ['sell_volume', 'float8'], ['quote_volume', 'float8'], ['trades', 'int4'],
  ['source', 'text'], ['no_split_minutes', 'int4'], ['kline_minutes', 'int4'],
] as const
const WIDTH = CANDLE_VALUE_COLUMNS.length + 1
/** their names, as a select list */
export const CANDLE_VALUE_LIST = CANDLE_VALUE_COLUMNS.map(([c]) => c).join(', ')
const COLUMNS = `${CANDLE_VALUE_LIST}, vap`
const COLUMN_NAMES = COLUMNS.split(', ')

/**
 * COPY rows that cannot exist yet (new history), in the binary format: about 4× faster than the upsert on the
 * store, and 2× faster than a CSV COPY (no text floats to format here and parse in the server). In pieces of
 * COPY_ROWS, so no one buffer holds a whole backfilled hour of every coin.
 */
async function copyBars(sql: Sql, table: CandleTable, bars: readonly MinuteBar[]): Promise<void> {
  for (let i = 0; i < bars.length; i += COPY_ROWS) {
    const w = new CopyBinaryWriter(Math.min(COPY_ROWS, bars.length - i) * 256)
    for (let j = i; j < Math.min(bars.length, i + COPY_ROWS); j++) {
      const b = bars[j]!
      w.row(WIDTH).text(b.exchange).text(b.coin).text(b.marketType).int8(b.ts)
      // (float8 writes a null as NULL)
      w.float8(b.open).float8(b.high).float8(b.low).float8(b.close).float8(b.volume).float8(b.buyVolume).float8(b.sellVolume).float8(b.quoteVolume)
      if (b.trades === null) w.null()
      else w.int4(b.trades)
      w.text(b.source).int4(b.noSplitMinutes).int4(b.klineMinutes).bytea(encodeVap(b.vap))
    }
    await sql.copyBinary!(table, COLUMN_NAMES, w.finish())
  }
}

/** rows per COPY statement (~256 bytes each) */
const COPY_ROWS = 1000

/**
 * upsert bars (a later write of the same minute replaces it: re-imports are idempotent), except that a venue kline
 * never replaces a minute folded from trades; `fresh` rows are new and may be COPYed. Returns the bars the store now
 * holds (all of them unless a kline met a stored minute from trades).
 */
async function writeBars(sql: Pick<Sql, 'query'> & Partial<Pick<Sql, 'copyBinary'>>, table: CandleTable, bars: readonly MinuteBar[], opts: { fresh?: boolean; chunk?: number } = {}): Promise<readonly MinuteBar[]> {
  if (opts.fresh && sql.copyBinary && bars.length) {
    await copyBars(sql as Sql, table, bars)
    return bars
  }
  const chunk = opts.chunk ?? 20_000
  let kept: MinuteBar[] | null = null
  for (let i = 0; i < bars.length; i += chunk) {
    const part = bars.slice(i, i + chunk)
    const cols: unknown[][] = Array.from({ length: WIDTH }, () => new Array(part.length))
    part.forEach((b, j) => {
      cols[0]![j] = b.exchange
      cols[1]![j] = b.coin
      cols[2]![j] = b.marketType
      cols[3]![j] = b.ts
      cols[4]![j] = b.open
      cols[5]![j] = b.high
      cols[6]![j] = b.low
      cols[7]![j] = b.close
      cols[8]![j] = b.volume
      cols[9]![j] = b.buyVolume
      cols[10]![j] = b.sellVolume
      cols[11]![j] = b.quoteVolume
      cols[12]![j] = b.trades
      cols[13]![j] = b.source
      cols[14]![j] = b.noSplitMinutes
      cols[15]![j] = b.klineMinutes
      cols[16]![j] = encodeVap(b.vap)
    })
    // only a batch with klines can meet a minute it must not replace: only then are the rows written asked back
    const klines = table === 'candle_1m' && part.some((b) => b.source === 'venue_kline')
    const rows = await sql.query<{ exchange: string; coin: string; market_type: string; ts: number | string }>(
      `INSERT INTO ${table} (${COLUMNS})
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::float8[], $6::float8[], $7::float8[], $8::float8[],
                            $9::float8[], $10::float8[], $11::float8[], $12::float8[], $13::int[], $14::text[], $15::int[], $16::int[], $17::bytea[])
       ON CONFLICT (exchange, coin, market_type, ts) DO UPDATE SET
         open = EXCLUDED.open, high = EXCLUDED.high, low = EXCLUDED.low, close = EXCLUDED.close, volume = EXCLUDED.volume,
         buy_volume = EXCLUDED.buy_volume, sell_volume = EXCLUDED.sell_volume, quote_volume = EXCLUDED.quote_volume,
         trades = EXCLUDED.trades, source = EXCLUDED.source, no_split_minutes = EXCLUDED.no_split_minutes,
         kline_minutes = EXCLUDED.kline_minutes, vap = EXCLUDED.vap
       ${klines ? `WHERE EXCLUDED.source <> 'venue_kline' OR ${table}.source = 'venue_kline'
         OR EXISTS (SELECT 1 FROM minute_partial p WHERE p.exchange = EXCLUDED.exchange AND p.coin = EXCLUDED.coin AND p.market_type = EXCLUDED.market_type AND p.ts = EXCLUDED.ts)
       RETURNING exchange, coin, market_type, ts` : ''}`,
      cols,
    )
    if (klines) {
      const held = new Set(rows.map((r) => `${r.exchange}|${r.coin}|${r.market_type}|${Number(r.ts)}`))
      kept ??= bars.slice(0, i)
      for (const b of part) if (held.has(`${b.exchange}|${b.coin}|${b.marketType}|${b.ts}`)) kept.push(b)
    } else kept?.push(...part)
  }
  return kept ?? bars
}

export interface CandleRow {
  exchange: string
  coin: string
  market_type: string
  ts: number | string
  open: number
  high: number
  low: number
  close: number
  volume: number
  buy_volume: number | null
  sell_volume: number | null
  quote_volume: number | null
  trades: number | null
  source: string
  no_split_minutes: number
  kline_minutes: number
  vap?: Uint8Array
}

/** a stored candle row as a bar of its market, without volume at price (the hot series keeps no VAP) */
export function rowToBarValues(r: CandleRow): Bar & MarketKey {
  return {
    exchange: r.exchange as ExchangeId,
    coin: r.coin,
    marketType: r.market_type as MarketType,
    ts: Number(r.ts),
    open: r.open,
    high: r.high,
    low: r.low,
    close: r.close,
    volume: r.volume,
    buyVolume: r.buy_volume,
    sellVolume: r.sell_volume,
    quoteVolume: r.quote_volume,
    trades: r.trades === null ? null : Number(r.trades),
    source: r.source as CandleSource,
    noSplitMinutes: Number(r.no_split_minutes),
    klineMinutes: Number(r.kline_minutes),
  }
}

export function rowToBar(r: CandleRow, withVap = true): MinuteBar {
  const bar = rowToBarValues(r) as MinuteBar
  bar.vap = withVap && r.vap ? decodeVap(r.vap) : new Map()
  return bar
}

const hourKey = (k: MarketKey, hour: number) => `${k.exchange}|${k.coin}|${k.marketType}|${hour}`

/** the minutes of recently written hours, per market and hour, kept by a long-running writer (the live ingest) */
export type HourCache = Map<string, Map<number, MinuteBar>>

/**
 * Write minute bars and bring the hourly rollups of every hour they touch up to date.
 * `fresh`: the caller knows no other minute of those hours is in the store (a backfill of new history),
 * so the rollups are folded from the bars in hand instead of being read back.
 * `freshHours`: no row of those hours is in candle_1h either (nothing else can write them meanwhile), so the
 * rollups are COPYed too.
 * Returns the minutes the store now holds (a venue kline that met a stored minute from trades is not among them)
 * and the hourly rollups as now stored.
 */
export async function writeMinuteBars(
  sql: Pick<Sql, 'query'> & Partial<Pick<Sql, 'copyBinary'>>,
  given: readonly MinuteBar[],
  opts: { fresh?: boolean; freshHours?: boolean; hourCache?: HourCache } = {},
): Promise<{ minuteBars: readonly MinuteBar[]; hourBars: MinuteBar[] }> {
  if (!given.length) return { minuteBars: [], hourBars: [] }
  const bars = await writeBars(sql, 'candle_1m', given, { fresh: opts.fresh })
  if (!bars.length) return { minuteBars: [], hourBars: [] }
  const hours = new Map<string, { key: MarketKey; hour: number; bars: MinuteBar[] }>()
  for (const b of bars) {
    const hour = floorTo(b.ts, HOUR_MS)
    const k = hourKey(b, hour)
    let h = hours.get(k)
    if (!h) hours.set(k, (h = { key: b, hour, bars: [] }))
    h.bars.push(b)
  }
  let groups = [...hours.values()]
  const cache = opts.hourCache
  if (cache) {
    // hours this writer already holds in full: merge the new minutes in memory instead of reading them back
    const known = groups.filter((g) => cache.has(hourKey(g.key, g.hour)))
    const unknown = groups.filter((g) => !cache.has(hourKey(g.key, g.hour)))
    const loaded = opts.fresh ? unknown : await readHoursBack(sql, unknown)
    for (const g of [...known, ...loaded]) {
      const k = hourKey(g.key, g.hour)
      const minutes = cache.get(k) ?? new Map<number, MinuteBar>()
      for (const b of g.bars) minutes.set(b.ts, b)
      cache.set(k, minutes)
    }
    groups = [...known, ...loaded].map((g) => ({ ...g, bars: [...cache.get(hourKey(g.key, g.hour))!.values()].sort((a, b) => a.ts - b.ts) }))
    // only the current and previous hour can still change
    const newest = Math.max(...groups.map((g) => g.hour))
    for (const k of cache.keys()) if (Number(k.slice(k.lastIndexOf('|') + 1)) < newest - HOUR_MS) cache.delete(k)
  } else if (!opts.fresh) groups = await readHoursBack(sql, groups)
  const hourBars = groups.map((g) => ({ ...foldBars(g.bars, g.hour), exchange: g.key.exchange, coin: g.key.coin, marketType: g.key.marketType }))
  // rollups upsert unless the caller knows better: a live feed may already have written the hour the history ends in
  await writeBars(sql, 'candle_1h', hourBars, { fresh: opts.fresh && opts.freshHours })
  return { minuteBars: bars, hourBars }
}

/** hours read back per statement: at most 60 rows each, so a statement reads about as many rows as writeBars writes */
const HOURS_PER_READ = 300

/**
 * the complete minute rows of each touched hour, from the store (the source of truth); a batch of many hours (a
 * fortnight written in one flush) is read in statements of HOURS_PER_READ hours, each within the store's bound
 */
async function readHoursBack(sql: Pick<Sql, 'query'>, groups: { key: MarketKey; hour: number; bars: MinuteBar[] }[]) {
  const byKey = new Map(groups.map((g) => [hourKey(g.key, g.hour), { ...g, bars: [] as MinuteBar[] }]))
  for (let i = 0; i < groups.length; i += HOURS_PER_READ) {
    const part = groups.slice(i, i + HOURS_PER_READ)
    const rows = await sql.query<CandleRow>(
      `SELECT c.* FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) AS h(exchange, coin, market_type, hour)
       JOIN candle_1m c ON c.exchange = h.exchange AND c.coin = h.coin AND c.market_type = h.market_type
        AND c.ts >= h.hour AND c.ts < h.hour + ${HOUR_MS}`,
      [part.map((g) => g.key.exchange), part.map((g) => g.key.coin), part.map((g) => g.key.marketType), part.map((g) => g.hour)],
    )
    for (const r of rows) {
      const bar = rowToBar(r)
      byKey.get(hourKey(bar, floorTo(bar.ts, HOUR_MS)))!.bars.push(bar)
    }
  }
  for (const g of byKey.values()) g.bars.sort((a, b) => a.ts - b.ts)
  return [...byKey.values()].filter((g) => g.bars.length > 0)
}

/**
 * The oldest and newest minute stored per market, and the newest one's close (where a resumed series continues). A GROUP BY over candle_1m reads the whole table (24 s for 30 days
 * on the embedded store); this walks the key (coin, market_type, ts, exchange) instead: a recursive step finds the
 * next coin and market type (a "loose index scan"), then, for each venue, one index descent
 * each for its first and last minute (a venue that never had the market reads that pair's entries once: 0.2–0.4 s for
 * 30 days × 12 coins). With `before`, the newest minute before it: where a range of history ending there resumes,
 * whatever a live feed wrote after it.
 */
export async function storedMinuteRanges(sql: Pick<Sql, 'query'>, before = Number.MAX_SAFE_INTEGER): Promise<Map<string, { first: number; last: number; lastClose: number }>> {
  const rows = await sql.query<{ exchange: string; coin: string; market_type: string; first: number | string; last: number | string; last_close: number }>(
    `WITH RECURSIVE p AS (
       (SELECT coin, market_type FROM candle_1m ORDER BY coin, market_type LIMIT 1)
       UNION ALL
       SELECT n.coin, n.market_type FROM p CROSS JOIN LATERAL (
         SELECT c.coin, c.market_type FROM candle_1m c
         WHERE (c.coin, c.market_type) > (p.coin, p.market_type)
         ORDER BY c.coin, c.market_type LIMIT 1) n
     )
     SELECT e.id AS exchange, p.coin, p.market_type, f.ts AS first, l.ts AS last, l.close AS last_close
     FROM p CROSS JOIN unnest($2::text[]) AS e(id)
     CROSS JOIN LATERAL (
       SELECT c.ts FROM candle_1m c WHERE c.coin = p.coin AND c.market_type = p.market_type AND c.exchange = e.id ORDER BY c.ts LIMIT 1) f
     CROSS JOIN LATERAL (
       SELECT c.ts, c.close FROM candle_1m c WHERE c.coin = p.coin AND c.market_type = p.market_type AND c.exchange = e.id AND c.ts < $1 ORDER BY c.ts DESC LIMIT 1) l`,
    [before, EXCHANGE_IDS],
  )
  return new Map(rows.map((r) => [`${r.exchange}:${r.coin}:${r.market_type}`, { first: Number(r.first), last: Number(r.last), lastClose: Number(r.last_close) }]))
}

export interface CandleQuery {
  coins: readonly string[]
  marketType: MarketType
  /** [start, end) in Unix ms */
  start: number
  end: number
  exchange?: ExchangeId
  withVap?: boolean
}

/** one query for a whole coin set (the dataloaders batch per table and window) */
export async function readCandles(sql: Pick<Sql, 'query'>, table: CandleTable, q: CandleQuery): Promise<MinuteBar[]> {
  const params: unknown[] = [q.coins, q.marketType, q.start, q.end]
  if (q.exchange) params.push(q.exchange)
  const rows = await sql.query<CandleRow>(
    `SELECT ${CANDLE_VALUE_LIST}${q.withVap ? ', vap' : ''}
     FROM ${table} WHERE coin = ANY($1::text[]) AND market_type = $2 AND ts >= $3 AND ts < $4${q.exchange ? ' AND exchange = $5' : ''}
     ORDER BY coin, exchange, ts`,
    params,
  )
  return rows.map((r) => rowToBar(r, q.withVap))
}
