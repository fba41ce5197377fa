import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { importFile, ImportValidationError, validateFiles } from '../../../src/sources/import/importer.js'
import { startTestService, type TestService } from '../../helpers/service.js'

// Binance kline conventions, written out plainly: bucket by trade time, the minute's open time is
// floor(ts / 60000) * 60000 (a trade at hh:mm:00.000 opens the later minute), open = first trade,
// close = last, volume and taker-buy volume summed (is_buyer_maker=false means the taker bought).
function binanceKlines(rows: { ts: number; price: number; qty: number; buyerMaker: boolean }[]) {
  const out = new Map<number, { open: number; high: number; low: number; close: number; volume: number; takerBuy: number; n: number }>()
  for (const r of rows) {
    const m = r.ts - (r.ts % 60_000)
    const k = out.get(m)
    if (!k) out.set(m, { open: r.price, high: r.price, low: r.price, close: r.price, volume: r.qty, takerBuy: r.buyerMaker ? 0 : r.qty, n: 1 })
    else {
      k.high = Math.max(k.high, r.price)
      k.low = Math.min(k.low, r.price)
      k.close = r.price
      k.volume += r.qty
      if (!r.buyerMaker) k.takerBuy += r.qty
      k.n++
    }
  }
  return out
}

describe('npm run import: historical trades through the aggregation path', () => {
  let t: TestService
  let key: string
  let dir: string
  const T0 = Date.UTC(2024, 0, 1, 0, 0, 0)
  const rows: { ts: number; price: number; qty: number; buyerMaker: boolean }[] = []
  beforeAll(async () => {
    t = await startTestService()
    key = (await t.signup()).apiKey
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'import-'))
    // 30 minutes of WIFUSDT aggTrades, including trades exactly on minute boundaries
    let price = 2.5
    let seed = 11
    const rnd = () => ((seed = (seed * 16807) % 2147483647) / 2147483647)
    for (let i = 0; i < 900; i++) {
      const ts = i % 30 === 0 ? T0 + (i / 30) * 60_000 : T0 + Math.floor(i * 2000 + rnd() * 1999)
      price = Math.round((price * (1 + (rnd() - 0.5) * 0.002)) * 10_000) / 10_000
      rows.push({ ts, price, qty: Math.round(rnd() * 5000) / 10, buyerMaker: rnd() < 0.5 })
    }
    rows.sort((a, b) => a.ts - b.ts)
    const csv = ['agg_trade_id,price,quantity,first_trade_id,last_trade_id,transact_time,is_buyer_maker', ...rows.map((r, i) => `${1000 + i},${r.price},${r.qty},${5000 + 2 * i},${5001 + 2 * i},${r.ts},${r.buyerMaker}`)]
    await fs.mkdir(path.join(dir, 'futures', 'um'), { recursive: true })
    await fs.writeFile(path.join(dir, 'futures', 'um', 'WIFUSDT-aggTrades-2024-01-01.csv'), csv.join('\n') + '\n')
  })
  afterAll(async () => {
    await t.close()
    await fs.rm(dir, { recursive: true, force: true })
  })

  const file = () => path.join(dir, 'futures', 'um', 'WIFUSDT-aggTrades-2024-01-01.csv')

  it('a malformed row anywhere stops the whole import with its file and line number, writing nothing', async () => {
    const bad = path.join(dir, 'futures', 'um', 'WIFUSDT-aggTrades-2024-01-02.csv')
    await fs.writeFile(bad, 'agg_trade_id,price,quantity,first_trade_id,last_trade_id,transact_time,is_buyer_maker\n1,2.5,10,1,1,1704153600000,true\n2,abc,10,2,2,1704153601000,false\n')
    const err = await validateFiles([file(), bad], {}).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ImportValidationError)
    expect((err as Error).message).toMatch(/WIFUSDT-aggTrades-2024-01-02\.csv:3: /)
    expect((err as Error).message).toMatch(/Nothing was imported/)
    const [n] = await t.services.db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM candle_1m WHERE coin = 'WIF'`)
    expect(n!.n).toBe(0)
  })

  it('reproduces the exchange\'s own 1-minute klines through /v1/markets/ohlc, and the coin becomes queryable', async () => {
    await validateFiles([file()], {})
    const r = await importFile(t.services.db, t.services.market, file(), {})
    expect(r.markets).toEqual(['binance:WIF:perp'])
    expect(r.trades).toBe(900)
    expect(t.services.market.coins()).toContain('WIF')
    const expected = binanceKlines(rows)
    const res = await t.get(`/v1/markets/ohlc?coin=wif&exchange=binance&interval=1m&lookback=1h&end=${T0 + 30 * 60_000}`, key)
    expect(res.status).toBe(200)
    const { data } = (await res.json()) as { data: { candles: { ts: number; open: number; high: number; low: number; close: number; volume: number; buy_volume: number; trades: number }[] } }
    expect(data.candles.map((c) => c.ts)).toEqual([...expected.keys()])
    for (const c of data.candles) {
      const k = expected.get(c.ts)!
      expect([c.open, c.high, c.low, c.close, c.trades]).toEqual([k.open, k.high, k.low, k.close, k.n])
      expect(c.volume).toBeCloseTo(k.volume, 9)
      expect(c.buy_volume).toBeCloseTo(k.takerBuy, 9)
    }
  })

  it('a re-import leaves the same minutes (idempotent, nothing double-counted)', async () => {
    const before = await t.services.db.sql.query('SELECT ts, volume, trades FROM candle_1m WHERE coin = $1 ORDER BY ts', ['WIF'])
    await importFile(t.services.db, t.services.market, file(), {})
    const after = await t.services.db.sql.query('SELECT ts, volume, trades FROM candle_1m WHERE coin = $1 ORDER BY ts', ['WIF'])
    expect(after).toEqual(before)
    const [hour] = await t.services.db.sql.query<{ volume: number }>('SELECT volume FROM candle_1h WHERE coin = $1', ['WIF'])
    expect(hour!.volume).toBeCloseTo(rows.reduce((s, r) => s + r.qty, 0), 6)
  })
})

describe('npm run import: a Binance 1-minute kline dump, stored as the venue\'s klines', () => {
  let t: TestService
  let dir: string
  const T0 = Date.UTC(2024, 2, 1)
  // klines of minutes 0..39: open_time, o, h, l, c, volume, close_time, quote_volume, count, taker_buy_volume, taker_buy_quote, ignore
  const klines = Array.from({ length: 40 }, (_, m) => ({ ts: T0 + m * 60_000, price: 3 + m / 100, volume: 10 + m, quote: (10 + m) * (3 + m / 100), count: 5 + m, takerBuy: 4 + m / 2 }))
  const klineCsv = ['open_time,open,high,low,close,volume,close_time,quote_volume,count,taker_buy_volume,taker_buy_quote_volume,ignore',
    ...klines.map((k) => `${k.ts},${k.price},${k.price + 0.01},${k.price - 0.01},${k.price},${k.volume},${k.ts + 59_999},${k.quote},${k.count},${k.takerBuy},${k.takerBuy * k.price},0`)].join('\n') + '\n'
  // trades of minutes 0..29: one taker buy of 2 and one taker sell of 1 each
  const tradeCsv = ['agg_trade_id,price,quantity,first_trade_id,last_trade_id,transact_time,is_buyer_maker',
    ...Array.from({ length: 30 }, (_, m) => [`${2 * m},3.5,2,${2 * m},${2 * m},${T0 + m * 60_000 + 1000},false`, `${2 * m + 1},3.6,1,${2 * m + 1},${2 * m + 1},${T0 + m * 60_000 + 2000},true`]).flat()].join('\n') + '\n'
  const klineFile = () => path.join(dir, 'futures', 'um', 'WIFUSDT-1m-2024-03-01.csv')
  const tradeFile = () => path.join(dir, 'futures', 'um', 'WIFUSDT-aggTrades-2024-03-01.csv')
  const stored = () => t.services.db.sql.query<{ ts: string; volume: number; buy_volume: number | null; sell_volume: number | null; quote_volume: number | null; trades: number | null; source: string }>(
    'SELECT ts, volume, buy_volume, sell_volume, quote_volume, trades, source FROM candle_1m WHERE coin = $1 ORDER BY ts', ['WIF'])

  beforeAll(async () => {
    t = await startTestService()
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'import-klines-'))
    await fs.mkdir(path.join(dir, 'futures', 'um'), { recursive: true })
    await fs.writeFile(klineFile(), klineCsv)
    await fs.writeFile(tradeFile(), tradeCsv)
    await fs.writeFile(path.join(dir, 'futures', 'um', 'WIFUSDT-5m-2024-03-01.csv'), klineCsv)
  })
  afterAll(async () => {
    await t.close()
    await fs.rm(dir, { recursive: true, force: true })
  })

  it('only 1-minute klines: a 5m dump is refused, naming the file', async () => {
    const err = await validateFiles([path.join(dir, 'futures', 'um', 'WIFUSDT-5m-2024-03-01.csv')], {}).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ImportValidationError)
    expect((err as Error).message).toMatch(/WIFUSDT-5m-2024-03-01\.csv:0: only 1-minute klines are imported; the file name says 5m/)
  })

  it('each kline is a venue_kline minute with its taker split (sell = volume − taker buy), quote volume and count', async () => {
    const [v] = await validateFiles([klineFile()], {})
    expect([v!.rows, v!.markets]).toEqual([40, ['binance:WIF:perp']])
    const r = await importFile(t.services.db, t.services.market, klineFile(), {})
    expect([r.trades, r.klines, r.bars]).toEqual([0, 40, 40])
    const rows = await stored()
    expect(rows.map((x) => Number(x.ts))).toEqual(klines.map((k) => k.ts))
    rows.forEach((x, i) => {
      const k = klines[i]!
      expect([x.volume, x.buy_volume, x.quote_volume, x.trades, x.source]).toEqual([k.volume, k.takerBuy, k.quote, k.count, 'venue_kline'])
      expect(x.sell_volume).toBeCloseTo(k.volume - k.takerBuy, 12)
    })
  })

  it('trades of the same minutes replace the klines; the klines imported again do not replace those minutes', async () => {
    await importFile(t.services.db, t.services.market, tradeFile(), {})
    const r = await importFile(t.services.db, t.services.market, klineFile(), {})
    // only minutes 30..39 are still klines: those are stored again, the 30 minutes from trades are kept
    expect([r.klines, r.bars]).toEqual([40, 10])
    const rows = await stored()
    expect(rows.map((x) => x.source)).toEqual([...Array(30).fill('trades'), ...Array(10).fill('venue_kline')])
    for (const x of rows.slice(0, 30)) expect([x.volume, x.buy_volume, x.sell_volume, x.trades]).toEqual([3, 2, 1, 2])
    // the hour: every minute has a split and a trade count (Binance's klines give both); 10 minutes from klines
    const [hour] = await t.services.db.sql.query<{ buy_volume: number; trades: number; source: string; kline_minutes: number; no_split_minutes: number }>(
      'SELECT buy_volume, trades, source, kline_minutes, no_split_minutes FROM candle_1h WHERE coin = $1', ['WIF'])
    const klineBuy = klines.slice(30).reduce((a, k) => a + k.takerBuy, 0)
    expect(hour!.buy_volume).toBeCloseTo(30 * 2 + klineBuy, 9)
    expect([hour!.trades, hour!.source, hour!.kline_minutes, hour!.no_split_minutes]).toEqual([30 * 2 + klines.slice(30).reduce((a, k) => a + k.count, 0), 'venue_kline', 10, 0])
  })
})
