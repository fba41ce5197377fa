// Reads of market data for the analytics: one SQL query per (table, coin set, window), memoized until the
// store's market data changes (every write bumps `version`), so repeated calls between flushes cost nothing.
// Windows are widened to whole minutes first: stored rows sit on minute boundaries, so the rows are the same.
import type { Database } from '../store/database.js'
import { MINUTE_MS } from '../domain/time.js'
import type { ExchangeId, MarketType } from '../domain/exchanges.js'
import type { MinuteBar } from './bars.js'
import { readCandles, type CandleTable } from './store/candles.js'
import { readAggregateOiBuckets, readVenueSampleBuckets, type AggregateSampleBucket, type VenueSampleBucket } from './store/sample-buckets.js'
import { readLargeTrades, type LargeTrade, type LargeTradeQuery } from './store/large-trades.js'
import { readBooks, readFunding, readSamples, type FundingRow, type MarketSample, type StoredBook } from './store/samples.js'

import { readLiquidationMinutes, readLiquidationOrders, readPositioning, type LiquidationMinuteRow, type LiquidationOrderRow, type OrderQuery, type PositioningRow } from './store/liquidations.js'

export type DataKind = 'candles' | 'samples' | 'funding' | 'books' | 'trades' | 'liquidations' | 'positioning'

const ceilMinute = (t: number) => Math.ceil(t / MINUTE_MS) * MINUTE_MS

export class MarketReader {
  /** per kind of data, bumped by every write of it */
  private readonly versions: Record<DataKind, number> = { candles: 0, samples: 0, funding: 0, books: 0, trades: 0, liquidations: 0, positioning: 0 }
  private memo = new Map<string, { kind: DataKind; version: number; value: Promise<unknown> }>()
  private readonly maxEntries: number

  constructor(
    private readonly db: Database,
    opts: { maxEntries?: number } = {},
  ) {
    this.maxEntries = opts.maxEntries ?? 48
  }

  /** this kind of market data changed: what was memoized from it is stale, and is dropped at once */
  bump(kind: DataKind): void {
    this.versions[kind]++
    for (const [key, entry] of this.memo) if (entry.kind === kind) this.memo.delete(key)
  }

  version(kind: DataKind): number {
    return this.versions[kind]
  }

  private cached<T>(kind: DataKind, key: string, load: () => Promise<T>): Promise<T> {
    const version = this.versions[kind]
    const hit = this.memo.get(key)
    if (hit && hit.version === version) {
      // refresh its place in the LRU order
      this.memo.delete(key)
      this.memo.set(key, hit)
      return hit.value as Promise<T>
    }
    const value = load()
    this.memo.set(key, { kind, version, value })
    value.catch(() => this.memo.delete(key))
    while (this.memo.size > this.maxEntries) this.memo.delete(this.memo.keys().next().value!)
    return value
  }

  candles(table: CandleTable, coins: readonly string[], marketType: MarketType, start: number, end: number, withVap = false): Promise<MinuteBar[]> {
    const s = ceilMinute(start)
    const e = ceilMinute(end)
    const key = `c|${table}|${marketType}|${[...coins].sort().join(',')}|${s}|${e}|${withVap}`
    return this.cached('candles', key, () => readCandles(this.db.sql, table, { coins, marketType, start: s, end: e, withVap }))
  }

  samples(coins: readonly string[], marketType: MarketType, start: number, end: number): Promise<MarketSample[]> {
    const s = ceilMinute(start)
    const e = ceilMinute(end)
    return this.cached('samples', `s|${marketType}|${[...coins].sort().join(',')}|${s}|${e}`, () => readSamples(this.db.sql, { coins, marketType, start: s, end: e }))
  }

  funding(coins: readonly string[], start: number, end: number): Promise<FundingRow[]> {
    const s = ceilMinute(start)
    const e = ceilMinute(end)
    return this.cached('funding', `f|${[...coins].sort().join(',')}|${s}|${e}`, () => readFunding(this.db.sql, { coins, start: s, end: e }))
  }

  /** perp samples of one coin per venue and interval (open interest OHLC, premium), the store aggregating them */
  sampleBuckets(coin: string, start: number, end: number, bucketMs: number, exchange?: ExchangeId): Promise<VenueSampleBucket[]> {
    const s = ceilMinute(start)
    const e = ceilMinute(end)
    return this.cached('samples', `sb|${coin}|${exchange ?? ''}|${bucketMs}|${s}|${e}`, () => readVenueSampleBuckets(this.db.sql, { coin, start: s, end: e, bucketMs, exchange }))
  }

  /** the aggregate open interest of one coin per interval, over the venues present in each */
  aggregateOiBuckets(coin: string, start: number, end: number, bucketMs: number): Promise<AggregateSampleBucket[]> {
    const s = ceilMinute(start)
    const e = ceilMinute(end)
    return this.cached('samples', `ab|${coin}|${bucketMs}|${s}|${e}`, () => readAggregateOiBuckets(this.db.sql, { coin, start: s, end: e, bucketMs }))
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

  positioning(coins: readonly string[], start: number, end: number): Promise<PositioningRow[]> {
    return this.cached('positioning', `p|${[...coins].sort().join(',')}|${start}|${end}`, () => readPositioning(this.db.sql, { coins, start, end }))
  }
}
