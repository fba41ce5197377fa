// Reads of market data for the analytics: one SQL query per (table, coin set, window), memoized until a write of
// that kind of data reaches into the window read (every write bumps `version` and says from which time on it wrote),
// so repeated calls between flushes cost nothing, and a window that ended before the live minute survives live writes.
// Windows are widened to whole minutes first: stored rows sit on minute boundaries, so the rows are the same.
// Per-interval reads over long windows keep their whole intervals apart from the interval being written (`split`).
import type { Database } from '../store/database.js'
import { HOUR_MS, MINUTE_MS, floorTo } from '../domain/time.js'
import type { ExchangeId, MarketType } from '../domain/exchanges.js'
import type { MinuteBar } from '../domain/minute-bars.js'
import { readCandles, type CandleTable } from '../store/market/candles.js'
import { readAggregateOiBuckets, readVenueSampleBuckets, type AggregateSampleBucket, type VenueSampleBucket } from '../store/market/sample-buckets.js'
import { readLargeTrades, type LargeTrade, type LargeTradeQuery } from '../store/market/large-trades.js'
import { readBooks, readFunding, readSamples, type FundingRow, type MarketSample, type StoredBook } from '../store/market/samples.js'
import { readFeedSpans, readLatestFeedSpans, type FeedSpan } from '../store/market/feed-uptime.js'
import { readPartialMinutes, type StoredMark } from '../store/market/partial-minutes.js'
import type { FeedStream } from '../domain/events.js'
import { readLiquidationMinutes, readLiquidationOrders, readPositioning, type LiquidationMinuteRow, type LiquidationOrderRow, type OrderQuery, type PositioningRow } from '../store/market/liquidations.js'

export type DataKind = 'candles' | 'samples' | 'funding' | 'books' | 'trades' | 'liquidations' | 'positioning' | 'feeds'

const ceilMinute = (t: number) => Math.ceil(t / MINUTE_MS) * MINUTE_MS

interface MemoEntry {
  kind: DataKind
  /** rows at or after this time were not read: a write only of such rows leaves the entry valid */
  to: number
  value: Promise<unknown>
}

export class MarketReader {
  /** per kind of data, bumped by every write of it */
  private readonly versions: Record<DataKind, number> = { candles: 0, samples: 0, funding: 0, books: 0, trades: 0, liquidations: 0, positioning: 0, feeds: 0 }
  /** an entry stays only while no write has reached into what it read (`bump` drops the others at once) */
  private memo = new Map<string, MemoEntry>()
  private readonly maxEntries: number

  constructor(
    private readonly db: Database,
    opts: { maxEntries?: number } = {},
  ) {
    this.maxEntries = opts.maxEntries ?? 48
  }

  /**
   * This kind of market data changed, in rows stamped `from` or later (unknown: -Infinity, all of it): what was
   * memoized from those rows is stale and dropped at once; reads that ended before `from` stay.
   */
  bump(kind: DataKind, from = Number.NEGATIVE_INFINITY): void {
    this.versions[kind]++
    for (const [key, entry] of this.memo) if (entry.kind === kind && from < entry.to) this.memo.delete(key)
  }

  version(kind: DataKind): number {
    return this.versions[kind]
  }

  /** `to`: the end of the rows the read takes (exclusive); reads without one are dropped by every write of their kind */
  private cached<T>(kind: DataKind, key: string, load: () => Promise<T>, to = Number.POSITIVE_INFINITY): Promise<T> {
    const hit = this.memo.get(key)
    if (hit) {
      // refresh its place in the LRU order
      this.memo.delete(key)
      this.memo.set(key, hit)
      return hit.value as Promise<T>
    }
    const value = load()
    const entry: MemoEntry = { kind, to, value }
    this.memo.set(key, entry)
    value.catch(() => {
      if (this.memo.get(key) === entry) this.memo.delete(key)
    })
    while (this.memo.size > this.maxEntries) this.memo.delete(this.memo.keys().next().value!)
    return value
  }

  /**
   * A per-interval read of [s, e) as two: the whole hours (or intervals, when longer) before the one `e` falls in,
   * kept while writes land only after them (the live minute), and the rest, read again after each write. Intervals
   * are UTC-aligned, so the split falls between two of them and the parts together are the whole read.
   */
  private split<T extends { ts: number }>(kind: DataKind, key: string, s: number, e: number, bucketMs: number, read: (s: number, e: number) => Promise<T[]>, merge: (closed: T[], open: T[]) => T[]): Promise<T[]> {
    const cut = floorTo(e, Math.max(bucketMs, HOUR_MS))
    if (cut <= s || cut % bucketMs !== 0) return this.cached(kind, `${key}|${s}|${e}`, () => read(s, e), e)
    const closed = this.cached(kind, `${key}|${s}|${cut}`, () => read(s, cut), cut)
    const open = this.cached(kind, `${key}|${cut}|${e}`, () => read(cut, e), e)
    return Promise.all([closed, open]).then(([a, b]) => merge(a, b))
  }

  candles(table: CandleTable, coins: readonly string[], marketType: MarketType, start: number, end: number, withVap = false): Promise<MinuteBar[]> {
    const s = ceilMinute(start)
    const e = ceilMinute(end)
    const key = `c|${table}|${marketType}|${[...coins].sort().join(',')}|${s}|${e}|${withVap}`
    return this.cached('candles', key, () => readCandles(this.db.sql, table, { coins, marketType, start: s, end: e, withVap }), e)
  }

  /** the minutes of [start, end) stored with only part of their trades (written with the candles: their kind) */
  partialMinutes(coin: string, marketType: MarketType, start: number, end: number): Promise<StoredMark[]> {
    const [s, e] = [floorTo(start, MINUTE_MS), ceilMinute(end)]
    return this.cached('candles', `pm|${coin}|${marketType}|${s}|${e}`, () => readPartialMinutes(this.db.sql, { coin, marketType, start: s, end: e }), e)
  }

  samples(coins: readonly string[], marketType: MarketType, start: number, end: number): Promise<MarketSample[]> {
    const s = ceilMinute(start)
    const e = ceilMinute(end)
    return this.cached('samples', `s|${marketType}|${[...coins].sort().join(',')}|${s}|${e}`, () => readSamples(this.db.sql, { coins, marketType, start: s, end: e }), e)
  }

  funding(coins: readonly string[], start: number, end: number): Promise<FundingRow[]> {
    const s = ceilMinute(start)
    const e = ceilMinute(end)
    return this.cached('funding', `f|${[...coins].sort().join(',')}|${s}|${e}`, () => readFunding(this.db.sql, { coins, start: s, end: e }), e)
  }

  /** perp samples of one coin per venue and interval (open interest OHLC, premium), the store aggregating them */
  sampleBuckets(coin: string, start: number, end: number, bucketMs: number, exchange?: ExchangeId): Promise<VenueSampleBucket[]> {
    const s = ceilMinute(start)
    const e = ceilMinute(end)
    // the store buckets each venue's minute samples: a read costs the samples it buckets
    const read = (a: number, b: number) => readVenueSampleBuckets(this.db.sql, { coin, start: a, end: b, bucketMs, exchange })
    // each part is ordered by venue, then time; the venue order is kept by a stable sort on the venue alone
    const venueOrder = (a: VenueSampleBucket, b: VenueSampleBucket) => (a.exchange < b.exchange ? -1 : a.exchange > b.exchange ? 1 : 0)
    return this.split('samples', `sb|${coin}|${exchange ?? ''}|${bucketMs}`, s, e, bucketMs, read, (closed, open) => (open.length ? [...closed, ...open].sort(venueOrder) : closed))
  }

  /** the aggregate open interest of one coin per interval, over the venues present in each */
  aggregateOiBuckets(coin: string, start: number, end: number, bucketMs: number): Promise<AggregateSampleBucket[]> {
    const s = ceilMinute(start)
    const e = ceilMinute(end)
    const read = (a: number, b: number) => readAggregateOiBuckets(this.db.sql, { coin, start: a, end: b, bucketMs })
    return this.split('samples', `ab|${coin}|${bucketMs}`, s, e, bucketMs, read, (closed, open) => (open.length ? [...closed, ...open] : closed))
  }

  books(coins: readonly string[], marketType: MarketType): Promise<StoredBook[]> {
    return this.cached('books', `b|${marketType}|${[...coins].sort().join(',')}`, () => readBooks(this.db.sql, { coins, marketType }))
  }

  /** stored large trades, newest first (memoized until trades are written again) */
  largeTrades(q: LargeTradeQuery): Promise<LargeTrade[]> {
    return this.cached('trades', `t|${JSON.stringify(q)}`, () => readLargeTrades(this.db.sql, q))
  }

  liquidationMinutes(coins: readonly string[], start: number, end: number, exchange?: ExchangeId): Promise<LiquidationMinuteRow[]> {
    const key = `lm|${[...coins].sort().join(',')}|${start}|${end}|${exchange ?? ''}`
    return this.cached('liquidations', key, () => readLiquidationMinutes(this.db.sql, { coins, start, end, exchange }))
  }

  liquidationOrders(q: OrderQuery): Promise<LiquidationOrderRow[]> {
    return this.cached('liquidations', `lo|${JSON.stringify(q)}`, () => readLiquidationOrders(this.db.sql, q))
  }

  /** the spans of uptime of a stream reaching into [start, end) (widened to whole minutes), of one coin's stream or any */
  feedSpans(stream: FeedStream, start: number, end: number, coin?: string): Promise<FeedSpan[]> {
    const [s, e] = [floorTo(start, MINUTE_MS), ceilMinute(end)]
    return this.cached('feeds', `fs|${stream}|${coin ?? ''}|${s}|${e}`, () => readFeedSpans(this.db.sql, { stream, from: s, to: e, coin }))
  }

  /** each venue's latest span of a stream */
  latestFeedSpans(stream: FeedStream): Promise<FeedSpan[]> {
    return this.cached('feeds', `fl|${stream}`, () => readLatestFeedSpans(this.db.sql, stream))
  }

  positioning(coins: readonly string[], start: number, end: number): Promise<PositioningRow[]> {
    return this.cached('positioning', `p|${[...coins].sort().join(',')}|${start}|${end}`, () => readPositioning(this.db.sql, { coins, start, end }))
  }
}
