// market_sample (ticker + open interest per market, one row per sampling slot), funding_rate (settled
// history) and order_book (the latest snapshot per market).
import type { Sql } from '../database.js'
import { CopyBinaryWriter } from '../copy-binary.js'
import type { BookLevel, WideBook } from '../../domain/books.js'
import type { ExchangeId, MarketType } from '../../domain/exchanges.js'
import type { SampleSource } from '../../domain/events.js'

export interface MarketSample {
  exchange: ExchangeId
  coin: string
  marketType: MarketType
  ts: number
  markPrice: number | null
  indexPrice: number | null
  lastPrice: number | null
  fundingRate: number | null
  fundingIntervalHours: number | null
  nextFundingTime: number | null
  /** one-sided, coin units */
  openInterest: number | null
  /** where openInterest came from (absent: 'live'); the ticker fields are always live */
  oiSource?: SampleSource
}

/** a history value does not take the place of a live one (events.ts SampleSource) */
const keepsLive = (stored: SampleSource | undefined, incoming: SampleSource | undefined): boolean => (stored ?? 'live') === 'live' && incoming === 'venue_history'

/**
 * Rows of the same market and slot folded into one, oldest first: a later row's non-null fields win (a late
 * event's partial row carries only the fields of its kind).
 */
export function mergeSamples(rows: readonly MarketSample[]): MarketSample[] {
  const byKey = new Map<string, MarketSample>()
  for (const r of rows) {
    const key = `${r.exchange}:${r.coin}:${r.marketType}:${r.ts}`
    const prev = byKey.get(key)
    if (!prev) {
      byKey.set(key, { ...r })
      continue
    }
    for (const k of SAMPLE_FIELDS) if (r[k] !== null) (prev[k] as number | null) = r[k]
    // open interest from the venue's history endpoint does not replace a live one of the slot
    if (r.openInterest !== null && !(prev.openInterest !== null && keepsLive(prev.oiSource, r.oiSource))) {
      prev.openInterest = r.openInterest
      prev.oiSource = r.oiSource
    }
  }
  return [...byKey.values()]
}

const SAMPLE_FIELDS = ['markPrice', 'indexPrice', 'lastPrice', 'fundingRate', 'fundingIntervalHours', 'nextFundingTime'] as const

const SAMPLE_COLUMNS = ['exchange', 'coin', 'market_type', 'ts', 'mark_price', 'index_price', 'last_price', 'funding_rate', 'funding_interval_hours', 'next_funding_time', 'open_interest', 'oi_source']

/**
 * Upsert sample rows (one per market and slot in `rows`: see mergeSamples). A null field never erases a stored
 * value: partial rows (late events) and a restart's first slot merge into what is there; open interest from a venue's
 * history endpoint never replaces a stored live one. `fresh` rows cannot exist yet (new history) and are COPYed.
 */
export async function writeSamples(sql: Pick<Sql, 'query'> & Partial<Pick<Sql, 'copyBinary'>>, rows: readonly MarketSample[], opts: { fresh?: boolean } = {}): Promise<void> {
  if (opts.fresh && sql.copyBinary && rows.length) {
    const w = new CopyBinaryWriter(rows.length * 128)
    for (const r of rows) {
      w.row(12).text(r.exchange).text(r.coin).text(r.marketType).int8(r.ts).float8(r.markPrice).float8(r.indexPrice).float8(r.lastPrice).float8(r.fundingRate).float8(r.fundingIntervalHours)
      if (r.nextFundingTime === null) w.null()
      else w.int8(r.nextFundingTime)
      w.float8(r.openInterest).text(r.oiSource ?? 'live')
    }
    return sql.copyBinary('market_sample', SAMPLE_COLUMNS, w.finish())
  }
  // small statements: each upsert probes the key index once per row, and on the embedded store a statement holds the
  // event loop while it runs (about 0.4 ms a row when the index pages are cold)
  const chunk = 48
  for (let i = 0; i < rows.length; i += chunk) {
    const part = rows.slice(i, i + chunk)
    const col = <T>(f: (r: MarketSample) => T) => part.map(f)
    await sql.query(
      `INSERT INTO market_sample (${SAMPLE_COLUMNS.join(', ')})
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::float8[], $6::float8[], $7::float8[], $8::float8[], $9::float8[], $10::bigint[], $11::float8[], $12::text[])
       ON CONFLICT (exchange, coin, market_type, ts) DO UPDATE SET
         mark_price = COALESCE(EXCLUDED.mark_price, market_sample.mark_price),
         index_price = COALESCE(EXCLUDED.index_price, market_sample.index_price),
         last_price = COALESCE(EXCLUDED.last_price, market_sample.last_price),
         funding_rate = COALESCE(EXCLUDED.funding_rate, market_sample.funding_rate),
         funding_interval_hours = COALESCE(EXCLUDED.funding_interval_hours, market_sample.funding_interval_hours),
         next_funding_time = COALESCE(EXCLUDED.next_funding_time, market_sample.next_funding_time),
         open_interest = CASE WHEN ${KEEP_OI} THEN market_sample.open_interest ELSE EXCLUDED.open_interest END,
         oi_source = CASE WHEN ${KEEP_OI} THEN market_sample.oi_source ELSE EXCLUDED.oi_source END`,
      [
        col((r) => r.exchange), col((r) => r.coin), col((r) => r.marketType), col((r) => r.ts),
        col((r) => r.markPrice), col((r) => r.indexPrice), col((r) => r.lastPrice), col((r) => r.fundingRate),
        col((r) => r.fundingIntervalHours), col((r) => r.nextFundingTime), col((r) => r.openInterest), col((r) => r.oiSource ?? 'live'),
      ],
    )
  }
}

/** the stored open interest stays: the row brings none, or brings the history endpoint's over a live one */
const KEEP_OI = `EXCLUDED.open_interest IS NULL OR (market_sample.open_interest IS NOT NULL AND market_sample.oi_source = 'live' AND EXCLUDED.oi_source = 'venue_history')`

interface SampleRow {
  exchange: string
  coin: string
  market_type: string
  ts: number | string
  mark_price: number | null
  index_price: number | null
  last_price: number | null
  funding_rate: number | null
  funding_interval_hours: number | null
  next_funding_time: number | string | null
  open_interest: number | null
  oi_source: string
}

const toSample = (r: SampleRow): MarketSample => ({
  exchange: r.exchange as ExchangeId,
  coin: r.coin,
  marketType: r.market_type as MarketType,
  ts: Number(r.ts),
  markPrice: r.mark_price,
  indexPrice: r.index_price,
  lastPrice: r.last_price,
  fundingRate: r.funding_rate,
  fundingIntervalHours: r.funding_interval_hours,
  nextFundingTime: r.next_funding_time == null ? null : Number(r.next_funding_time),
  openInterest: r.open_interest,
  oiSource: r.oi_source as SampleSource,
})

/** samples of a coin set in [start, end), oldest first */
export async function readSamples(sql: Pick<Sql, 'query'>, q: { coins: readonly string[]; marketType: MarketType; start: number; end: number }): Promise<MarketSample[]> {
  const rows = await sql.query<SampleRow>(
    `SELECT * FROM market_sample WHERE coin = ANY($1::text[]) AND market_type = $2 AND ts >= $3 AND ts < $4 ORDER BY coin, exchange, ts`,
    [q.coins, q.marketType, q.start, q.end],
  )
  return rows.map(toSample)
}

/** the perp sample columns the hot series reads (series.ts load), with their types for a binary read (selectRows) */
export const SERIES_SAMPLE_COLUMNS = [
  ['exchange', 'text'], ['coin', 'text'], ['ts', 'int8'], ['open_interest', 'float8'], ['mark_price', 'float8'], ['funding_rate', 'float8'], ['funding_interval_hours', 'float8'],
] as const

export interface SeriesSampleRow {
  exchange: string
  coin: string
  ts: number | string
  open_interest: number | null
  mark_price: number | null
  funding_rate: number | null
  funding_interval_hours: number | null
}

/** a row of those columns as a perp sample (the fields the series keeps) */
export const seriesSample = (r: SeriesSampleRow): MarketSample => ({
  exchange: r.exchange as ExchangeId, coin: r.coin, marketType: 'perp', ts: Number(r.ts),
  markPrice: r.mark_price, indexPrice: null, lastPrice: null, fundingRate: r.funding_rate, fundingIntervalHours: r.funding_interval_hours,
  nextFundingTime: null, openInterest: r.open_interest,
})

export interface FundingRow {
  exchange: ExchangeId
  coin: string
  ts: number
  rate: number
  intervalHours: number
  /** absent: 'live' */
  source?: SampleSource
}

/** settled rates; one from the venue's history endpoint never replaces a stored live one */
export async function writeFunding(sql: Pick<Sql, 'query'>, batch: readonly FundingRow[]): Promise<void> {
  if (!batch.length) return
  const rows = lastPerKey(batch, (r) => `${r.exchange}|${r.coin}|${r.ts}`)
  await sql.query(
    `INSERT INTO funding_rate (exchange, coin, ts, rate, interval_hours, source)
     SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::float8[], $5::float8[], $6::text[])
     ON CONFLICT (exchange, coin, ts) DO UPDATE SET rate = EXCLUDED.rate, interval_hours = EXCLUDED.interval_hours, source = EXCLUDED.source
     WHERE NOT (funding_rate.source = 'live' AND EXCLUDED.source = 'venue_history')`,
    [rows.map((r) => r.exchange), rows.map((r) => r.coin), rows.map((r) => r.ts), rows.map((r) => r.rate), rows.map((r) => r.intervalHours), rows.map((r) => r.source ?? 'live')],
  )
}

/**
 * One row per key (one INSERT may not update a row twice): the last one, unless it came from the venue's history
 * endpoint and an earlier one is live.
 */
export function lastPerKey<T extends { source?: SampleSource }>(rows: readonly T[], key: (r: T) => string): T[] {
  const out = new Map<string, T>()
  for (const r of rows) {
    const k = key(r)
    const prev = out.get(k)
    if (!prev || !keepsLive(prev.source, r.source)) out.set(k, r)
  }
  return [...out.values()]
}

export async function readFunding(sql: Pick<Sql, 'query'>, q: { coins: readonly string[]; start: number; end: number }): Promise<FundingRow[]> {
  const rows = await sql.query<{ exchange: string; coin: string; ts: number | string; rate: number; interval_hours: number; source: string }>(
    'SELECT exchange, coin, ts, rate, interval_hours, source FROM funding_rate WHERE coin = ANY($1::text[]) AND ts >= $2 AND ts < $3 ORDER BY coin, exchange, ts',
    [q.coins, q.start, q.end],
  )
  return rows.map((r) => ({ exchange: r.exchange as ExchangeId, coin: r.coin, ts: Number(r.ts), rate: r.rate, intervalHours: r.interval_hours, source: r.source as SampleSource }))
}

export interface StoredBook {
  exchange: ExchangeId
  coin: string
  marketType: MarketType
  ts: number
  bids: BookLevel[]
  asks: BookLevel[]
  /** how far the venue's snapshot reached (BookReach); meaningful only when reachKnown */
  bidEnd: number | null
  askEnd: number | null
  /** false for a row written before reach was recorded: its bands cannot be told complete */
  reachKnown: boolean
  wide?: WideBook[]
}

type Packed = [number, number][]
const pack = (levels: readonly BookLevel[]): Packed => levels.map((l) => [l.price, l.size])
const unpack = (v: Packed | string): BookLevel[] => (typeof v === 'string' ? (JSON.parse(v) as Packed) : v).map(([price, size]) => ({ price, size }))
const json = <T>(v: T | string | null): T | null => (typeof v === 'string' ? (JSON.parse(v) as T) : v)

interface PackedWide extends Omit<WideBook, 'bids' | 'asks'> {
  bids: Packed
  asks: Packed
}

/** books per statement: each is a few kilobytes of JSON to parse and store, and a statement holds the embedded store's event loop */
const BOOKS_PER_STATEMENT = 16

export async function writeBooks(sql: Pick<Sql, 'query'>, all: readonly Omit<StoredBook, 'reachKnown'>[]): Promise<void> {
  const wide = (b: Omit<StoredBook, 'reachKnown'>) =>
    b.wide?.length ? JSON.stringify(b.wide.map((w): PackedWide => ({ ...w, bids: pack(w.bids), asks: pack(w.asks) }))) : null
  for (let i = 0; i < all.length; i += BOOKS_PER_STATEMENT) await writeBookRows(sql, all.slice(i, i + BOOKS_PER_STATEMENT), wide)
}

async function writeBookRows(sql: Pick<Sql, 'query'>, books: readonly Omit<StoredBook, 'reachKnown'>[], wide: (b: Omit<StoredBook, 'reachKnown'>) => string | null): Promise<void> {
  await sql.query(
    `INSERT INTO order_book (exchange, coin, market_type, ts, bids, asks, reach, wide)
     SELECT e, c, m, t, b::jsonb, a::jsonb, r::jsonb, w::jsonb
     FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[], $8::text[]) AS u(e, c, m, t, b, a, r, w)
     ON CONFLICT (exchange, coin, market_type) DO UPDATE SET ts = EXCLUDED.ts, bids = EXCLUDED.bids, asks = EXCLUDED.asks, reach = EXCLUDED.reach, wide = EXCLUDED.wide
     WHERE order_book.ts <= EXCLUDED.ts`,
    [
      books.map((b) => b.exchange), books.map((b) => b.coin), books.map((b) => b.marketType), books.map((b) => b.ts),
      books.map((b) => JSON.stringify(pack(b.bids))), books.map((b) => JSON.stringify(pack(b.asks))),
      books.map((b) => JSON.stringify({ bidEnd: b.bidEnd, askEnd: b.askEnd })), books.map(wide),
    ],
  )
}

interface BookRow {
  exchange: string
  coin: string
  market_type: string
  ts: number | string
  bids: Packed | string
  asks: Packed | string
  reach: { bidEnd: number | null; askEnd: number | null } | string | null
  wide: PackedWide[] | string | null
}

export async function readBooks(sql: Pick<Sql, 'query'>, q: { coins: readonly string[]; marketType: MarketType }): Promise<StoredBook[]> {
  const rows = await sql.query<BookRow>('SELECT * FROM order_book WHERE coin = ANY($1::text[]) AND market_type = $2 ORDER BY coin, exchange', [q.coins, q.marketType])
  return rows.map((r) => {
    const reach = json(r.reach)
    const wide = json(r.wide)
    return {
      exchange: r.exchange as ExchangeId, coin: r.coin, marketType: r.market_type as MarketType, ts: Number(r.ts),
      bids: unpack(r.bids), asks: unpack(r.asks),
      bidEnd: reach?.bidEnd ?? null, askEnd: reach?.askEnd ?? null, reachKnown: reach !== null,
      ...(wide ? { wide: wide.map((w) => ({ ...w, bids: unpack(w.bids), asks: unpack(w.asks) })) } : {}),
    }
  })
}
