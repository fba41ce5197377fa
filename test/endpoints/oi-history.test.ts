// GET /v1/oi/history: open-interest OHLC per interval derived again from the raw market_sample rows (in TypeScript,
// not by the store's aggregate), the aggregate's venue sets, paging, refusals, a fuzz, and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_NOW, seedMarket } from '../helpers/market.js'
import { freshSchema, requirePostgresInCi } from '../helpers/postgres.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { EXCHANGES, HOUR, MINUTE, expectClose } from '../rest/markets/helpers.js'
import { allPages, callOk, commonRefusals, fuzzParams, type Account, type Json } from './series-helpers.js'

let t: TestService
let acct: Account

beforeAll(async () => {
  t = await startTestService({ clock: () => TEST_NOW })
  await seedMarket(t, { hours: 8, coins: ['BTC'] })
  acct = await t.signup()
  await t.setCredits(acct.accountId, 1_000_000)
})
afterAll(() => t.close())

interface Raw {
  exchange: string
  ts: number
  oi: number
  mark: number | null
}

async function rawSamples(svc: TestService, from: number, to: number): Promise<Raw[]> {
  const rows = await svc.services.db.sql.query<{ exchange: string; ts: string; open_interest: number; mark_price: number | null }>(
    `SELECT exchange, ts, open_interest, mark_price FROM market_sample WHERE coin = 'BTC' AND market_type = 'perp' AND ts >= $1 AND ts < $2 AND open_interest IS NOT NULL ORDER BY ts`,
    [from, to],
  )
  return rows.map((r) => ({ exchange: r.exchange, ts: Number(r.ts), oi: Number(r.open_interest), mark: r.mark_price === null ? null : Number(r.mark_price) }))
}

const ohlcOf = (xs: number[]) => ({ open: xs[0]!, high: Math.max(...xs), low: Math.min(...xs), close: xs.at(-1)! })
const bucketOf = (ts: number, size: number) => Math.floor(ts / size) * size

/** expected points per venue and aggregated, from the raw samples */
function expected(raw: Raw[], size: number) {
  const venues = new Map<string, Map<number, Raw[]>>()
  for (const r of raw) {
    const v = venues.get(r.exchange) ?? venues.set(r.exchange, new Map()).get(r.exchange)!
    const b = bucketOf(r.ts, size)
    ;(v.get(b) ?? v.set(b, []).get(b)!).push(r)
  }
  const aggregate = new Map<number, { exchanges: string[]; sums: number[]; usd: (number | null)[] }>()
  const buckets = [...new Set(raw.map((r) => bucketOf(r.ts, size)))].sort((a, b) => a - b)
  for (const b of buckets) {
    const inB = raw.filter((r) => bucketOf(r.ts, size) === b)
    const exchanges = EXCHANGES.filter((e) => inB.some((r) => r.exchange === e))
    const slots = [...new Set(inB.map((r) => r.ts))].sort((x, y) => x - y)
    const sums: number[] = []
    const usd: (number | null)[] = []
    for (const s of slots) {
      const at = inB.filter((r) => r.ts === s)
      if (at.length !== exchanges.length) continue
      sums.push(at.reduce((acc, r) => acc + r.oi, 0))
      usd.push(at.every((r) => r.mark !== null) ? at.reduce((acc, r) => acc + r.oi * r.mark!, 0) : null)
    }
    if (sums.length) aggregate.set(b, { exchanges, sums, usd })
  }
  return { venues, aggregate }
}

function expectOiMatch(data: Json, raw: Raw[], size: number) {
  const want = expected(raw, size)
  expect(data.exchanges.map((v: Json) => v.exchange)).toEqual(EXCHANGES.filter((e) => want.venues.has(e)))
  for (const v of data.exchanges) {
    const buckets = want.venues.get(v.exchange)!
    expect(v.points.map((p: Json) => p.ts)).toEqual([...buckets.keys()].sort((a, b) => a - b))
    for (const p of v.points) {
      const rows = buckets.get(p.ts)!
      const o = ohlcOf(rows.map((r) => r.oi))
      for (const k of ['open', 'high', 'low', 'close'] as const) expectClose(p[k], o[k], 1e-12, `${v.exchange} ${k} at ${p.ts}`)
      const u = ohlcOf(rows.filter((r) => r.mark !== null).map((r) => r.oi * r.mark!))
      expectClose(p.close_usd, u.close, 1e-9, `${v.exchange} close_usd at ${p.ts}`)
      expectClose(p.high_usd, u.high, 1e-9, `${v.exchange} high_usd at ${p.ts}`)
    }
  }
  if (data.aggregate === null) return
  expect(data.aggregate.map((p: Json) => p.ts)).toEqual([...want.aggregate.keys()])
  for (const p of data.aggregate) {
    const a = want.aggregate.get(p.ts)!
    expect(p.exchanges).toEqual(a.exchanges)
    const o = ohlcOf(a.sums)
    for (const k of ['open', 'high', 'low', 'close'] as const) expectClose(p[k], o[k], 1e-12, `aggregate ${k} at ${p.ts}`)
    if (a.usd.every((x) => x !== null)) expectClose(p.close_usd, a.usd.at(-1)!, 1e-9, `aggregate close_usd at ${p.ts}`)
  }
}

describe('GET /v1/oi/history', () => {
  it('at 15m over 4h: OHLC per venue and aggregated equal to the raw samples, in coins and USD', async () => {
    const { data } = await callOk(t, acct, '/v1/oi/history?coin=BTC&interval=15m&lookback=4h', 3)
    const from = Math.ceil((TEST_NOW - 4 * HOUR) / (15 * MINUTE)) * 15 * MINUTE
    expectOiMatch(data, await rawSamples(t, from, TEST_NOW), 15 * MINUTE)
    expect(data.aggregate.length).toBeGreaterThan(10)
    expect(data.coverage.exchanges).toEqual([...EXCHANGES])
    for (const p of data.aggregate) expect(Number.isInteger(p.ts) && p.ts % (15 * MINUTE) === 0).toBe(true)
  })

  it('at 1h and 1m, and for one exchange (no aggregate)', async () => {
    const h = (await callOk(t, acct, `/v1/oi/history?coin=BTC&interval=1h&start_time=${TEST_NOW - 7 * HOUR}`, 3)).data
    expectOiMatch(h, await rawSamples(t, Math.ceil((TEST_NOW - 7 * HOUR) / HOUR) * HOUR, TEST_NOW), HOUR)
    const m = (await callOk(t, acct, '/v1/oi/history?coin=BTC&interval=1m&lookback=1h&exchange=hyperliquid', 3)).data
    expect(m.aggregate).toBeNull()
    expect(m.exchanges.map((v: Json) => v.exchange)).toEqual(['hyperliquid'])
    expectOiMatch(m, (await rawSamples(t, TEST_NOW - HOUR, TEST_NOW)).filter((r) => r.exchange === 'hyperliquid'), MINUTE)
  })

  it('a venue missing from some slots: the aggregate skips those slots (no dip) and each point names its venues', async () => {
    const gapFrom = Date.UTC(2026, 2, 2, 9, 20)
    // okx loses its samples 9:20-9:45: the 9:30 interval without it entirely, the 9:15 one with it in part
    await t.services.db.sql.query(`DELETE FROM market_sample WHERE exchange = 'okx' AND coin = 'BTC' AND ts >= $1 AND ts < $2`, [gapFrom, gapFrom + 25 * MINUTE])
    t.services.market.reader.bump('samples')
    const { data } = await callOk(t, acct, '/v1/oi/history?coin=BTC&interval=15m&lookback=4h', 3)
    const okx = data.exchanges.find((v: Json) => v.exchange === 'okx')
    expect(okx.points.some((p: Json) => p.ts === Date.UTC(2026, 2, 2, 9, 30))).toBe(false)
    expect(data.aggregate.find((p: Json) => p.ts === Date.UTC(2026, 2, 2, 9, 30)).exchanges).toEqual(['binance', 'bybit', 'hyperliquid', 'dydx'])
    expect(data.aggregate.find((p: Json) => p.ts === Date.UTC(2026, 2, 2, 9, 15)).exchanges).toEqual([...EXCHANGES])
    expectOiMatch(data, await rawSamples(t, Math.ceil((TEST_NOW - 4 * HOUR) / (15 * MINUTE)) * 15 * MINUTE, TEST_NOW), 15 * MINUTE)
  })

  it('pages join up to one long page', async () => {
    const { pages } = await allPages(t, acct, '/v1/oi/history?coin=BTC&interval=5m&lookback=4h&limit=7', 3)
    expect(pages.length).toBe(Math.ceil(48 / 7))
    const whole = (await callOk(t, acct, '/v1/oi/history?coin=BTC&interval=5m&lookback=4h', 3)).data
    expect(pages.flatMap((p) => p.aggregate)).toEqual(whole.aggregate)
    expect(pages.flatMap((p) => p.exchanges.find((v: Json) => v.exchange === 'bybit')?.points ?? [])).toEqual(whole.exchanges.find((v: Json) => v.exchange === 'bybit').points)
  })

  it('refuses bad parameters naming them, charging nothing', async () => {
    await commonRefusals(t, acct, '/v1/oi/history', TEST_NOW)
  })

  it('fuzz: no parameter value gives a 5xx or a charge without a 2xx', async () => {
    await fuzzParams(t, acct, '/v1/oi/history', ['coin', 'exchange', 'interval', 'lookback', 'start_time', 'end_time', 'limit', 'cursor'], 3)
  })
})

describe('GET /v1/oi/history on PostgreSQL', () => {
  let pg: TestService | undefined
  let drop: (() => Promise<void>) | undefined
  afterAll(async () => {
    await pg?.close()
    await drop?.()
  })

  it('equals the raw samples', async (ctx) => {
    if (!(await requirePostgresInCi())) return ctx.skip()
    const schema = await freshSchema('oihistory')
    drop = schema.drop
    pg = await startTestService({ env: { DATABASE_URL: schema.url }, clock: () => TEST_NOW })
    await seedMarket(pg, { hours: 3, coins: ['BTC'] })
    const a = await pg.signup()
    const { data } = await callOk(pg, a, '/v1/oi/history?coin=BTC&interval=15m&lookback=4h', 3)
    expectOiMatch(data, await rawSamples(pg, Math.ceil((TEST_NOW - 4 * HOUR) / (15 * MINUTE)) * 15 * MINUTE, TEST_NOW), 15 * MINUTE)
    expect(data.aggregate.length).toBeGreaterThan(5)
  })
})
