// The five liquidation and positioning endpoints on PostgreSQL: the same derivations as the embedded-store tests
// (test/rest/liquidations, liquidation-heatmap, positioning, signal-backtest), against the server's own rows.
// Skips where no server answers; REQUIRE_POSTGRES=1 (CI) makes that a failure.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_NOW, seedMarket } from '../helpers/market.js'
import { freshSchema, requirePostgresInCi } from '../helpers/postgres.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { HOUR, callOk, type Json } from './markets/helpers.js'

let t: TestService | undefined
let drop: (() => Promise<void>) | undefined
let acct: { apiKey: string; accountId: string }
let up = false
let orders: { exchange: string; ts: number; id: string; side: string; usd: number }[] = []

beforeAll(async () => {
  up = await requirePostgresInCi()
  if (!up) return
  const schema = await freshSchema('liquidations')
  drop = schema.drop
  t = await startTestService({ clock: () => TEST_NOW, env: { DATABASE_URL: schema.url } })
  await seedMarket(t, { hours: 6, coins: ['BTC'] })
  acct = await t.signup()
  orders = (await t.services.db.sql.query<Record<string, unknown>>(`SELECT exchange, ts, id, side, usd FROM liquidation_order WHERE coin = 'BTC'`)).map((r) => ({
    exchange: String(r['exchange']), ts: Number(r['ts']), id: String(r['id']), side: String(r['side']), usd: Number(r['usd']),
  }))
}, 180_000)
afterAll(async () => {
  await t?.close()
  await drop?.()
})

const close = (a: number, b: number) => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(b))
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0)

describe('liquidations and positioning on PostgreSQL', () => {
  it('history: each hour, per side, is the sum of the stored orders in it', async (ctx) => {
    if (!up) return ctx.skip()
    expect(orders.length).toBeGreaterThan(0)
    const { data } = await callOk(t!, acct, '/v1/liquidations/history?coin=BTC&interval=1h&lookback=24h', 3)
    const inHour = (ts: number, side: string) => orders.filter((r) => r.ts >= ts && r.ts < ts + HOUR && r.side === side).map((r) => r.usd)
    expect((data.aggregate as Json[]).length).toBeGreaterThan(0)
    for (const p of data.aggregate as Json[]) {
      expect(close(p.long_usd, sum(inHour(p.ts, 'long'))), `long ${p.ts}`).toBe(true)
      expect(close(p.short_usd, sum(inHour(p.ts, 'short'))), `short ${p.ts}`).toBe(true)
    }
  })

  it('orders: newest first, equal to the stored rows', async (ctx) => {
    if (!up) return ctx.skip()
    const { data } = await callOk(t!, acct, '/v1/liquidations/orders?coin=BTC&lookback=24h&limit=5000', 2)
    const expected = orders.filter((r) => r.ts >= TEST_NOW - 24 * HOUR && r.ts < TEST_NOW).sort((a, b) => b.ts - a.ts || b.exchange.localeCompare(a.exchange) || b.id.localeCompare(a.id))
    expect(new Set(data.orders.map((o: Json) => `${o.exchange}|${o.id}`))).toEqual(new Set(expected.map((r) => `${r.exchange}|${r.id}`)))
    const ts = data.orders.map((o: Json) => o.ts as number)
    expect(ts).toEqual([...ts].sort((a, b) => b - a))
  })

  it('heatmap: observed USD per bucket and each venue calibration from the stored orders', async (ctx) => {
    if (!up) return ctx.skip()
    const { data } = await callOk(t!, acct, '/v1/liquidations/heatmap?coin=BTC&interval=1h&lookback=4h&bins=20', 10)
    expect(data.buckets).toHaveLength(4)
    const inWindow = orders.filter((r) => r.ts >= data.buckets[0].ts && r.ts < data.end)
    for (const b of data.buckets as Json[]) expect(close(b.observed_usd, sum(inWindow.filter((r) => r.ts >= b.ts && r.ts < b.ts + HOUR).map((r) => r.usd))), `observed ${b.ts}`).toBe(true)
    for (const v of data.exchanges as Json[]) expect(v.calibration.orders, v.exchange).toBe(inWindow.filter((r) => r.exchange === v.exchange).length)
  })

  it("positioning: each venue's latest ratio is its last stored sample", async (ctx) => {
    if (!up) return ctx.skip()
    const rows = await t!.services.db.sql.query<Record<string, unknown>>(`SELECT exchange, kind, ts, long_share, short_share, ratio FROM positioning_sample WHERE coin = 'BTC' AND ts < $1 ORDER BY ts`, [TEST_NOW])
    const { data } = await callOk(t!, acct, '/v1/positioning/long-short?coin=BTC&interval=1h&lookback=4h', 3)
    for (const venue of ['binance', 'bybit', 'okx']) {
      const mine = rows.filter((r) => r['exchange'] === venue && r['kind'] === 'account')
      const last = mine[mine.length - 1]!
      const v = (data.exchanges as Json[]).find((x) => x.exchange === venue)
      expect(v!.account.latest).toMatchObject({ ts: Number(last['ts']), long_share: Number(last['long_share']), short_share: Number(last['short_share']), ratio: Number(last['ratio']) })
    }
  })

  it('backtest: every signal listed, the same table twice', async (ctx) => {
    if (!up) return ctx.skip()
    const a = (await callOk(t!, acct, '/v1/signals/backtest?coin=BTC&lookback=7d', 10)).data
    const b = (await callOk(t!, acct, '/v1/signals/backtest?coin=BTC&lookback=7d', 10)).data
    expect(b).toEqual(a)
    expect((a.signals as Json[]).map((s) => s.signal)).toContain('funding_extreme')
    expect(a.to).toBe(Math.floor(TEST_NOW / HOUR) * HOUR)
  })
})
