// /v1/liquidations/history and /v1/liquidations/orders on the simulator's stored orders: every figure derived here
// from the liquidation_order rows themselves (SQL), never from the code under test; bad parameters → 400 naming
// the parameter, nothing charged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_NOW, seedMarket } from '../helpers/market.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { HOUR, callBad, callOk, type Json } from './markets/helpers.js'

let t: TestService
let acct: { apiKey: string; accountId: string }

interface Row {
  exchange: string
  ts: number
  id: string
  side: string
  usd: number
}

let rows: Row[] = []

beforeAll(async () => {
  t = await startTestService({ clock: () => TEST_NOW })
  await seedMarket(t, { hours: 6, coins: ['BTC', 'ETH'] })
  acct = await t.signup()
  rows = (await t.services.db.sql.query<Record<string, unknown>>(`SELECT exchange, ts, id, side, usd FROM liquidation_order WHERE coin = 'BTC'`)).map((r) => ({
    exchange: String(r['exchange']), ts: Number(r['ts']), id: String(r['id']), side: String(r['side']), usd: Number(r['usd']),
  }))
})
afterAll(() => t.close())

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b))

describe('GET /v1/liquidations/history', () => {
  it('each interval, per venue and across venues, is the sum of the stored orders in it', async () => {
    expect(rows.length).toBeGreaterThan(0)
    expect(rows.some((r) => r.exchange === 'hyperliquid')).toBe(false)
    const { data, meta } = await callOk(t, acct, '/v1/liquidations/history?coin=BTC&interval=1h&lookback=7d', 3)
    expect(meta.next).toBeNull()
    const sum = (from: number, venue: string | null, side: string) =>
      rows.filter((r) => r.ts >= from && r.ts < from + HOUR && (!venue || r.exchange === venue) && r.side === side).reduce((s, r) => s + r.usd, 0)
    for (const p of data.aggregate as Json[]) {
      expect(close(p.long_usd, sum(p.ts, null, 'long')), `long ${p.ts}`).toBe(true)
      expect(close(p.short_usd, sum(p.ts, null, 'short')), `short ${p.ts}`).toBe(true)
      expect(p.long_count).toBe(rows.filter((r) => r.ts >= p.ts && r.ts < p.ts + HOUR && r.side === 'long').length)
    }
    for (const s of data.exchanges as Json[]) for (const p of s.points) expect(close(p.long_usd + p.short_usd, sum(p.ts, s.exchange, 'long') + sum(p.ts, s.exchange, 'short'))).toBe(true)
    expect((data.exchanges as Json[]).map((s) => s.exchange)).toEqual(['binance', 'bybit', 'okx', 'dydx'])
    // the window's orders all fall in the slots shown (the first slot starts at the window's first whole hour)
    const first = data.aggregate[0].ts
    const total = rows.filter((r) => r.ts >= first && r.ts < data.end).reduce((s, r) => s + r.usd, 0)
    expect(close(data.total_long_usd + data.total_short_usd, total)).toBe(true)
    // Hyperliquid publishes no feed: said in coverage, without making the figure partial
    expect(data.coverage.missing).toContainEqual({ exchange: 'hyperliquid', status: 'not_published', reason: 'Hyperliquid publishes no public liquidation feed' })
  })

  it('one venue, paged: pages of 2 hours join into the whole series', async () => {
    const whole = (await callOk(t, acct, '/v1/liquidations/history?coin=BTC&exchange=okx&interval=1h&lookback=24h', 3)).data
    const seen: Json[] = []
    let path = '/v1/liquidations/history?coin=BTC&exchange=okx&interval=1h&lookback=24h&limit=2'
    for (;;) {
      const { data, meta } = await callOk(t, acct, path, 3)
      expect(data.aggregate.length).toBeLessThanOrEqual(2)
      seen.push(...data.aggregate)
      if (meta.next === null) break
      path = `/v1/liquidations/history?coin=BTC&exchange=okx&interval=1h&lookback=24h&limit=2&cursor=${meta.next}`
    }
    expect(seen).toEqual(whole.aggregate)
    expect(whole.exchanges.map((s: Json) => s.exchange)).toEqual(['okx'])
  })

  it('bad parameters are 400 naming the parameter; nothing charged', async () => {
    await callBad(t, acct, '/v1/liquidations/history?interval=1h', 'coin')
    await callBad(t, acct, '/v1/liquidations/history?coin=BTC&interval=2h', 'interval')
    await callBad(t, acct, '/v1/liquidations/history?coin=BTC&exchange=ftx', 'exchange')
    await callBad(t, acct, '/v1/liquidations/history?coin=BTC&lookback=24h&start_time=1700000000000', 'lookback')
    await callBad(t, acct, '/v1/liquidations/history?coin=BTC&cursor=@@', 'cursor')
  })
})

describe('GET /v1/liquidations/orders', () => {
  const newestFirst = (a: Row, b: Row) => b.ts - a.ts || (b.exchange < a.exchange ? -1 : b.exchange > a.exchange ? 1 : b.id < a.id ? -1 : b.id > a.id ? 1 : 0)

  it('filters by coin, side and min_usd, newest first, equal to the stored rows', async () => {
    const { data } = await callOk(t, acct, '/v1/liquidations/orders?coin=BTC&side=long&min_usd=5000&lookback=24h&limit=5000', 2)
    const expected = rows.filter((r) => r.side === 'long' && r.usd >= 5000 && r.ts >= TEST_NOW - 24 * HOUR && r.ts < TEST_NOW).sort(newestFirst)
    expect(data.orders.map((o: Json) => `${o.exchange}|${o.id}`)).toEqual(expected.map((r) => `${r.exchange}|${r.id}`))
    for (const o of data.orders) expect(o).toMatchObject({ coin: 'BTC', side: 'long' })
  })

  it('pages of 7 join into the whole list; an exchange filter keeps only that venue', async () => {
    const all = rows.filter((r) => r.ts >= TEST_NOW - 6 * HOUR && r.ts < TEST_NOW).sort(newestFirst)
    const seen: string[] = []
    let path = '/v1/liquidations/orders?coin=BTC&start_time=' + (TEST_NOW - 6 * HOUR) + '&limit=7'
    for (let pages = 0; pages < 1000; pages++) {
      const { data, meta } = await callOk(t, acct, path, 2)
      expect(data.orders.length).toBeLessThanOrEqual(7)
      seen.push(...data.orders.map((o: Json) => `${o.exchange}|${o.id}`))
      if (meta.next === null) break
      path = `/v1/liquidations/orders?coin=BTC&start_time=${TEST_NOW - 6 * HOUR}&limit=7&cursor=${meta.next}`
    }
    expect(seen).toEqual(all.map((r) => `${r.exchange}|${r.id}`))
    const bybit = (await callOk(t, acct, '/v1/liquidations/orders?coin=BTC&exchange=bybit&lookback=24h&limit=5000', 2)).data
    expect(new Set(bybit.orders.map((o: Json) => o.exchange))).toEqual(new Set(['bybit']))
  })

  it('bad parameters are 400 naming the parameter; nothing charged', async () => {
    await callBad(t, acct, '/v1/liquidations/orders?side=up', 'side')
    await callBad(t, acct, '/v1/liquidations/orders?min_usd=-1', 'min_usd')
    await callBad(t, acct, '/v1/liquidations/orders?min_usd=abc', 'min_usd')
    await callBad(t, acct, '/v1/liquidations/orders?coin=NOPE', 'coin')
    await callBad(t, acct, '/v1/liquidations/orders?limit=0', 'limit')
    const { meta } = await callOk(t, acct, '/v1/liquidations/orders?coin=BTC&lookback=24h&limit=3', 2)
    if (meta.next) await callBad(t, acct, `/v1/liquidations/orders?coin=ETH&lookback=24h&limit=3&cursor=${meta.next}`, 'cursor')
  })
})
