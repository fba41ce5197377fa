// loadBars takes whatever the in-memory series mirrors (hours of the retention, minutes of the last day) from
// memory and reads only the rest: for every window shape the bars must equal what the store alone returns.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HOUR_MS, MINUTE_MS } from '../../src/domain/time.js'
import type { MinuteBar } from '../../src/domain/minute-bars.js'
import { loadBars } from '../../src/read/market-data.js'
import { TEST_NOW, seedMarket } from '../helpers/market.js'
import { startTestService, type TestService } from '../helpers/service.js'

type Query = Parameters<typeof loadBars>[1]

const comparable = (bars: MinuteBar[]) =>
  bars
    .map(({ vap: _vap, ...b }) => b)
    .sort((a, b) => a.exchange.localeCompare(b.exchange) || a.ts - b.ts)

describe('loadBars: the in-memory series and the store agree', () => {
  let t: TestService
  const reads: string[] = []
  beforeAll(async () => {
    t = await startTestService({ clock: () => TEST_NOW })
    await seedMarket(t, { hours: 30, coins: ['BTC'] }) // longer than the series keeps minutes for (26 h)
    const sql = t.services.db.sql
    const original = sql.query.bind(sql)
    sql.query = ((text: string, params?: unknown[]) => {
      const m = /FROM (candle_1m|candle_1h)\b/.exec(text)
      if (m) reads.push(m[1]!)
      return original(text, params)
    }) as typeof sql.query
  }, 120_000)
  afterAll(() => t.close())

  /** the same window from the store alone (withVap skips the series), without volume at price */
  const fromStore = async (q: Query) => comparable(await loadBars(t.services.market, { ...q, withVap: true }))
  const fromSeries = async (q: Query) => {
    reads.length = 0
    const bars = comparable(await loadBars(t.services.market, q))
    return { bars, reads: [...reads] }
  }

  const now = TEST_NOW
  const cases: [string, Query, string[]][] = [
    ['24 h hourly, whole hours and both edges from memory', { coin: 'BTC', marketType: 'perp', start: now - 24 * HOUR_MS, end: now, hourly: true }, []],
    ['28 h hourly: the partial first hour is older than the minutes kept, so only it is read', { coin: 'BTC', marketType: 'perp', start: now - 28 * HOUR_MS, end: now, hourly: true }, ['candle_1m']],
    ['one exchange', { coin: 'BTC', marketType: 'perp', start: now - 24 * HOUR_MS, end: now, hourly: true, exchange: 'okx' }, []],
    ['spot markets', { coin: 'BTC', marketType: 'spot', start: now - 6 * HOUR_MS, end: now, hourly: true }, []],
    ['a window ending in the past, not on an hour', { coin: 'BTC', marketType: 'perp', start: now - 20 * HOUR_MS - 17 * MINUTE_MS, end: now - 3 * HOUR_MS + 29 * MINUTE_MS, hourly: true }, []],
    ['minutes only (under an hour)', { coin: 'BTC', marketType: 'perp', start: now - 45 * MINUTE_MS, end: now, hourly: false }, []],
    ['minutes older than the series keeps come from the store', { coin: 'BTC', marketType: 'perp', start: now - 29 * HOUR_MS, end: now - 28 * HOUR_MS, hourly: false }, ['candle_1m']],
  ]

  it.each(cases)('%s', async (_name, q, expectedReads) => {
    const store = await fromStore(q)
    const { bars, reads: seen } = await fromSeries(q)
    expect(store.length).toBeGreaterThan(0)
    expect(bars).toEqual(store)
    expect(seen).toEqual(expectedReads)
  })

  it('a window older than the series retention is read from the store', async () => {
    const q: Query = { coin: 'BTC', marketType: 'perp', start: now - 40 * 24 * HOUR_MS, end: now - 32 * 24 * HOUR_MS, hourly: true }
    const { bars, reads: seen } = await fromSeries(q)
    expect(bars).toEqual([])
    expect(seen).toContain('candle_1h')
  })
})
