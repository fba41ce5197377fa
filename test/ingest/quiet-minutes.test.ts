// Quiet minutes end to end: what the ingest pipeline stores for a live feed with a quiet minute and a feed gap, as
// every reader (candle_1m, the hourly rollup, /v1/markets/ohlc) sees it; and the finding's case — SIM_SEED=7, a
// 2-day backfill, the Binance BTC 1m series over 24 h — holding every one of its 1,440 minutes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type MarketKey } from '../../src/domain/minute-bars.js'
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../src/domain/time.js'
import type { MarketEvent } from '../../src/domain/events.js'
import { runBackfill } from '../../src/ingest/backfill.js'
import { Ingest } from '../../src/ingest/ingest.js'
import { MarketSimulator } from '../../src/sources/simulator/index.js'
import { startTestService, type TestService } from '../helpers/service.js'

interface Candle {
  ts: number
  open: number
  high: number
  low: number
  close: number
  volume: number
  buy_volume: number
  sell_volume: number
  trades: number
}

const ohlc = async (t: TestService, key: string, query: string) => {
  const res = await t.get(`/v1/markets/ohlc?${query}`, key)
  expect(res.status).toBe(200)
  return ((await res.json()) as { data: { candles: Candle[]; exchanges: string[] } }).data
}

describe('a live feed with a quiet minute and a feed gap', () => {
  const T0 = Date.UTC(2026, 1, 3, 10, 0)
  const NOW = T0 + 7 * MINUTE_MS + 30_000
  const BTC: MarketKey = { exchange: 'binance', coin: 'BTC', marketType: 'perp' }
  const OKX: MarketKey = { exchange: 'okx', coin: 'BTC', marketType: 'perp' }
  let t: TestService
  let key: string
  beforeAll(async () => {
    t = await startTestService({ clock: () => NOW })
    key = (await t.signup()).apiKey
    const ingest = new Ingest({ db: t.services.db, market: t.services.market })
    let id = 0
    const trade = (m: MarketKey, ts: number, price: number, size: number, side: 'buy' | 'sell'): MarketEvent => ({ type: 'trade', ...m, ts, id: String(id++), price, size, side })
    const beat = (m: MarketKey, from: number, to: number) => {
      for (let ts = from; ts < to; ts += 5_000)
        ingest.emit({ type: 'ticker', ...m, ts, markPrice: 100, indexPrice: 100, lastPrice: 100, fundingRate: 0.0001, fundingIntervalHours: 8, nextFundingTime: T0 + HOUR_MS })
    }
    // binance: trades in minute 0, quiet minutes 1 and 2 (the feed talks), nothing heard in minute 3 (down), back in
    // minute 4 with a trade, quiet 5 and 6; okx trades every minute 0..6
    ingest.emit(trade(BTC, T0 + 5_000, 100, 1, 'buy'))
    ingest.emit(trade(BTC, T0 + 40_000, 100.5, 2, 'sell'))
    beat(BTC, T0, T0 + 3 * MINUTE_MS)
    beat(BTC, T0 + 4 * MINUTE_MS, NOW)
    ingest.emit(trade(BTC, T0 + 4 * MINUTE_MS + 10_000, 103, 1, 'buy'))
    for (let m = 0; m < 7; m++) ingest.emit(trade(OKX, T0 + m * MINUTE_MS + 30_000, 101 + m, 3, 'buy'))
    beat(OKX, T0, NOW)
    ingest.advance(NOW)
    await ingest.flush()
  })
  afterAll(() => t.close())

  it('stores a flat zero-volume candle at the previous close for each quiet minute, and nothing for the gap', async () => {
    const rows = await t.services.db.sql.query<{ ts: number; open: number; high: number; low: number; close: number; volume: number; trades: number; vap: Uint8Array }>(
      `SELECT ts, open, high, low, close, volume, trades, vap FROM candle_1m WHERE exchange = 'binance' AND coin = 'BTC' ORDER BY ts`,
    )
    expect(rows.map((r) => (Number(r.ts) - T0) / MINUTE_MS)).toEqual([0, 1, 2, 4, 5, 6])
    const flat = (r: (typeof rows)[number], price: number) => expect([r.open, r.high, r.low, r.close, r.volume, r.trades, r.vap.length]).toEqual([price, price, price, price, 0, 0, 0])
    flat(rows[1]!, 100.5) // the close of minute 0 (its last trade)
    flat(rows[2]!, 100.5)
    flat(rows[4]!, 103)
    flat(rows[5]!, 103)
    // the hourly rollup folds the flat minutes in: the trade count and volume are minute 0's and 4's
    const [h] = await t.services.db.sql.query<{ trades: number; volume: number; close: number }>(
      `SELECT trades, volume, close FROM candle_1h WHERE exchange = 'binance' AND coin = 'BTC' AND ts = $1`,
      [T0],
    )
    expect(h).toEqual({ trades: 3, volume: 4, close: 103 })
  })

  it('/v1/markets/ohlc shows the quiet minutes as flat candles and skips the gap; the composite prices them out', async () => {
    const one = await ohlc(t, key, 'coin=BTC&exchange=binance&interval=1m&lookback=1h')
    expect(one.candles.map((c) => (c.ts - T0) / MINUTE_MS)).toEqual([0, 1, 2, 4, 5, 6, 7].filter((m) => m !== 7))
    expect(one.candles[1]).toMatchObject({ open: 100.5, high: 100.5, low: 100.5, close: 100.5, volume: 0, buy_volume: 0, sell_volume: 0, trades: 0 })
    // composite minute 1: binance did not trade, so okx alone sets the price; volumes are summed (binance adds 0)
    const comp = await ohlc(t, key, 'coin=BTC&interval=1m&lookback=1h')
    const m1 = comp.candles.find((c) => c.ts === T0 + MINUTE_MS)!
    expect(m1).toMatchObject({ open: 102, close: 102, volume: 3, trades: 1 })
    // 5-minute buckets fold the flat minutes like any other
    const five = await ohlc(t, key, 'coin=BTC&exchange=binance&interval=5m&lookback=1h')
    expect(five.candles[0]).toMatchObject({ ts: T0, open: 100, high: 103, low: 100, close: 103, volume: 4, trades: 3 })
  })
})

describe('SIM_SEED=7, a 2-day backfill: the Binance BTC 1m series over 24 h', () => {
  // on a minute, so the 24 h window is exactly 1,440 minutes; a day on which the old thin simulator left 12 empty
  const NOW = Date.UTC(2026, 4, 18, 15, 0)
  let t: TestService
  beforeAll(async () => {
    t = await startTestService({ clock: () => NOW })
    const sim = new MarketSimulator({ seed: 7, coins: ['BTC'] })
    await runBackfill({ db: t.services.db, market: t.services.market, source: sim, sourceName: 'simulator:7', now: NOW, days: 2 })
  })
  afterAll(() => t.close())

  it('holds 1,440 of 1,440 minutes, trading thousands of times a minute', async () => {
    const { apiKey } = await t.signup()
    const { candles } = await ohlc(t, apiKey, 'coin=BTC&exchange=binance&interval=1m&lookback=24h')
    expect(candles).toHaveLength(1440)
    expect(candles[0]!.ts).toBe(NOW - DAY_MS)
    for (let i = 1; i < candles.length; i++) expect(candles[i]!.ts - candles[i - 1]!.ts).toBe(MINUTE_MS)
    const trades = candles.map((c) => c.trades).sort((a, b) => a - b)
    expect(trades[720]!).toBeGreaterThan(500) // the median minute (the finding: 9)
    expect(trades[0]!).toBeGreaterThan(50) // the quietest minute (the finding: 1)
  })
})
