// market_sample (ticker + open interest per market, one row per sampling slot), funding_rate (settled
// history) and order_book (the latest snapshot per market).
import type { Sql } from '../../store/database.js'
import { CopyBinaryWriter } from '../../store/copy-binary.js'
import type { BookLevel, ExchangeId, MarketType } from '../events.js'

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
}

const SAMPLE_COLUMNS = ['exchange', 'coin', 'market_type', 'ts', 'mark_price', 'index_price', 'last_price', 'funding_rate', 'funding_interval_hours', 'next_funding_time', 'open_interest']

/** upsert samples (a later write of the same slot replaces it); `fresh` rows cannot exist yet (new history) and are COPYed */
export async function writeSamples(sql: Pick<Sql, 'query'> & Partial<Pick<Sql, 'copyBinary'>>, rows: readonly MarketSample[], opts: { fresh?: boolean } = {}): Promise<void> {
  if (opts.fresh && sql.copyBinary && rows.length) {
    const w = new CopyBinaryWriter(rows.length * 128)
    for (const r of rows) {
      w.row(11).text(r.exchange).text(r.coin).text(r.marketType).int8(r.ts).float8(r.markPrice).float8(r.indexPrice).float8(r.lastPrice).float8(r.fundingRate).float8(r.fundingIntervalHours)
      if (r.nextFundingTime === null) w.null()
      else w.int8(r.nextFundingTime)
      w.float8(r.openInterest)
    }
    return sql.copyBinary('market_sample', SAMPLE_COLUMNS, w.finish())
  }
  const chunk = 20_000
  for (let i = 0; i < rows.length; i += chunk) {
    const part = rows.slice(i, i + chunk)
    const col = <T>(f: (r: MarketSample) => T) => part.map(f)
    await sql.query(
      `INSERT INTO market_sample (exchange, coin, market_type, ts, mark_price, index_price, last_price, funding_rate, funding_interval_hours, next_funding_time, open_interest)
       SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::float8[], $6::float8[], $7::float8[], $8::float8[], $9::float8[], $10::bigint[], $11::float8[])
       ON CONFLICT (exchange, coin, market_type, ts) DO UPDATE SET
         mark_price = EXCLUDED.mark_price, index_price = EXCLUDED.index_price, last_price = EXCLUDED.last_price,
         funding_rate = EXCLUDED.funding_rate, funding_interval_hours = EXCLUDED.funding_interval_hours,
         next_funding_time = EXCLUDED.next_funding_time, open_interest = EXCLUDED.open_interest`,
      [
        col((r) => r.exchange), col((r) => r.coin), col((r) => r.marketType), col((r) => r.ts),
        col((r) => r.markPrice), col((r) => r.indexPrice), col((r) => r.lastPrice), col((r) => r.fundingRate),
        col((r) => r.fundingIntervalHours), col((r) => r.nextFundingTime), col((r) => r.openInterest),
      ],
    )
  }
}

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
})

/** samples of a coin set in [start, end), oldest first */
export async function readSamples(sql: Pick<Sql, 'query'>, q: { coins: readonly string[]; marketType: MarketType; start: number; end: number }): Promise<MarketSample[]> {
  const rows = await sql.query<SampleRow>(
    `SELECT * FROM market_sample WHERE coin = ANY($1::text[]) AND market_type = $2 AND ts >= $3 AND ts < $4 ORDER BY coin, exchange, ts`,
    [q.coins, q.marketType, q.start, q.end],
  )
  return rows.map(toSample)
}

export interface FundingRow {
  exchange: ExchangeId
  coin: string
  ts: number
  rate: number
  intervalHours: number
}

export async function writeFunding(sql: Pick<Sql, 'query'>, rows: readonly FundingRow[]): Promise<void> {
  if (!rows.length) return
  await sql.query(
    `INSERT INTO funding_rate (exchange, coin, ts, rate, interval_hours)
     SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[], $4::float8[], $5::float8[])
     ON CONFLICT (exchange, coin, ts) DO UPDATE SET rate = EXCLUDED.rate, interval_hours = EXCLUDED.interval_hours`,
    [rows.map((r) => r.exchange), rows.map((r) => r.coin), rows.map((r) => r.ts), rows.map((r) => r.rate), rows.map((r) => r.intervalHours)],
  )
}

export async function readFunding(sql: Pick<Sql, 'query'>, q: { coins: readonly string[]; start: number; end: number }): Promise<FundingRow[]> {
  const rows = await sql.query<{ exchange: string; coin: string; ts: number | string; rate: number; interval_hours: number }>(
    'SELECT exchange, coin, ts, rate, interval_hours FROM funding_rate WHERE coin = ANY($1::text[]) AND ts >= $2 AND ts < $3 ORDER BY coin, exchange, ts',
    [q.coins, q.start, q.end],
  )
  return rows.map((r) => ({ exchange: r.exchange as ExchangeId, coin: r.coin, ts: Number(r.ts), rate: r.rate, intervalHours: r.interval_hours }))
}

export interface StoredBook {
  exchange: ExchangeId
  coin: string
  marketType: MarketType
  ts: number
  bids: BookLevel[]
  asks: BookLevel[]
}

export async function writeBooks(sql: Pick<Sql, 'query'>, books: readonly StoredBook[]): Promise<void> {
  if (!books.length) return
  const pack = (levels: BookLevel[]) => JSON.stringify(levels.map((l) => [l.price, l.size]))
  await sql.query(
    `INSERT INTO order_book (exchange, coin, market_type, ts, bids, asks)
     SELECT e, c, m, t, b::jsonb, a::jsonb FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[]) AS u(e, c, m, t, b, a)
     ON CONFLICT (exchange, coin, market_type) DO UPDATE SET ts = EXCLUDED.ts, bids = EXCLUDED.bids, asks = EXCLUDED.asks
     WHERE order_book.ts <= EXCLUDED.ts`,
    [books.map((b) => b.exchange), books.map((b) => b.coin), books.map((b) => b.marketType), books.map((b) => b.ts), books.map((b) => pack(b.bids)), books.map((b) => pack(b.asks))],
  )
}

export async function readBooks(sql: Pick<Sql, 'query'>, q: { coins: readonly string[]; marketType: MarketType }): Promise<StoredBook[]> {
  const rows = await sql.query<{ exchange: string; coin: string; market_type: string; ts: number | string; bids: [number, number][] | string; asks: [number, number][] | string }>(
    'SELECT * FROM order_book WHERE coin = ANY($1::text[]) AND market_type = $2 ORDER BY coin, exchange',
    [q.coins, q.marketType],
  )
  const unpack = (v: [number, number][] | string) => (typeof v === 'string' ? (JSON.parse(v) as [number, number][]) : v).map(([price, size]) => ({ price, size }))
  return rows.map((r) => ({ exchange: r.exchange as ExchangeId, coin: r.coin, marketType: r.market_type as MarketType, ts: Number(r.ts), bids: unpack(r.bids), asks: unpack(r.asks) }))
}
