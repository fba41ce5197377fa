// /v1/markets/ohlc's coverage after a full backfill (issue 29, item 12): the window's candles start at its first whole
// bucket, so a store holding every minute of the window makes no venue "truncated" and the figure is not partial,
// whatever minute of the hour the request comes in; a window reaching before the stored history still is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HOUR_MS, MINUTE_MS } from '../../src/domain/time.js'
import { TEST_NOW, seedMarket } from '../helpers/market.js'
import { startTestService, type TestService } from '../helpers/service.js'

type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

const EXCHANGES = ['binance', 'bybit', 'okx', 'hyperliquid', 'dydx']
/** mid-hour, so a 24 h window starts 17.5 minutes into an hour: 2026-03-02 12:17:30 UTC */
const NOW = TEST_NOW + 17 * MINUTE_MS
const HOURS = 26
/** the stored history's first minute */
const HISTORY_START = Math.floor(NOW / MINUTE_MS) * MINUTE_MS - HOURS * HOUR_MS
const ceilTo = (t: number, step: number) => Math.ceil(t / step) * step

describe('/v1/markets/ohlc coverage over a fully backfilled store', () => {
  let t: TestService
  let key: string
  beforeAll(async () => {
    t = await startTestService({ clock: () => NOW })
    await seedMarket(t, { hours: HOURS, coins: ['BTC'], now: NOW, sampleEveryMs: 5 * MINUTE_MS })
    // as npm start leaves it once its backfill has finished: history complete from the window's start
    t.services.market.backfill = { source: 'simulator', windowFrom: HISTORY_START, windowTo: NOW, completeFrom: HISTORY_START, chunks: 2, chunksDone: 2, done: true }
    key = (await t.signup()).apiKey
  }, 120_000)
  afterAll(() => t?.close())

  const ohlc = async (query: string): Promise<Json> => {
    const res = await t.get(`/v1/markets/ohlc?${query}`, key)
    expect(res.status, query).toBe(200)
    return ((await res.json()) as { data: Json }).data
  }

  it('the default request (1h, 24h) is whole: every venue in, none missing, not partial', async () => {
    const d = await ohlc('coin=BTC')
    const start = NOW - 24 * HOUR_MS
    expect(d.start).toBe(start)
    // the first candle is the first whole hour after the window's start; the one before would hold earlier trades
    expect(d.candles[0].ts).toBe(ceilTo(start, HOUR_MS))
    expect(d.candles.at(-1).ts).toBe(Math.floor(NOW / HOUR_MS) * HOUR_MS)
    expect(d.coverage).toEqual({
      exchanges: EXCHANGES, missing: [], from: ceilTo(start, HOUR_MS), to: Math.floor(NOW / HOUR_MS) * HOUR_MS + HOUR_MS,
      requested_from: ceilTo(start, HOUR_MS), requested_to: NOW, partial: false, note: null, delisted: null,
    })
  })

  it.each([
    ['1m', '1h', MINUTE_MS],
    ['5m', '4h', 5 * MINUTE_MS],
    ['15m', '24h', 15 * MINUTE_MS],
    ['4h', '24h', 4 * HOUR_MS],
  ])('interval %s over %s is whole too', async (interval, lookback, size) => {
    const d = await ohlc(`coin=BTC&interval=${interval}&lookback=${lookback}`)
    expect(d.coverage.requested_from).toBe(ceilTo(d.start, size))
    expect(d.coverage).toMatchObject({ exchanges: EXCHANGES, missing: [], partial: false, note: null })
  })

  it('spot: the DEXes list no spot market, which is not a shortfall', async () => {
    const d = await ohlc('coin=BTC&market_type=spot')
    expect(d.coverage.exchanges).toEqual(['binance', 'bybit', 'okx'])
    expect(d.coverage.missing.map((m: Json) => [m.exchange, m.status])).toEqual([['hyperliquid', 'not_listed'], ['dydx', 'not_listed']])
    expect(d.coverage.partial).toBe(false)
  })

  it('a window reaching before the stored history is partial: every venue is in only from the hour the history starts in', async () => {
    const d = await ohlc('coin=BTC&lookback=7d')
    const from = Math.floor(HISTORY_START / HOUR_MS) * HOUR_MS
    expect(d.coverage.partial).toBe(true)
    expect(d.coverage.missing).toEqual(EXCHANGES.map((exchange) => ({ exchange, status: 'truncated', reason: `data from ${new Date(from).toISOString().replace('.000Z', 'Z')} only` })))
  })
})
