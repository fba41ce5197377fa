import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { importFile, ImportValidationError, validateFiles } from '../../../src/market/import/importer.js'
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
