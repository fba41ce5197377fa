// Provenance in the figures (docs/methodology.md#provenance): a store holding LINK minutes folded from trades beside
// minutes from venue klines — Binance's with a taker split, Bybit's without one, trade count or quote volume — then a
// Bybit kline over a minute already folded from trades (not stored). CVD, taker volume, candles and the volume profile
// are derived here by hand from the inputs: the split figures over the minutes that have one, the minutes without
// named in coverage (`no_taker_split`, `no_trade_count`), the profile over the traded minutes only (`kline_only`).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { klineMinuteBar } from '../../src/domain/minute-bars.js'
import { Ingest } from '../../src/ingest/ingest.js'
import { TEST_NOW, seedMarket } from '../helpers/market.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { HOUR, MINUTE, callOk, type Json } from '../rest/markets/helpers.js'

/** 10:00 UTC, two hours before the clock */
const H = Date.UTC(2026, 2, 2, 10)
const at = (m: number) => H + m * MINUTE
const iso = (ms: number) => new Date(ms).toISOString().replace(':00.000Z', 'Z')
const range = (n: number, from = 0) => Array.from({ length: n }, (_, i) => from + i)

// binance: minutes 0-9 from trades (a buy of m + 1 and a sell of 0.5), 10-19 its klines (taker buy 2 of 3)
const BINANCE_TRADES = range(10).map((m) => ({ m, buy: m + 1, sell: 0.5, price: 11 + m * 0.001 }))
const BINANCE_KLINES = range(10, 10).map((m) => ({ m, volume: 3, buy: 2, price: 11 }))
// bybit: minutes 0-19 its klines (no taker split, trade count or quote volume), 20-29 from trades
const BYBIT_KLINES = range(20).map((m) => ({ m, volume: 5, price: 11.01 }))
const BYBIT_TRADES = range(10, 20).map((m) => ({ m, buy: 1 + 0.1 * (m - 20), sell: 2, price: 11.02 }))

let t: TestService
let acct: { apiKey: string; accountId: string }

beforeAll(async () => {
  t = await startTestService({ clock: () => TEST_NOW })
  await seedMarket(t, { hours: 1, coins: ['BTC'] })
  const { db, market } = t.services
  const history = new Ingest({ db, market, trackLive: false, sampleEveryMs: MINUTE })
  let id = 0
  const trade = (exchange: 'binance' | 'bybit', m: number, side: 'buy' | 'sell', size: number, price: number) =>
    history.emit({ type: 'trade', exchange, coin: 'LINK', marketType: 'perp', ts: at(m) + 1000 + id, id: `t${id++}`, price, size, side })
  const binance = { exchange: 'binance', coin: 'LINK', marketType: 'perp' } as const
  const bybit = { exchange: 'bybit', coin: 'LINK', marketType: 'perp' } as const
  // each venue's minutes in time order (a minute older than one already closed would be late)
  for (const x of BINANCE_TRADES) (trade('binance', x.m, 'buy', x.buy, x.price), trade('binance', x.m, 'sell', x.sell, x.price))
  for (const k of BINANCE_KLINES) history.emitBar(klineMinuteBar(binance, { ts: at(k.m), open: k.price, high: k.price, low: k.price, close: k.price, volume: k.volume, buyVolume: k.buy, quoteVolume: k.volume * k.price, trades: 4 }))
  for (const k of BYBIT_KLINES) history.emitBar(klineMinuteBar(bybit, { ts: at(k.m), open: k.price, high: k.price, low: k.price, close: k.price, volume: k.volume }))
  for (const x of BYBIT_TRADES) (trade('bybit', x.m, 'buy', x.buy, x.price), trade('bybit', x.m, 'sell', x.sell, x.price))
  await history.flush({ final: true })
  // later, the venue's history again: its kline of minute 25 must not take the place of the minute folded from trades
  const again = new Ingest({ db, market, trackLive: false, sampleEveryMs: MINUTE })
  again.emitBar(klineMinuteBar(bybit, { ts: at(25), open: 50, high: 50, low: 50, close: 50, volume: 99 }))
  await again.flush({ final: true })
  acct = await t.signup()
  await t.setCredits(acct.accountId, 10_000)
}, 120_000)
afterAll(() => t?.close())

const venue = (leg: Json, e: string) => (leg.exchanges as Json[]).find((v) => v.exchange === e)!
const BYBIT_NO_SPLIT = (to: number) => ({
  exchange: 'bybit', status: 'no_taker_split',
  reason: `20 minutes without a taker split (venue klines that give none): left out of the taker buy and sell figures, never estimated: ${iso(H)} to ${iso(to)}`,
})

describe('CVD and taker volume leave minutes without a taker split out, and say so', () => {
  it('1m: a point for every minute with a split, none for a kline without one; the CVD cumulates only those', async () => {
    const { data } = await callOk(t, acct, '/v1/flow/cvd?coin=LINK&interval=1m&lookback=4h', 3)
    const perp = data.perp
    const expected = {
      binance: [...BINANCE_TRADES.map((x) => [at(x.m), x.buy, x.sell]), ...BINANCE_KLINES.map((k) => [at(k.m), k.buy, k.volume - k.buy])],
      bybit: BYBIT_TRADES.map((x) => [at(x.m), x.buy, x.sell]),
    }
    for (const [e, rows] of Object.entries(expected)) {
      const points = venue(perp, e).points as Json[]
      expect(points.map((p) => p.ts)).toEqual(rows.map((r) => r[0]))
      let cvd = 0
      points.forEach((p, i) => {
        const [, buy, sell] = rows[i]!
        cvd += buy! - sell!
        expect(p.buy_volume).toBeCloseTo(buy!, 9)
        expect(p.sell_volume).toBeCloseTo(sell!, 9)
        expect(p.cvd).toBeCloseTo(cvd, 9)
      })
    }
    expect(perp.coverage.missing).toContainEqual(BYBIT_NO_SPLIT(at(20)))
    expect(perp.coverage.partial).toBe(true)
    // binance's klines give a taker split: it is in whole (its data only starts inside the window)
    expect(perp.coverage.missing.filter((g: Json) => g.exchange === 'binance').map((g: Json) => g.status)).toEqual(['truncated'])
  })

  it('1h: the hour\'s split sums the minutes that have one; the coverage names the hour holding the others', async () => {
    const { data } = await callOk(t, acct, '/v1/flow/taker-volume?coin=LINK&interval=1h&lookback=4h', 2)
    const buy = { binance: 55 + 10 * 2, bybit: 10 + 0.1 * 45 }
    const sell = { binance: 10 * 0.5 + 10 * 1, bybit: 10 * 2 }
    for (const e of ['binance', 'bybit'] as const) {
      const p = (venue(data, e).points as Json[])[0]!
      expect(p.ts).toBe(H)
      expect(p.buy_volume).toBeCloseTo(buy[e], 9)
      expect(p.sell_volume).toBeCloseTo(sell[e], 9)
      expect(p.ratio).toBeCloseTo(buy[e] / sell[e], 9)
    }
    expect(data.coverage.missing).toContainEqual(BYBIT_NO_SPLIT(H + HOUR))
  })
})

describe('the divergence\'s CVD legs', () => {
  it('name the minutes without a taker split in coverage', async () => {
    const { data } = await callOk(t, acct, '/v1/signals/divergence?coin=LINK', 5)
    expect(data[0].coverage.missing).toContainEqual(BYBIT_NO_SPLIT(H + HOUR))
  })
})

describe('candles carry their provenance', () => {
  it('a Bybit kline minute: null split and trade count, source venue_kline; a minute from trades is not replaced by a later kline', async () => {
    const { data } = await callOk(t, acct, '/v1/markets/ohlc?coin=LINK&exchange=bybit&interval=1m&lookback=4h', 2)
    const c = (m: number) => (data.candles as Json[]).find((x) => x.ts === at(m))!
    expect(c(5)).toMatchObject({ volume: 5, buy_volume: null, sell_volume: null, trades: null, source: 'venue_kline', no_split_minutes: 1, kline_minutes: 1 })
    const x = BYBIT_TRADES.find((r) => r.m === 25)!
    expect(c(25)).toMatchObject({ close: x.price, trades: 2, source: 'trades', no_split_minutes: 0, kline_minutes: 0 })
    expect(c(25).volume).toBeCloseTo(x.buy + x.sell, 12)
    expect(data.coverage.missing).toContainEqual(BYBIT_NO_SPLIT(at(20)))
    expect(data.coverage.missing).toContainEqual({
      exchange: 'bybit', status: 'no_trade_count',
      reason: `20 minutes from venue klines in bars without a trade count: the trade counts over them are null: ${iso(H)} to ${iso(at(20))}`,
    })
  })

  it('a composite hour of both: the split over the minutes with one, trades null, the minutes counted', async () => {
    const { data } = await callOk(t, acct, '/v1/markets/ohlc?coin=LINK&interval=1h&lookback=4h', 2)
    const c = (data.candles as Json[])[0]!
    const volume = BINANCE_TRADES.reduce((a, x) => a + x.buy + x.sell, 0) + 30 + 100 + BYBIT_TRADES.reduce((a, x) => a + x.buy + x.sell, 0)
    expect(c).toMatchObject({ ts: H, trades: null, source: 'venue_kline', no_split_minutes: 20, kline_minutes: 30, exchanges: ['binance', 'bybit'] })
    expect(c.volume).toBeCloseTo(volume, 9)
    expect(c.buy_volume).toBeCloseTo(75 + 14.5, 9)
    expect(c.sell_volume).toBeCloseTo(15 + 20, 9)
  })
})

describe('the volume profile is built from trades only', () => {
  it('its volume is the traded volume; the kline minutes are named kline_only', async () => {
    const { data } = await callOk(t, acct, '/v1/structure/volume-profile?coin=LINK&lookback=4h&bins=10', 3)
    const traded = BINANCE_TRADES.reduce((a, x) => a + x.buy + x.sell, 0) + BYBIT_TRADES.reduce((a, x) => a + x.buy + x.sell, 0)
    // volume at price is kept as float32 per level
    expect(data.total_volume).toBeCloseTo(traded, 4)
    const reason = (n: number) => `${n} minutes built from venue klines, which have no volume at price: not in the profile: ${iso(H)} to ${iso(H + HOUR)}`
    expect(data.coverage.missing).toContainEqual({ exchange: 'binance', status: 'kline_only', reason: reason(10) })
    expect(data.coverage.missing).toContainEqual({ exchange: 'bybit', status: 'kline_only', reason: reason(20) })
    expect(data.coverage.partial).toBe(true)
  })
})
