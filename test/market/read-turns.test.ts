// Reads of the embedded store take turns (src/market/read-turns.ts): a long read goes in pieces over the rows the
// window holds, each on a turn of its own, and its rows are exactly the single statement's, in its order; short reads
// go before the pieces of a long one; statements started in one turn no longer run back to back in it.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../src/domain/time.js'
import { MarketReader } from '../../src/market/reader.js'
import { readCandles } from '../../src/market/store/candles.js'
import { readLiquidationMinutes, readPositioning } from '../../src/market/store/liquidations.js'
import { readAggregateOiBuckets, readVenueSampleBuckets } from '../../src/market/store/sample-buckets.js'
import { readFunding, readSamples } from '../../src/market/store/samples.js'
import { TEST_NOW, seedMarket } from '../helpers/market.js'
import { startTestService, type TestService } from '../helpers/service.js'

const COINS = ['BTC', 'ETH', 'SOL']
let t: TestService
beforeAll(async () => {
  t = await startTestService({ clock: () => TEST_NOW })
  await seedMarket(t, { hours: 12, coins: COINS })
}, 300_000)
afterAll(() => t?.close())

describe('ReadTurns on the embedded store', () => {
  // a long window (a year) over the twelve seeded hours: estimated far past a piece, cut over the rows there are
  const [s, e] = [Math.floor((TEST_NOW - 366 * DAY_MS) / MINUTE_MS) * MINUTE_MS, Math.ceil(TEST_NOW / MINUTE_MS) * MINUTE_MS]

  it('a long read in pieces gives exactly the single statement\'s rows, in its order, for every windowed read', async () => {
    const { sql } = t.services.db
    const reader = new MarketReader(t.services.db)
    const query = vi.spyOn(sql, 'query')
    const counted = async <T>(read: () => Promise<T>) => {
      query.mockClear()
      const rows = await read()
      return { rows, statements: query.mock.calls.length }
    }
    const candles = await counted(() => reader.candles('candle_1m', COINS, 'perp', s, e))
    expect(candles.rows).toEqual(await readCandles(sql, 'candle_1m', { coins: COINS, marketType: 'perp', start: s, end: e }))
    // the extent, then 12 h × 3 coins × 5 venues of minutes (10,800 rows) in pieces of at most 2,000
    expect(candles.statements).toBeGreaterThanOrEqual(1 + 6)
    expect(candles.rows.length).toBeGreaterThan(5000)

    const hourly = await counted(() => reader.candles('candle_1h', COINS, 'spot', s, e))
    expect(hourly.rows).toEqual(await readCandles(sql, 'candle_1h', { coins: COINS, marketType: 'spot', start: s, end: e }))
    expect(await reader.samples(COINS, 'perp', s, e)).toEqual(await readSamples(sql, { coins: COINS, marketType: 'perp', start: s, end: e }))
    expect(await reader.funding(COINS, s, e)).toEqual(await readFunding(sql, { coins: COINS, start: s, end: e }))
    // ordered by time and venue (then kind), which leaves coins of the same minute and venue in no set order: by coin too
    const full = <T extends { ts: number; exchange: string; coin: string; kind?: string }>(rows: T[]) =>
      [...rows].sort((a, b) => a.ts - b.ts || a.exchange.localeCompare(b.exchange) || (a.kind ?? '').localeCompare(b.kind ?? '') || a.coin.localeCompare(b.coin))
    const liquidations = await reader.liquidationMinutes(COINS, s, e)
    expect(liquidations.map((r) => [r.ts, r.exchange])).toEqual(full(liquidations).map((r) => [r.ts, r.exchange]))
    expect(full(liquidations)).toEqual(full(await readLiquidationMinutes(sql, { coins: COINS, start: s, end: e })))
    const positioning = await reader.positioning(COINS, s, e)
    expect(positioning.map((r) => [r.ts, r.exchange, r.kind])).toEqual(full(positioning).map((r) => [r.ts, r.exchange, r.kind]))
    expect(full(positioning)).toEqual(full(await readPositioning(sql, { coins: COINS, start: s, end: e })))
    expect(liquidations.length * positioning.length).toBeGreaterThan(0)
    // bucketed by the store: pieces are cut between buckets, never inside one
    for (const bucketMs of [MINUTE_MS, 5 * MINUTE_MS, HOUR_MS, 4 * HOUR_MS]) {
      const buckets = await counted(() => reader.sampleBuckets('BTC', s, e, bucketMs))
      expect(buckets.rows).toEqual(await readVenueSampleBuckets(sql, { coin: 'BTC', start: s, end: e, bucketMs }))
      expect(await reader.sampleBuckets('ETH', s, e, bucketMs, 'okx')).toEqual(await readVenueSampleBuckets(sql, { coin: 'ETH', start: s, end: e, bucketMs, exchange: 'okx' }))
      expect(await reader.aggregateOiBuckets('SOL', s, e, bucketMs)).toEqual(await readAggregateOiBuckets(sql, { coin: 'SOL', start: s, end: e, bucketMs }))
      if (bucketMs === MINUTE_MS) expect(buckets.statements).toBeGreaterThan(3)
    }
    // a window with no rows at all: the extent says so, nothing else is read
    const empty = await counted(() => reader.candles('candle_1m', COINS, 'perp', s, s + 30 * DAY_MS))
    expect(empty).toEqual({ rows: [], statements: 1 })
    query.mockRestore()
  })

  it('statements take turns: the loop turns between the pieces, and a short read goes before the rest of a long one', async () => {
    const reader = new MarketReader(t.services.db)
    let ticks = 0
    let on = true
    const tick = () => {
      ticks++
      if (on) setTimeout(tick, 0)
    }
    setTimeout(tick, 0)
    let longDone = false
    const long = reader.candles('candle_1m', COINS, 'spot', s, e).then((rows) => ((longDone = true), rows))
    // a short read asked for once the long one is under way: answered before the long one ends
    await new Promise((r) => setTimeout(r, 0))
    const short = await reader.books(['BTC'], 'perp')
    expect(short.length).toBeGreaterThan(0)
    expect(longDone).toBe(false)
    const rows = await long
    on = false
    expect(rows.length).toBeGreaterThan(0)
    // timers ran while the pieces were read
    expect(ticks).toBeGreaterThan(3)
  })

  it('reads started in one turn run one per turn, not back to back', async () => {
    const reader = new MarketReader(t.services.db)
    let ticks = 0
    let on = true
    // one tick a turn of the event loop (setImmediate: counted by turns, not by the clock, so a loaded machine counts the same)
    const tick = () => {
      ticks++
      if (on) setImmediate(tick)
    }
    setImmediate(tick)
    // twenty short reads asked for in one turn (as the aliases of one GraphQL operation ask for theirs)
    await Promise.all(Array.from({ length: 20 }, (_, i) => reader.partialMinutes(COINS[i % 3]!, 'perp', TEST_NOW - (i + 1) * HOUR_MS, TEST_NOW)))
    on = false
    expect(ticks).toBeGreaterThanOrEqual(10)
  })
})
