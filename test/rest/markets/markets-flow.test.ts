// REST contract of /v1/markets/ohlc (2 credits), /v1/markets/ticker (1) and /v1/flow/imbalance (5):
// field by field against docs/contract.md#payloads, values recomputed independently (raw SQL over candle_1m, the live maps,
// hand arithmetic), edge cases, and failures that charge nothing.
//
// One service, 3 h of simulated history for BTC, ETH and XRP; XRP then loses every dydx row and live value, so
// dydx is an exchange "without data for the coin". The clock is a variable so stale tests can move it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_NOW, seedMarket } from '../../helpers/market.js'
import { Ingest } from '../../../src/ingest/ingest.js'
import { startTestService, type TestService } from '../../helpers/service.js'
import {
  CEX, DEFAULT_COINS, EXCHANGES, HOUR, MINUTE, callBad, callOk, expectClose, expectEpochMs, removeExchangeData, sortedKeys, withLiveTicker, type Json,
} from './helpers.js'

let now = TEST_NOW
let t: TestService
let acct: { apiKey: string; accountId: string }

const SEEDED = ['BTC', 'ETH', 'XRP']
const SEED_HOURS = 3
/** history starts here: 09:00 UTC (TEST_NOW is 12:00:30, the live minute 12:00 is not stored yet) */
const HISTORY_START = Math.floor(TEST_NOW / MINUTE) * MINUTE - SEED_HOURS * HOUR

beforeAll(async () => {
  t = await startTestService({ clock: () => now })
  await seedMarket(t, { hours: SEED_HOURS, coins: SEEDED })
  await removeExchangeData(t, 'dydx', 'XRP')
  acct = await t.signup()
})
afterAll(() => t.close())

/** run fn with the service clock at `at`, then put it back */
async function at<T>(when: number, fn: () => Promise<T>): Promise<T> {
  now = when
  try {
    return await fn()
  } finally {
    now = TEST_NOW
  }
}

interface MinuteRow {
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

/** the stored 1-minute aggregates of one market in [from, to), oldest first, read with raw SQL */
async function minuteRows(exchange: string, coin: string, marketType: string, from: number, to: number): Promise<MinuteRow[]> {
  const rows = await t.services.db.sql.query<Json>(
    `SELECT ts, open, high, low, close, volume, buy_volume, sell_volume, trades FROM candle_1m
     WHERE exchange = $1 AND coin = $2 AND market_type = $3 AND ts >= $4 AND ts < $5 ORDER BY ts`,
    [exchange, coin, marketType, from, to],
  )
  return rows.map((r) => ({ ...r, ts: Number(r.ts), trades: Number(r.trades) }) as MinuteRow)
}

/** a candle folded by hand from minute rows: first open, max high, min low, last close, sums */
function fold(rows: MinuteRow[]) {
  return {
    open: rows[0]!.open,
    high: Math.max(...rows.map((r) => r.high)),
    low: Math.min(...rows.map((r) => r.low)),
    close: rows[rows.length - 1]!.close,
    volume: rows.reduce((s, r) => s + r.volume, 0),
    buy_volume: rows.reduce((s, r) => s + r.buy_volume, 0),
    sell_volume: rows.reduce((s, r) => s + r.sell_volume, 0),
    trades: rows.reduce((s, r) => s + r.trades, 0),
  }
}

function expectCandleEquals(c: Json, expected: ReturnType<typeof fold>, what: string) {
  expect(c.open, `${what} open`).toBe(expected.open)
  expect(c.high, `${what} high`).toBe(expected.high)
  expect(c.low, `${what} low`).toBe(expected.low)
  expect(c.close, `${what} close`).toBe(expected.close)
  expectClose(c.volume, expected.volume, 1e-9, `${what} volume`)
  expectClose(c.buy_volume, expected.buy_volume, 1e-9, `${what} buy_volume`)
  expectClose(c.sell_volume, expected.sell_volume, 1e-9, `${what} sell_volume`)
  expect(c.trades, `${what} trades`).toBe(expected.trades)
}

const OHLC_KEYS = ['as_of', 'candles', 'coin', 'coverage', 'end', 'exchange', 'exchanges', 'interval', 'lookback', 'market_type', 'missing', 'start']
const COVERAGE_KEYS = ['delisted', 'exchanges', 'from', 'missing', 'note', 'partial', 'requested_from', 'requested_to', 'to']
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z')
const CANDLE_KEYS = ['buy_volume', 'close', 'exchanges', 'high', 'kline_minutes', 'low', 'no_split_minutes', 'open', 'outliers', 'sell_volume', 'source', 'trades', 'ts', 'volume']

describe('GET /v1/markets/ohlc (2 credits)', () => {
  it('defaults: envelope, headers, exact keys and types, balance drops by 2', async () => {
    const { data, meta } = await callOk(t, acct, '/v1/markets/ohlc?coin=BTC', 2)
    expect(sortedKeys(data)).toEqual(OHLC_KEYS)
    // defaults from interface.md: interval 1h, lookback 24h, market_type perp; no exchange = composite of all listing it
    expect(data).toMatchObject({ coin: 'BTC', exchange: 'composite', interval: '1h', lookback: '24h', market_type: 'perp' })
    expect(data.exchanges).toEqual([...EXCHANGES])
    expect(data.missing).toEqual([])
    expect(data.start).toBe(TEST_NOW - 24 * HOUR)
    expect(data.end).toBe(TEST_NOW)
    expect(data.as_of).toBe(TEST_NOW)
    expect(meta.as_of).toBe(TEST_NOW)
    for (const k of ['start', 'end', 'as_of']) expectEpochMs(data[k], k)
    // 3 h of history: the buckets 09:00, 10:00, 11:00, oldest first, hour-aligned
    expect(data.candles.map((c: Json) => c.ts)).toEqual([HISTORY_START, HISTORY_START + HOUR, HISTORY_START + 2 * HOUR])
    for (const c of data.candles) {
      expect(sortedKeys(c)).toEqual(CANDLE_KEYS)
      expectEpochMs(c.ts, 'candle.ts')
      expect(c.ts % HOUR).toBe(0)
      for (const k of ['open', 'high', 'low', 'close', 'volume', 'buy_volume', 'sell_volume']) expect(typeof c[k], k).toBe('number')
      expect(Number.isInteger(c.trades)).toBe(true)
      expect(c.low).toBeLessThanOrEqual(Math.min(c.open, c.close))
      expect(c.high).toBeGreaterThanOrEqual(Math.max(c.open, c.close))
      expectClose(c.buy_volume + c.sell_volume, c.volume, 1e-9, 'buy + sell = volume')
      expect(c.exchanges).toEqual([...EXCHANGES])
      // the simulated venues agree within bps: nobody set aside
      expect(c.outliers).toEqual([])
      // every minute of the simulator's folded from its trades: a taker split throughout
      expect([c.source, c.no_split_minutes, c.kline_minutes]).toEqual(['simulated', 0, 0])
    }
    // coverage: 3 h of history in a 24 h window: every venue is in, but only from 09:00; the figure says it is partial.
    // The window's candles start at its first whole hour, 13:00 the day before (the 12:00 one holds earlier trades)
    const firstHour = TEST_NOW - 24 * HOUR - (TEST_NOW % HOUR) + HOUR
    expect(sortedKeys(data.coverage)).toEqual(COVERAGE_KEYS)
    expect(data.coverage).toMatchObject({
      exchanges: [...EXCHANGES], from: HISTORY_START, to: HISTORY_START + 3 * HOUR, requested_from: firstHour, requested_to: TEST_NOW, partial: true,
    })
    expect(data.coverage.missing).toEqual(EXCHANGES.map((exchange) => ({ exchange, status: 'truncated', reason: `data from ${iso(HISTORY_START)} only` })))
    expect(data.coverage.note).toContain(`the data spans ${iso(HISTORY_START)} to ${iso(HISTORY_START + 3 * HOUR)} of the requested ${iso(firstHour)} to ${iso(TEST_NOW)}`)
    // a window inside the history is covered: its first whole minute (11:01) opens 30 s after 11:00:30 and the last stored
    // one ends at 12:00, both within two minutes of the window's ends
    const inside = (await callOk(t, acct, '/v1/markets/ohlc?coin=BTC&lookback=1h&interval=1m', 2)).data
    const minute = TEST_NOW - (TEST_NOW % MINUTE)
    expect(inside.coverage).toMatchObject({ exchanges: [...EXCHANGES], missing: [], from: minute - HOUR + MINUTE, to: minute, partial: false, note: null })
  })

  it('composite: a venue whose close is more than 5 % from the median of the candle\'s closes is left out of that candle and named', async () => {
    // LINK, fed in: one trade per venue at 10:05 (binance 10, bybit 10.1, okx 15 × 2) and at 11:05 (10, 10.2, 10.1)
    const A = HISTORY_START + HOUR
    const B = A + HOUR
    const history = new Ingest({ db: t.services.db, market: t.services.market, trackLive: false, sampleEveryMs: MINUTE })
    let n = 0
    for (const [ts, px] of [[A, { binance: 10, bybit: 10.1, okx: 15 }], [B, { binance: 10, bybit: 10.2, okx: 10.1 }]] as const)
      for (const [exchange, price] of Object.entries(px) as ['binance' | 'bybit' | 'okx', number][])
        history.emit({ type: 'trade', exchange, coin: 'LINK', marketType: 'perp', ts: ts + 5 * MINUTE + 1000, id: `l${n++}`, price, size: ts === A && exchange === 'okx' ? 2 : 1, side: 'buy' })
    await history.flush({ final: true })
    const { data } = await callOk(t, acct, '/v1/markets/ohlc?coin=LINK&interval=1h&lookback=4h', 2)
    // 10:00: median of 10, 10.1, 15 is 10.1; |15 − 10.1| = 4.9 > 5 % of 10.1 (0.505): okx is out, the candle is
    // (10 + 10.1) / 2 = 10.05 on 2 coins (averaged in, it would be (10 + 10.1 + 30) / 4 = 12.525 on 4)
    // 11:00: median 10.1, everyone within 0.505: (10 + 10.2 + 10.1) / 3
    expect(data.candles.map((c: Json) => [c.ts, c.volume, c.exchanges, c.outliers])).toEqual([[A, 2, ['binance', 'bybit'], ['okx']], [B, 3, ['binance', 'bybit', 'okx'], []]])
    expectClose(data.candles[0].close, 10.05, 1e-12, '10:00 close')
    expectClose(data.candles[1].close, 30.3 / 3, 1e-12, '11:00 close')
    expect(data.exchanges).toEqual(['binance', 'bybit', 'okx'])
    // okx is in only part of the window: named with the outlier status and why
    expect(data.coverage.missing).toContainEqual({
      exchange: 'okx', status: 'outlier',
      reason: `close more than 5 % from the median of the venues' closes in 1 of 2 candles (${iso(A)}), furthest 15 against 10.1 (48.51 %): left out of those candles as an outlier`,
    })
    expect(data.coverage.exchanges).toEqual(['binance', 'bybit', 'okx'])
    expect(data.missing.map((m: Json) => m.exchange)).toEqual(['hyperliquid', 'dydx'])
  })

  it('one exchange: every 1h candle equals its hour of candle_1m rows folded by hand (coin and exchange case-insensitive)', async () => {
    const { data } = await callOk(t, acct, '/v1/markets/ohlc?coin=btc&exchange=BINANCE&lookback=4h', 2)
    expect(data).toMatchObject({ coin: 'BTC', exchange: 'binance', exchanges: ['binance'], interval: '1h', lookback: '4h', missing: [] })
    expect(data.candles).toHaveLength(3)
    for (const c of data.candles) {
      expect(c.exchanges).toBeNull() // only composite candles list contributors
      const rows = await minuteRows('binance', 'BTC', 'perp', c.ts, c.ts + HOUR)
      expect(rows.length).toBeGreaterThan(50)
      expectCandleEquals(c, fold(rows), `binance ${new Date(c.ts).toISOString()}`)
    }
  })

  it('composite: volumes are sums over exchanges, prices are volume-weighted (recomputed per exchange from candle_1m)', async () => {
    const { data } = await callOk(t, acct, '/v1/markets/ohlc?coin=ETH&lookback=4h', 2)
    expect(data.exchanges).toEqual([...EXCHANGES])
    expect(data.candles).toHaveLength(3)
    for (const c of data.candles) {
      const per = await Promise.all(EXCHANGES.map(async (e) => fold(await minuteRows(e, 'ETH', 'perp', c.ts, c.ts + HOUR))))
      const V = per.reduce((s, p) => s + p.volume, 0)
      expectClose(c.volume, V, 1e-9, 'Σ volume')
      expectClose(c.buy_volume, per.reduce((s, p) => s + p.buy_volume, 0), 1e-9, 'Σ buy_volume')
      expectClose(c.sell_volume, per.reduce((s, p) => s + p.sell_volume, 0), 1e-9, 'Σ sell_volume')
      expect(c.trades).toBe(per.reduce((s, p) => s + p.trades, 0))
      // close = Σ close_e × volume_e / Σ volume_e, and the same weights for open, high, low
      for (const k of ['open', 'high', 'low', 'close'] as const) expectClose(c[k], per.reduce((s, p) => s + p[k] * p.volume, 0) / V, 1e-9, `composite ${k}`)
    }
  })

  it('interval=1m&lookback=1h: at most 60 minute-aligned candles, each equal to its stored candle_1m row', async () => {
    const { data } = await callOk(t, acct, '/v1/markets/ohlc?coin=BTC&exchange=okx&interval=1m&lookback=1h', 2)
    expect(data.start).toBe(TEST_NOW - HOUR)
    // the window is [11:00:30, 12:00:30): the 11:00 minute opened before start, so the first candle is 11:01
    const rows = await minuteRows('okx', 'BTC', 'perp', Math.ceil((TEST_NOW - HOUR) / MINUTE) * MINUTE, TEST_NOW)
    expect(data.candles.length).toBeLessThanOrEqual(60)
    expect(data.candles.length).toBe(rows.length)
    expect(rows.length).toBeGreaterThan(50)
    data.candles.forEach((c: Json, i: number) => {
      expect(c.ts % MINUTE).toBe(0)
      expect(c.ts).toBe(rows[i]!.ts)
      expectCandleEquals(c, fold([rows[i]!]), `okx minute ${i}`)
    })
    expect(data.candles[0].ts).toBeGreaterThanOrEqual(TEST_NOW - HOUR)
  })

  it('5m and 15m candles fold their minutes, aligned to the interval', async () => {
    for (const [interval, ms] of [['5m', 5 * MINUTE], ['15m', 15 * MINUTE]] as const) {
      const { data } = await callOk(t, acct, `/v1/markets/ohlc?coin=ETH&exchange=bybit&interval=${interval}&lookback=1h`, 2)
      expect(data.candles.length).toBeLessThanOrEqual(HOUR / ms)
      for (const c of data.candles) {
        expect(c.ts % ms).toBe(0)
        expectCandleEquals(c, fold(await minuteRows('bybit', 'ETH', 'perp', c.ts, Math.min(c.ts + ms, TEST_NOW))), `${interval} ${c.ts}`)
      }
    }
  })

  it('end reads an earlier window: [end - lookback, end), the last candle may be partial', async () => {
    const end = TEST_NOW - 2 * HOUR // 10:00:30
    const m = await callOk(t, acct, `/v1/markets/ohlc?coin=BTC&exchange=bybit&interval=1m&lookback=1h&end=${end}`, 2)
    expect(m.data.start).toBe(end - HOUR)
    expect(m.data.end).toBe(end)
    expect(m.data.as_of).toBe(end)
    const rows = await minuteRows('bybit', 'BTC', 'perp', Math.ceil((end - HOUR) / MINUTE) * MINUTE, end)
    expect(m.data.candles.map((c: Json) => c.ts)).toEqual(rows.map((r) => r.ts))
    expect(m.data.candles.at(-1).ts).toBe(end - 30_000) // the 10:00 minute: its open time is before end
    m.data.candles.forEach((c: Json, i: number) => expectCandleEquals(c, fold([rows[i]!]), `minute ${i}`))

    // hourly with the same end: 09:00 is a whole hour, 10:00 holds only the one minute before end
    const h = await callOk(t, acct, `/v1/markets/ohlc?coin=BTC&exchange=bybit&interval=1h&lookback=4h&end=${end}`, 2)
    expect(h.data.candles.map((c: Json) => c.ts)).toEqual([HISTORY_START, HISTORY_START + HOUR])
    expectCandleEquals(h.data.candles[0], fold(await minuteRows('bybit', 'BTC', 'perp', HISTORY_START, HISTORY_START + HOUR)), '09:00')
    expectCandleEquals(h.data.candles[1], fold(await minuteRows('bybit', 'BTC', 'perp', HISTORY_START + HOUR, end)), '10:00 partial')
  })

  it('interval=4h and 1d buckets are UTC-aligned and fold the same minutes', async () => {
    for (const [interval, ms] of [['4h', 4 * HOUR], ['1d', 24 * HOUR]] as const) {
      const { data } = await callOk(t, acct, `/v1/markets/ohlc?coin=BTC&exchange=hyperliquid&interval=${interval}&lookback=7d`, 2)
      expect(data.candles).toHaveLength(1)
      const c = data.candles[0]
      expect(c.ts % ms).toBe(0)
      expectCandleEquals(c, fold(await minuteRows('hyperliquid', 'BTC', 'perp', c.ts, TEST_NOW)), interval)
    }
  })

  it('an empty window (end before any data) is 200 with no candles and every exchange in missing, and is charged', async () => {
    const end = HISTORY_START - 5 * HOUR
    const { data, meta } = await callOk(t, acct, `/v1/markets/ohlc?coin=BTC&lookback=4h&end=${end}`, 2)
    expect(data.candles).toEqual([])
    expect(data.exchanges).toEqual([])
    expect(data.missing.map((m: Json) => m.exchange)).toEqual([...EXCHANGES])
    for (const m of data.missing) {
      expect(sortedKeys(m)).toEqual(['exchange', 'reason'])
      expect(m.reason.length).toBeGreaterThan(0)
    }
    expect(meta.as_of).toBe(end)
    expect(data.coverage).toMatchObject({ exchanges: [], from: null, to: null, requested_from: end - 4 * HOUR, requested_to: end, partial: true })
    expect(data.coverage.missing.map((m: Json) => [m.exchange, m.status])).toEqual(EXCHANGES.map((e) => [e, 'no_data']))
    const one = await callOk(t, acct, `/v1/markets/ohlc?coin=BTC&exchange=okx&interval=1m&lookback=1h&end=${end}`, 2)
    expect(one.data).toMatchObject({ exchange: 'okx', exchanges: [], candles: [] })
    expect(one.data.missing.map((m: Json) => m.exchange)).toEqual(['okx'])
  })

  it('market_type=spot: only binance, bybit, okx; the DEXes are missing because they list no spot market', async () => {
    const { data } = await callOk(t, acct, '/v1/markets/ohlc?coin=BTC&market_type=spot&lookback=4h', 2)
    expect(data.market_type).toBe('spot')
    expect(data.exchanges).toEqual([...CEX])
    expect(data.missing.map((m: Json) => m.exchange)).toEqual(['hyperliquid', 'dydx'])
    for (const m of data.missing) expect(m.reason).toMatch(/spot/)
    for (const c of data.candles) for (const e of c.exchanges) expect(CEX).toContain(e)
    const okx = await callOk(t, acct, '/v1/markets/ohlc?coin=BTC&market_type=spot&exchange=okx&lookback=4h', 2)
    for (const c of okx.data.candles) expectCandleEquals(c, fold(await minuteRows('okx', 'BTC', 'spot', c.ts, c.ts + HOUR)), `spot ${c.ts}`)
    // spot and perp are different markets: the spot volume is not the perp volume
    const perp = await callOk(t, acct, '/v1/markets/ohlc?coin=BTC&exchange=okx&lookback=4h', 2)
    expect(okx.data.candles[0].volume).not.toBe(perp.data.candles[0].volume)
  })

  it('an exchange without data for the coin is listed in missing with a reason, and never enters a candle', async () => {
    const { data } = await callOk(t, acct, '/v1/markets/ohlc?coin=XRP&lookback=4h', 2)
    expect(data.exchanges).toEqual(['binance', 'bybit', 'okx', 'hyperliquid'])
    expect(data.missing).toEqual([{ exchange: 'dydx', reason: expect.any(String) }])
    for (const c of data.candles) expect(c.exchanges).not.toContain('dydx')
    // the venue without data makes the composite partial, and the coverage says why; the others hold every candle of
    // the window (08:00:30 to 12:00:30: its whole hours start at 09:00, where the history starts)
    expect(data.coverage.exchanges).toEqual(['binance', 'bybit', 'okx', 'hyperliquid'])
    expect(data.coverage.missing).toEqual([{ exchange: 'dydx', status: 'no_data', reason: 'no trades in the window' }])
    expect(data.coverage.partial).toBe(true)
    const only = await callOk(t, acct, '/v1/markets/ohlc?coin=XRP&exchange=dydx&lookback=4h', 2)
    expect(only.data).toMatchObject({ exchange: 'dydx', exchanges: [], candles: [] })
    expect(only.data.missing).toEqual([{ exchange: 'dydx', reason: expect.any(String) }])
  })

  it('bad parameters are 400 invalid_parameter naming the parameter, and charge nothing', async () => {
    const interval = await callBad(t, acct, '/v1/markets/ohlc?coin=BTC&interval=2h', 'interval')
    expect(interval.allowed).toEqual(['1m', '5m', '15m', '1h', '4h', '1d'])
    await callBad(t, acct, '/v1/markets/ohlc?coin=BTC&interval=1d&lookback=4h', 'interval') // longer than the lookback
    const lookback = await callBad(t, acct, '/v1/markets/ohlc?coin=BTC&lookback=2d', 'lookback')
    expect(lookback.allowed).toEqual(['1h', '4h', '24h', '7d', '30d'])
    await callBad(t, acct, '/v1/markets/ohlc', 'coin')
    const coin = await callBad(t, acct, '/v1/markets/ohlc?coin=NOPE', 'coin')
    expect(coin.allowed).toEqual(DEFAULT_COINS)
    await callBad(t, acct, '/v1/markets/ohlc?coin=BTC&market_type=spot&exchange=dydx', 'market_type')
    await callBad(t, acct, '/v1/markets/ohlc?coin=BTC&market_type=futures', 'market_type')
    await callBad(t, acct, '/v1/markets/ohlc?coin=BTC&exchange=kraken', 'exchange')
    await callBad(t, acct, '/v1/markets/ohlc?coin=BTC&end=yesterday', 'end')
    await callBad(t, acct, '/v1/markets/ohlc?coin=BTC&limit=0', 'limit')
    await callBad(t, acct, '/v1/markets/ohlc?coin=BTC&limit=5001', 'limit')
    await callBad(t, acct, '/v1/markets/ohlc?coin=BTC&cursor=not-a-cursor', 'cursor')
    await callBad(t, acct, '/v1/markets/ohlc?coin=BTC&page=2', 'page')
    await callBad(t, acct, '/v1/markets/ohlc?coin=BTC&coin=ETH', 'coin') // given twice
    await callBad(t, acct, `/v1/markets/ohlc?coin=BTC&end=${TEST_NOW + 2 * 24 * HOUR}`, 'end') // more than a day ahead
  })
})

const TICKER_KEYS = ['age_ms', 'coin', 'exchange', 'funding_interval_hours', 'funding_kind', 'funding_rate', 'index_price', 'mark_note', 'mark_price', 'next_funding_time', 'reason', 'stale', 'status', 'ts']

describe('GET /v1/markets/ticker (1 credit)', () => {
  it('one coin: one row per exchange in canonical order, exact keys, values as the live feed reported them, not stale', async () => {
    const { data, meta } = await callOk<Json[]>(t, acct, '/v1/markets/ticker?coin=BTC', 1)
    expect(meta.as_of).toBe(TEST_NOW)
    expect(data.map((r) => r.exchange)).toEqual([...EXCHANGES])
    for (const r of data) {
      expect(sortedKeys(r)).toEqual(TICKER_KEYS)
      expect(r.coin).toBe('BTC')
      expectEpochMs(r.ts, 'ts')
      expectEpochMs(r.next_funding_time, 'next_funding_time')
      expect(r.next_funding_time).toBeGreaterThan(r.ts)
      // dYdX publishes no mark apart from its oracle (its index): null, with the note
      for (const k of ['index_price', 'funding_rate', 'funding_interval_hours', 'age_ms']) expect(typeof r[k], k).toBe('number')
      expect(typeof r.mark_price).toBe(r.exchange === 'dydx' ? 'object' : 'number')
      expect(typeof r.mark_note).toBe(r.exchange === 'dydx' ? 'string' : 'object')
      // "values no older than about 5 seconds while the feed runs"
      expect(r.stale).toBe(false)
      expect([r.status, r.reason]).toEqual(['fresh', null])
      expect(r.ts).toBeLessThanOrEqual(TEST_NOW)
      expect(r.age_ms).toBe(TEST_NOW - r.ts)
      expect(r.age_ms).toBeLessThanOrEqual(5_000)
      // a funding rate always travels with its interval, and says it is the live predicted rate (tickers carry no settled one)
      if (r.funding_rate !== null) expect(r.funding_interval_hours).toBeGreaterThan(0)
      expect(r.funding_kind).toBe('predicted')
      const live = t.services.market.live.tickers.get(`${r.exchange}:BTC:perp`)!
      expect(r).toMatchObject({
        mark_price: r.exchange === 'dydx' ? null : live.markPrice, index_price: live.indexPrice, funding_rate: live.fundingRate,
        funding_interval_hours: live.fundingIntervalHours, next_funding_time: live.nextFundingTime, ts: live.ts,
      })
    }
  })

  it('coin omitted: every coin and venue, sorted by coin then exchange; a venue without data has a row saying why; exchange filter', async () => {
    const { data } = await callOk<Json[]>(t, acct, '/v1/markets/ticker', 1)
    const pairs = data.map((r) => `${r.coin}:${r.exchange}`)
    expect(pairs).toEqual([...DEFAULT_COINS].sort().flatMap((c) => EXCHANGES.map((e) => `${c}:${e}`)))
    for (const r of data) {
      const withData = SEEDED.includes(r.coin) && !(r.coin === 'XRP' && r.exchange === 'dydx')
      if (withData) expect([r.status, r.reason]).toEqual(['fresh', null])
      else {
        // the feed is up (it delivered other coins), so the venue simply has no ticker for this coin
        expect(r).toMatchObject({ status: 'no_data', reason: `no ${r.coin} perp ticker`, stale: true, mark_price: null, index_price: null, funding_rate: null, funding_kind: null, ts: null, age_ms: null })
      }
    }
    for (const r of data) if (r.funding_rate !== null) expect(r.funding_interval_hours).toBeGreaterThan(0)
    const hl = await callOk<Json[]>(t, acct, '/v1/markets/ticker?exchange=HyperLiquid', 1)
    expect(hl.data.map((r) => `${r.coin}:${r.exchange}`)).toEqual(DEFAULT_COINS.map((c) => `${c}:hyperliquid`))
    expect(hl.data.filter((r) => r.status === 'fresh').map((r) => r.coin)).toEqual(SEEDED)
    const both = await callOk<Json[]>(t, acct, '/v1/markets/ticker?coin=eth&exchange=okx', 1)
    expect(both.data.map((r) => `${r.coin}:${r.exchange}`)).toEqual(['ETH:okx'])
    const none = await callOk<Json[]>(t, acct, '/v1/markets/ticker?coin=XRP&exchange=dydx', 1)
    expect(none.data).toEqual([expect.objectContaining({ coin: 'XRP', exchange: 'dydx', status: 'no_data', mark_price: null })])
  })

  it('a funding rate never travels without its interval: a venue reporting no interval gets funding_rate null too', async () => {
    const { data } = await withLiveTicker(t, 'binance:XRP:perp', { fundingIntervalHours: null }, () => callOk<Json[]>(t, acct, '/v1/markets/ticker?coin=XRP', 1))
    const binance = data.find((r) => r.exchange === 'binance')!
    expect(binance.funding_interval_hours).toBeNull()
    expect(binance.funding_rate).toBeNull()
    expect(binance.funding_kind).toBeNull() // no rate, nothing to qualify
    expect(typeof binance.mark_price).toBe('number')
    for (const r of data) if (r.funding_rate !== null) expect(r.funding_interval_hours).toBeGreaterThan(0)
  })

  it('stale: with the clock 20 s ahead every row is flagged stale and age_ms grows by 20 s', async () => {
    const fresh = (await callOk<Json[]>(t, acct, '/v1/markets/ticker?coin=BTC', 1)).data
    const later = await at(TEST_NOW + 20_000, () => callOk<Json[]>(t, acct, '/v1/markets/ticker?coin=BTC', 1))
    expect(later.meta.as_of).toBe(TEST_NOW + 20_000)
    expect(later.data).toHaveLength(5)
    later.data.forEach((r, i) => {
      expect(r.stale).toBe(true)
      expect(r.status).toBe('stale')
      expect(r.reason).toBe(`last update ${Math.round(r.age_ms / 1000)} s ago (stale after 15 s)`)
      expect(r.ts).toBe(fresh[i]!.ts)
      expect(r.age_ms).toBe(fresh[i]!.age_ms + 20_000)
    })
    // 10 s ahead is still inside the 15 s staleness threshold (three missed 5 s refreshes)
    const soon = await at(TEST_NOW + 10_000, () => callOk<Json[]>(t, acct, '/v1/markets/ticker?coin=BTC', 1))
    for (const r of soon.data) expect(r.stale).toBe(false)
  })

  it('bad parameters charge nothing', async () => {
    const ex = await callBad(t, acct, '/v1/markets/ticker?exchange=kraken', 'exchange')
    expect(ex.allowed).toEqual([...EXCHANGES])
    await callBad(t, acct, '/v1/markets/ticker?coin=NOPE', 'coin')
  })
})

const BANDS = [0.5, 1, 2, 5]

/** depth by hand from a raw book: mid = (best bid + best ask) / 2, Σ price × size of levels inside mid × (1 ± b) */
function depthByHand(book: { bids: { price: number; size: number }[]; asks: { price: number; size: number }[] }) {
  const bestBid = Math.max(...book.bids.map((l) => l.price))
  const bestAsk = Math.min(...book.asks.map((l) => l.price))
  const mid = (bestBid + bestAsk) / 2
  return {
    mid,
    bands: BANDS.map((b) => {
      const bid = book.bids.filter((l) => l.price >= mid * (1 - b / 100)).reduce((s, l) => s + l.price * l.size, 0)
      const ask = book.asks.filter((l) => l.price <= mid * (1 + b / 100)).reduce((s, l) => s + l.price * l.size, 0)
      return { band_pct: b, bid, ask }
    }),
  }
}

describe('GET /v1/flow/imbalance (5 credits)', () => {
  it('one coin: exact keys, every exchange\'s depth recomputed from its raw book, reach per side, aggregate = sums naming its venues', async () => {
    const { data, meta } = await callOk<Json[]>(t, acct, '/v1/flow/imbalance?coin=BTC', 5)
    expect(meta.as_of).toBe(TEST_NOW)
    expect(data).toHaveLength(1)
    const c = data[0]!
    expect(sortedKeys(c)).toEqual(['aggregate', 'coin', 'coverage', 'exchanges', 'missing', 'ts'])
    expect(c.coin).toBe('BTC')
    expect(c.ts).toBe(TEST_NOW)
    expect(c.missing).toEqual([])
    // a point-in-time figure: every venue's book in, whole, nothing partial
    expect(c.coverage).toEqual({ exchanges: [...EXCHANGES], missing: [], from: null, to: null, requested_from: null, requested_to: null, partial: false, note: null, delisted: null })
    expect(c.exchanges.map((e: Json) => e.exchange)).toEqual([...EXCHANGES])
    expect(sortedKeys(c.aggregate)).toEqual(['bands', 'exchanges', 'note'])
    expect(c.aggregate.exchanges).toEqual([...EXCHANGES])
    expect(c.aggregate.note).toBeNull()
    const sums = BANDS.map(() => ({ bid: 0, ask: 0 }))
    for (const e of c.exchanges) {
      expect(sortedKeys(e)).toEqual(['ask_reach_pct', 'bands', 'bid_reach_pct', 'exchange', 'mid', 'note', 'stale', 'ts'])
      expectEpochMs(e.ts, 'ts')
      expect(e.stale).toBe(false)
      expect(e.note).toBeNull()
      const book = t.services.market.live.books.get(`${e.exchange}:BTC:perp`)!
      expect(e.ts).toBe(book.ts)
      // the simulator sends its whole book: no reach limit, every band is measured on it
      expect([book.bidEnd, book.askEnd]).toEqual([null, null])
      expect([e.bid_reach_pct, e.ask_reach_pct]).toEqual([null, null])
      const hand = depthByHand(book)
      expectClose(e.mid, hand.mid, 1e-12, `${e.exchange} mid`)
      expect(e.bands.map((b: Json) => b.band_pct)).toEqual(BANDS)
      e.bands.forEach((b: Json, i: number) => {
        expect(sortedKeys(b)).toEqual(['ask_depth_usd', 'band_pct', 'bid_depth_usd', 'granularity_pct', 'note', 'ratio', 'source'])
        expect(b).toMatchObject({ source: 'book', granularity_pct: 0, note: null })
        expectClose(b.bid_depth_usd, hand.bands[i]!.bid, 1e-9, `${e.exchange} ${b.band_pct}% bid`)
        expectClose(b.ask_depth_usd, hand.bands[i]!.ask, 1e-9, `${e.exchange} ${b.band_pct}% ask`)
        expectClose(b.ratio, b.bid_depth_usd / b.ask_depth_usd, 1e-12, 'ratio')
        sums[i]!.bid += b.bid_depth_usd
        sums[i]!.ask += b.ask_depth_usd
        // a wider band holds at least the depth of a narrower one
        if (i > 0) {
          expect(b.bid_depth_usd).toBeGreaterThanOrEqual(e.bands[i - 1].bid_depth_usd)
          expect(b.ask_depth_usd).toBeGreaterThanOrEqual(e.bands[i - 1].ask_depth_usd)
        }
      })
    }
    expect(c.aggregate.bands.map((b: Json) => b.band_pct)).toEqual(BANDS)
    c.aggregate.bands.forEach((b: Json, i: number) => {
      expect(sortedKeys(b)).toEqual(['ask_depth_usd', 'band_pct', 'bid_depth_usd', 'exchanges', 'excluded', 'note', 'ratio'])
      expect(b.exchanges).toEqual([...EXCHANGES])
      expect(b.excluded).toEqual([])
      expectClose(b.bid_depth_usd, sums[i]!.bid, 1e-12, `aggregate ${b.band_pct}% bid`)
      expectClose(b.ask_depth_usd, sums[i]!.ask, 1e-12, `aggregate ${b.band_pct}% ask`)
      expectClose(b.ratio, sums[i]!.bid / sums[i]!.ask, 1e-12, 'aggregate ratio = Σ bid / Σ ask')
      if (i > 0) expect(b.bid_depth_usd).toBeGreaterThanOrEqual(c.aggregate.bands[i - 1].bid_depth_usd)
    })
  })

  it('a book that does not reach a band: that band is null with the reason, the aggregate sums the others and names them', async () => {
    const id = 'hyperliquid:BTC:perp'
    const books = t.services.market.live.books
    const original = books.get(id)!
    // cut hyperliquid's book to its top 20 levels a side, as the venue sends it, and say so
    const bids = original.bids.slice(0, 20)
    const asks = original.asks.slice(0, 20)
    books.set(id, { ...original, bids, asks, bidEnd: bids.at(-1)!.price, askEnd: asks.at(-1)!.price })
    try {
      const c = (await callOk<Json[]>(t, acct, '/v1/flow/imbalance?coin=BTC', 5)).data[0]!
      const hl = c.exchanges.find((e: Json) => e.exchange === 'hyperliquid')
      const mid = (bids[0]!.price + asks[0]!.price) / 2
      const bidReach = ((mid - bids.at(-1)!.price) / mid) * 100
      const askReach = ((asks.at(-1)!.price - mid) / mid) * 100
      expectClose(hl.bid_reach_pct, bidReach, 1e-9, 'bid reach')
      expectClose(hl.ask_reach_pct, askReach, 1e-9, 'ask reach')
      let someShort = false
      hl.bands.forEach((b: Json, i: number) => {
        const reached = bidReach >= b.band_pct && askReach >= b.band_pct
        const agg = c.aggregate.bands[i]
        if (reached) {
          expect(b.bid_depth_usd).toEqual(expect.any(Number))
          expect(agg.exchanges).toContain('hyperliquid')
          return
        }
        someShort = true
        expect(b).toMatchObject({ bid_depth_usd: null, ask_depth_usd: null, ratio: null, source: null })
        expect(b.note).toMatch(/short of ±/)
        expect(agg.exchanges).toEqual(EXCHANGES.filter((e) => e !== 'hyperliquid'))
        expect(agg.excluded).toEqual([{ exchange: 'hyperliquid', reason: b.note }])
        // the coverage says the venue is in only in part, naming the bands its book does not reach
        const gap = c.coverage.missing.find((m: Json) => m.exchange === 'hyperliquid')
        expect(gap.status).toBe('truncated')
        expect(gap.reason).toContain(`±${b.band_pct} %`)
        expect(c.coverage.partial).toBe(true)
        const others = c.exchanges.filter((e: Json) => e.exchange !== 'hyperliquid')
        expectClose(agg.bid_depth_usd, others.reduce((x: number, e: Json) => x + e.bands[i].bid_depth_usd, 0), 1e-12, 'Σ bid without hyperliquid')
      })
      expect(someShort).toBe(true) // 20 simulated levels do not reach ±5 %
    } finally {
      books.set(id, original)
    }
  })

  it('coin omitted: one entry per coin of the universe; coins without books say so', async () => {
    const { data } = await callOk<Json[]>(t, acct, '/v1/flow/imbalance', 5)
    expect(data.map((c) => c.coin)).toEqual(DEFAULT_COINS)
    for (const c of data) {
      if (SEEDED.includes(c.coin)) {
        expect(c.aggregate.bands).not.toBeNull()
        continue
      }
      expect(c.exchanges).toEqual([])
      expect(c.aggregate).toEqual({ exchanges: [], bands: null, note: expect.any(String) })
      expect(c.missing.map((m: Json) => m.exchange)).toEqual([...EXCHANGES])
    }
  })

  it('exchange filter: the aggregate is that exchange alone', async () => {
    const { data } = await callOk<Json[]>(t, acct, '/v1/flow/imbalance?coin=ETH&exchange=OKX', 5)
    const c = data[0]!
    expect(c.exchanges.map((e: Json) => e.exchange)).toEqual(['okx'])
    expect(c.aggregate.exchanges).toEqual(['okx'])
    c.aggregate.bands.forEach((b: Json, i: number) => {
      const e = c.exchanges[0].bands[i]
      expect([b.bid_depth_usd, b.ask_depth_usd, b.ratio, b.exchanges]).toEqual([e.bid_depth_usd, e.ask_depth_usd, e.ratio, ['okx']])
    })
    expect(c.missing).toEqual([])
  })

  it('an exchange without a book for the coin is in missing with a reason and out of the aggregate', async () => {
    const { data } = await callOk<Json[]>(t, acct, '/v1/flow/imbalance?coin=XRP', 5)
    const c = data[0]!
    expect(c.exchanges.map((e: Json) => e.exchange)).toEqual(['binance', 'bybit', 'okx', 'hyperliquid'])
    expect(c.aggregate.exchanges).toEqual(['binance', 'bybit', 'okx', 'hyperliquid'])
    expect(c.missing).toEqual([{ exchange: 'dydx', reason: expect.any(String) }])
    expect(c.coverage).toMatchObject({ exchanges: ['binance', 'bybit', 'okx', 'hyperliquid'], missing: [{ exchange: 'dydx', status: 'no_data', reason: 'no XRP order book' }], partial: true })
    const only = (await callOk<Json[]>(t, acct, '/v1/flow/imbalance?coin=XRP&exchange=dydx', 5)).data[0]!
    expect(only.exchanges).toEqual([])
    expect(only.aggregate).toEqual({ exchanges: [], bands: null, note: expect.any(String) })
    expect(only.missing).toEqual([{ exchange: 'dydx', reason: expect.any(String) }])
  })

  it('stale books (clock 61 s ahead) are still listed with stale: true but left out of the aggregate, with a note', async () => {
    const { data } = await at(TEST_NOW + 61_000, () => callOk<Json[]>(t, acct, '/v1/flow/imbalance?coin=BTC', 5))
    const c = data[0]!
    expect(c.exchanges).toHaveLength(5)
    for (const e of c.exchanges) expect(e.stale).toBe(true)
    expect(c.aggregate.exchanges).toEqual([])
    expect(c.aggregate.bands).toBeNull()
    expect(c.aggregate.note).toEqual(expect.any(String))
    expect(c.coverage.exchanges).toEqual([])
    expect(c.coverage.missing).toEqual(EXCHANGES.map((exchange) => ({ exchange, status: 'stale', reason: 'BTC order book older than 60 s' })))
    expect(c.coverage.partial).toBe(true)
    // 59 s ahead is still fresh (the threshold is 60 s)
    const fresh = await at(TEST_NOW + 59_000, () => callOk<Json[]>(t, acct, '/v1/flow/imbalance?coin=BTC', 5))
    expect(fresh.data[0]!.aggregate.exchanges).toEqual([...EXCHANGES])
  })

  it('bad parameters charge nothing', async () => {
    const ex = await callBad(t, acct, '/v1/flow/imbalance?exchange=ftx', 'exchange')
    expect(ex.allowed).toEqual([...EXCHANGES])
    await callBad(t, acct, '/v1/flow/imbalance?coin=BTC&band=1', 'band')
  })
})
