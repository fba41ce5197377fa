// The reader's memo (src/read/reader.ts): a read stays memoized until a write of its kind reaches into the rows it
// read; per-interval reads over long windows keep their whole hours apart from the hour being written, and the two
// parts together are exactly the single read.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { HOUR_MS, MINUTE_MS } from '../../src/domain/time.js'
import { MarketReader } from '../../src/read/reader.js'
import { readAggregateOiBuckets, readVenueSampleBuckets } from '../../src/store/market/sample-buckets.js'
import { writeSamples, type MarketSample } from '../../src/store/market/samples.js'
import type { Database } from '../../src/store/database.js'
import { openTestStore } from '../helpers/store.js'

const T0 = Date.UTC(2026, 10, 20, 0, 0)
const VENUES = ['binance', 'bybit', 'okx'] as const

const sample = (exchange: MarketSample['exchange'], ts: number, oi: number): MarketSample => ({
  exchange, coin: 'BTC', marketType: 'perp', ts, markPrice: 100 + (ts - T0) / HOUR_MS, indexPrice: 100, lastPrice: 100,
  fundingRate: 0.0001, fundingIntervalHours: 8, nextFundingTime: null, openInterest: oi,
})

let db: Database
beforeAll(async () => {
  db = await openTestStore()
  const rows: MarketSample[] = []
  // 5 hours of minutes; okx leaves the last hour and a half out
  for (let ts = T0; ts < T0 + 5 * HOUR_MS; ts += MINUTE_MS)
    for (const [i, e] of VENUES.entries()) if (e !== 'okx' || ts < T0 + 3.5 * HOUR_MS) rows.push(sample(e, ts, 1000 * (i + 1) + ((ts - T0) / MINUTE_MS) % 97))
  await writeSamples(db.sql, rows)
})
afterAll(() => db.close())

describe('MarketReader', () => {
  it('splits a per-interval read at the current hour: the parts are the single read, in its order', async () => {
    const reader = new MarketReader(db)
    // a window that ends mid-hour, at several interval sizes
    const [s, e] = [T0 + 7 * MINUTE_MS, T0 + 4 * HOUR_MS + 25 * MINUTE_MS]
    for (const bucketMs of [5 * MINUTE_MS, 15 * MINUTE_MS, HOUR_MS, 4 * HOUR_MS]) {
      expect(await reader.sampleBuckets('BTC', s, e, bucketMs)).toEqual(await readVenueSampleBuckets(db.sql, { coin: 'BTC', start: s, end: e, bucketMs }))
      expect(await reader.sampleBuckets('BTC', s, e, bucketMs, 'bybit')).toEqual(await readVenueSampleBuckets(db.sql, { coin: 'BTC', start: s, end: e, bucketMs, exchange: 'bybit' }))
      expect(await reader.aggregateOiBuckets('BTC', s, e, bucketMs)).toEqual(await readAggregateOiBuckets(db.sql, { coin: 'BTC', start: s, end: e, bucketMs }))
    }
  })

  it('keeps the whole hours across a write of the live hour, and reads them again after a write reaching back into them', async () => {
    const reader = new MarketReader(db)
    const query = vi.spyOn(db.sql, 'query')
    const [s, e] = [T0, T0 + 4 * HOUR_MS + 30 * MINUTE_MS]
    const read = async () => {
      query.mockClear()
      const rows = await reader.sampleBuckets('BTC', s, e, HOUR_MS)
      return { rows, queries: query.mock.calls.length }
    }
    expect((await read()).queries).toBe(2) // whole hours, and the hour in progress
    expect((await read()).queries).toBe(0)

    // a live write in the hour in progress: only that part is read again, and it is seen
    await writeSamples(db.sql, [sample('binance', T0 + 4 * HOUR_MS + 20 * MINUTE_MS, 999_999)])
    reader.bump('samples', T0 + 4 * HOUR_MS + 20 * MINUTE_MS)
    const live = await read()
    expect(live.queries).toBe(1)
    expect(live.rows.find((r) => r.exchange === 'binance' && r.ts === T0 + 4 * HOUR_MS)!.oi!.high).toBe(999_999)

    // a late write into a whole hour: both parts are read again, and it is seen
    await writeSamples(db.sql, [sample('bybit', T0 + HOUR_MS + 5 * MINUTE_MS, 888_888)])
    reader.bump('samples', T0 + HOUR_MS + 5 * MINUTE_MS)
    const late = await read()
    expect(late.queries).toBe(2)
    expect(late.rows.find((r) => r.exchange === 'bybit' && r.ts === T0 + HOUR_MS)!.oi!.high).toBe(888_888)
    expect(late.rows).toEqual(await readVenueSampleBuckets(db.sql, { coin: 'BTC', start: s, end: e, bucketMs: HOUR_MS }))

    // a write of unknown extent (e.g. from an older node on the bus) drops everything of its kind
    reader.bump('samples')
    expect((await read()).queries).toBe(2)
    // another kind's write drops nothing of this one
    reader.bump('candles')
    expect((await read()).queries).toBe(0)
    query.mockRestore()
  })

  it('keeps a window that ended before a write, and drops one that reaches it', async () => {
    const reader = new MarketReader(db)
    const query = vi.spyOn(db.sql, 'query')
    await reader.samples(['BTC'], 'perp', T0, T0 + HOUR_MS)
    await reader.samples(['BTC'], 'perp', T0, T0 + 3 * HOUR_MS)
    reader.bump('samples', T0 + 2 * HOUR_MS)
    query.mockClear()
    await reader.samples(['BTC'], 'perp', T0, T0 + HOUR_MS)
    expect(query).toHaveBeenCalledTimes(0)
    await reader.samples(['BTC'], 'perp', T0, T0 + 3 * HOUR_MS)
    expect(query).toHaveBeenCalledTimes(1)
    query.mockRestore()
  })
})
