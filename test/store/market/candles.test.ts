// candle writes (src/store/market/candles.ts): new history goes in by binary COPY, everything else by upsert.
// Both paths must store the same rows, volume at price included, and the same hourly rollups.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type MinuteBar } from '../../../src/domain/minute-bars.js'
import { HOUR_MS, MINUTE_MS } from '../../../src/domain/time.js'
import { readCandles, storedMinuteRanges, writeMinuteBars } from '../../../src/store/market/candles.js'
import { readSamples, writeSamples, type MarketSample } from '../../../src/store/market/samples.js'
import { vapAdd } from '../../../src/domain/minute-vap.js'
import type { Vap } from '../../../src/domain/volume-at-price.js'
import type { Database } from '../../../src/store/database.js'
import { openTestStore } from '../../helpers/store.js'

const T0 = Date.UTC(2026, 3, 1, 5)

function bars(): MinuteBar[] {
  const out: MinuteBar[] = []
  let price = 64_123.456789
  for (const [exchange, coin] of [['binance', 'BTC'], ['hyperliquid', 'kPEPE'], ['okx', 'ETH']] as const)
    for (let m = 0; m < 150; m += 7) {
      const vap: Vap = new Map()
      for (let i = 0; i < m % 5; i++) vapAdd(vap, price * (1 + i * 3e-4), 0.1 + i / 3, i % 2 ? 'buy' : 'sell')
      price *= 1 + Math.sin(m) / 1000
      out.push({ exchange, coin, marketType: 'perp', ts: T0 + m * MINUTE_MS, open: price, high: price * 1.001, low: price / 1.0013, close: price * 1.0002, volume: 1 / 3 + m, buyVolume: m / 7, sellVolume: 1 / 3 + m - m / 7, quoteVolume: price * (m + 1 / 3), trades: m * 11 + 1, source: 'trades', noSplitMinutes: 0, klineMinutes: 0, vap })
    }
  return out
}

describe('writeMinuteBars', () => {
  let db: Database
  beforeAll(async () => {
    db = await openTestStore()
  })
  afterAll(() => db.close())

  async function stored() {
    const q = { coins: ['BTC', 'ETH', 'kPEPE'], marketType: 'perp' as const, start: T0 - HOUR_MS, end: T0 + 4 * HOUR_MS, withVap: true }
    return { minutes: await readCandles(db.sql, 'candle_1m', q), hours: await readCandles(db.sql, 'candle_1h', q) }
  }

  it('stores the same rows through COPY (fresh history) as through the upsert', async () => {
    expect(db.sql.copyBinary).toBeTypeOf('function')
    const input = bars()
    const viaCopy = await writeMinuteBars(db.sql, input, { fresh: true })
    const copied = await stored()
    await db.sql.query('TRUNCATE candle_1m, candle_1h')
    const viaUpsert = await writeMinuteBars(db.sql, input)
    const upserted = await stored()

    expect(copied.minutes.length).toBe(input.length)
    expect(copied).toEqual(upserted)
    // the rollups handed back (for the in-memory series) are the same; the fresh path folds volume at price from
    // the bars in hand, before the store rounds it to float32
    const noVap = (bs: MinuteBar[]) => bs.map(({ vap: _v, ...b }) => b)
    expect(noVap(viaCopy.hourBars)).toEqual(noVap(viaUpsert.hourBars))
    // exact doubles, not text round-trips; volume at price as the store keeps it (float32 per level)
    const sorted = [...input].sort((a, b) => a.coin.localeCompare(b.coin) || a.exchange.localeCompare(b.exchange) || a.ts - b.ts)
    expect(copied.minutes.map(({ vap: _v, ...b }) => b)).toEqual(sorted.map(({ vap: _v, ...b }) => b))
    for (const [i, b] of copied.minutes.entries()) {
      expect([...b.vap.keys()].sort()).toEqual([...sorted[i]!.vap.keys()].sort())
      for (const [k, [buy, sell]] of b.vap) {
        expect(buy).toBeCloseTo(sorted[i]!.vap.get(k)![0], 5)
        expect(sell).toBeCloseTo(sorted[i]!.vap.get(k)![1], 5)
      }
    }
    expect(copied.hours.length).toBe(9) // 3 markets × the 3 hours their minutes touch
  })

  it('COPYs more bars than one statement takes in pieces, every bar once, the same rows as the upsert', async () => {
    await db.sql.query('TRUNCATE candle_1m, candle_1h')
    // 2,345 bars: two whole pieces of 1,000 and a part
    const many: MinuteBar[] = []
    for (const [k, exchange] of (['binance', 'bybit', 'okx', 'hyperliquid', 'dydx'] as const).entries())
      for (let m = 0; m < 469; m++) {
        const p = 100 + k + m / 100
        many.push({ exchange, coin: 'SOL', marketType: 'perp', ts: T0 + m * MINUTE_MS, open: p, high: p + 0.5, low: p - 0.5, close: p + 0.25, volume: m + 1, buyVolume: m / 2, sellVolume: m / 2 + 1, quoteVolume: p * (m + 1), trades: m + 1, source: 'trades', noSplitMinutes: 0, klineMinutes: 0, vap: new Map([[m, [m / 2, m / 2 + 1]]]) })
      }
    expect(many.length).toBe(2345)
    const q = { coins: ['SOL'], marketType: 'perp' as const, start: T0, end: T0 + 469 * MINUTE_MS, withVap: true }
    await writeMinuteBars(db.sql, many, { fresh: true })
    const copied = await readCandles(db.sql, 'candle_1m', q)
    await db.sql.query('TRUNCATE candle_1m, candle_1h')
    await writeMinuteBars(db.sql, many)
    expect(copied.length).toBe(2345)
    expect(new Set(copied.map((b) => `${b.exchange}|${b.ts}`)).size).toBe(2345)
    expect(copied).toEqual(await readCandles(db.sql, 'candle_1m', q))
    await db.sql.query('TRUNCATE candle_1m, candle_1h')
  })

  it('rolls up the hours of a batch touching more hours than one read takes: each hour from every minute stored in it, read back in bounded statements', async () => {
    await db.sql.query('TRUNCATE candle_1m, candle_1h')
    // 2 markets × 170 hours = 340 touched hours; each hour already holds its first minute, the batch brings its 31st
    const bar = (exchange: 'binance' | 'okx', ts: number, trades: number): MinuteBar => ({ exchange, coin: 'SOL', marketType: 'perp', ts, open: 100, high: 101, low: 99, close: 100.5, volume: trades, buyVolume: trades / 2, sellVolume: trades / 2, quoteVolume: 100 * trades, trades, source: 'trades', noSplitMinutes: 0, klineMinutes: 0, vap: new Map() })
    const hours = Array.from({ length: 170 }, (_, h) => T0 + h * HOUR_MS)
    await writeMinuteBars(db.sql, hours.flatMap((h) => [bar('binance', h, 3), bar('okx', h, 5)]))
    const reads: number[] = []
    const counting = {
      query: <T,>(text: string, params?: unknown[]) => {
        if (/FROM unnest/.test(text) && /JOIN candle_1m/.test(text)) reads.push((params![3] as unknown[]).length)
        return db.sql.query<T>(text, params)
      },
    }
    await writeMinuteBars(counting, hours.flatMap((h) => [bar('binance', h + 30 * MINUTE_MS, 7), bar('okx', h + 30 * MINUTE_MS, 11)]))
    expect(reads.reduce((a, b) => a + b, 0)).toBe(340)
    expect(reads.length).toBeGreaterThan(1)
    const rows = await db.sql.query<{ exchange: string; trades: number }>(`SELECT exchange, trades FROM candle_1h WHERE coin = 'SOL'`)
    expect(rows.length).toBe(340)
    for (const r of rows) expect(Number(r.trades), r.exchange).toBe(r.exchange === 'binance' ? 3 + 7 : 5 + 11)
    await db.sql.query('TRUNCATE candle_1m, candle_1h')
  })

  it('COPYs the hourly rollups too when the hours are fresh, storing the same rows as the upsert', async () => {
    await db.sql.query('TRUNCATE candle_1m, candle_1h')
    const input = bars()
    await writeMinuteBars(db.sql, input, { fresh: true, freshHours: true })
    const copied = await stored()
    await db.sql.query('TRUNCATE candle_1m, candle_1h')
    await writeMinuteBars(db.sql, input)
    expect(copied).toEqual(await stored())
  })

  it('a COPY of rows that already exist fails whole, leaving the stored rows as they were', async () => {
    const before = await stored()
    await expect(writeMinuteBars(db.sql, bars().slice(0, 5), { fresh: true })).rejects.toThrow(/duplicate key/)
    expect(await stored()).toEqual(before)
  })

  it("finds each market's first and last stored minute (and the last one's close) by walking the key, as a full GROUP BY would", async () => {
    await db.sql.query('TRUNCATE candle_1m, candle_1h')
    expect(await storedMinuteRanges(db.sql)).toEqual(new Map())
    const input = bars()
    // markets whose keys sort next to each other and share prefixes, a spot market, a single-row market
    const extra: MinuteBar[] = [
      { ...input[0]!, exchange: 'binance', coin: 'BTCDOM', ts: T0 - 90 * MINUTE_MS },
      { ...input[0]!, exchange: 'binance', coin: 'BTC', marketType: 'spot', ts: T0 + 3 * MINUTE_MS },
      { ...input[0]!, exchange: 'binance', coin: 'BTC', marketType: 'spot', ts: T0 + 2 * HOUR_MS },
    ]
    await writeMinuteBars(db.sql, [...input, ...extra])
    const grouped = await db.sql.query<{ k: string; first: string | number; last: string | number; last_close: number }>(
      `SELECT g.*, (SELECT c.close FROM candle_1m c WHERE c.exchange || ':' || c.coin || ':' || c.market_type = g.k AND c.ts = g.last) AS last_close
       FROM (SELECT exchange || ':' || coin || ':' || market_type AS k, min(ts) AS first, max(ts) AS last FROM candle_1m GROUP BY 1) g`,
    )
    const ranges = await storedMinuteRanges(db.sql)
    expect(ranges.size).toBe(5)
    expect(ranges).toEqual(new Map(grouped.map((r) => [r.k, { first: Number(r.first), last: Number(r.last), lastClose: r.last_close }])))
    expect(ranges.get('binance:BTCDOM:perp')).toEqual({ first: T0 - 90 * MINUTE_MS, last: T0 - 90 * MINUTE_MS, lastClose: input[0]!.close })
  })

  it('samples: a fresh COPY stores the same rows as the upsert, nulls included', async () => {
    const rows: MarketSample[] = [
      { exchange: 'binance', coin: 'BTC', marketType: 'perp', ts: T0, markPrice: 64_000.123456789, indexPrice: 63_990.5, lastPrice: 64_001, fundingRate: 0.000123, fundingIntervalHours: 8, nextFundingTime: T0 + HOUR_MS, openInterest: 1234.567 },
      { exchange: 'okx', coin: 'BTC', marketType: 'perp', ts: T0 + 5 * MINUTE_MS, markPrice: 64_100, indexPrice: null, lastPrice: null, fundingRate: null, fundingIntervalHours: null, nextFundingTime: null, openInterest: null },
    ]
    const read = () => readSamples(db.sql, { coins: ['BTC'], marketType: 'perp', start: T0, end: T0 + HOUR_MS })
    await db.sql.query('TRUNCATE market_sample')
    await writeSamples(db.sql, rows, { fresh: true })
    const copied = await read()
    await db.sql.query('TRUNCATE market_sample')
    await writeSamples(db.sql, rows)
    expect(copied).toEqual(await read())
    // (rows that name no source are live)
    expect(copied).toEqual([...rows].sort((a, b) => a.exchange.localeCompare(b.exchange)).map((r) => ({ ...r, oiSource: 'live' })))
  })
})
