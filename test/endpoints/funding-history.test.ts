// GET /v1/funding/history: the settlements are the stored funding_rate rows; the OI-weighted series and the
// cumulative figures are recomputed here from those rows and the raw market_sample rows; paging, refusals, a fuzz,
// and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_NOW, seedMarket } from '../helpers/market.js'
import { freshSchema, requirePostgresInCi } from '../helpers/postgres.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { EXCHANGES, HOUR, expectClose } from '../rest/markets/helpers.js'
import { allPages, callOk, commonRefusals, fuzzParams, type Account, type Json } from './series-helpers.js'

let t: TestService
let acct: Account

beforeAll(async () => {
  t = await startTestService({ clock: () => TEST_NOW })
  await seedMarket(t, { hours: 20, coins: ['BTC'] })
  acct = await t.signup()
  await t.setCredits(acct.accountId, 1_000_000)
})
afterAll(() => t.close())

interface Row {
  exchange: string
  ts: number
  rate: number
  h: number
}

const storedSettlements = async (svc: TestService, from: number, to: number): Promise<Row[]> =>
  (await svc.services.db.sql.query<{ exchange: string; ts: string; rate: number; interval_hours: number }>(`SELECT exchange, ts, rate, interval_hours FROM funding_rate WHERE coin = 'BTC' AND ts >= $1 AND ts < $2 ORDER BY exchange, ts`, [from, to])).map((r) => ({
    exchange: r.exchange, ts: Number(r.ts), rate: Number(r.rate), h: Number(r.interval_hours),
  }))

/** each venue's OI in USD at the end of each interval: its last sample there with OI and a mark */
async function oiUsdAtClose(svc: TestService, size: number, from: number, to: number): Promise<Map<string, number>> {
  const rows = await svc.services.db.sql.query<{ exchange: string; ts: string; open_interest: number; mark_price: number }>(
    `SELECT exchange, ts, open_interest, mark_price FROM market_sample WHERE coin = 'BTC' AND market_type = 'perp' AND ts >= $1 AND ts < $2 AND open_interest IS NOT NULL AND mark_price > 0 ORDER BY ts`,
    [from, to],
  )
  const out = new Map<string, number>()
  for (const r of rows) out.set(`${r.exchange}|${Math.floor(Number(r.ts) / size) * size}`, Number(r.open_interest) * Number(r.mark_price))
  return out
}

async function expectFundingMatch(svc: TestService, data: Json, size: number, from: number, to: number) {
  const rows = await storedSettlements(svc, from, to)
  const oi = await oiUsdAtClose(svc, size, from, to)
  expect(rows.length).toBeGreaterThan(0)
  expect(data.exchanges.map((v: Json) => v.exchange)).toEqual(EXCHANGES.filter((e) => rows.some((r) => r.exchange === e)))
  for (const v of data.exchanges) {
    const mine = rows.filter((r) => r.exchange === v.exchange)
    // the funding history rows are the stored settlements, one for one
    expect(v.settlements.map((s: Json) => [s.ts, s.rate, s.interval_hours])).toEqual(mine.map((r) => [r.ts, r.rate, r.h]))
    for (const s of v.settlements) {
      expectClose(s.rate_8h, (s.rate * 8) / s.interval_hours, 1e-12, 'rate_8h')
      expectClose(s.annualized, (s.rate * 24 * 365) / s.interval_hours, 1e-12, 'annualized')
      expect(s.kind).toBe('settled')
    }
    expectClose(v.cumulative, mine.reduce((a, r) => a + r.rate, 0), 1e-12, `${v.exchange} cumulative`)
  }
  // the weighted series: per interval, OI-weighted mean of each venue's mean 8h rate there
  const buckets = [...new Set(rows.map((r) => Math.floor(r.ts / size) * size))].sort((a, b) => a - b)
  const want: [number, number, string[]][] = []
  for (const b of buckets) {
    let w = 0
    let sum = 0
    const used: string[] = []
    for (const e of EXCHANGES) {
      const rs = rows.filter((r) => r.exchange === e && Math.floor(r.ts / size) * size === b)
      const o = oi.get(`${e}|${b}`)
      if (!rs.length || !o) continue
      w += o
      sum += (o * rs.reduce((a, r) => a + (r.rate * 8) / r.h, 0)) / rs.length
      used.push(e)
    }
    if (w > 0) want.push([b, sum / w, used])
  }
  expect(data.weighted.map((p: Json) => [p.ts, p.exchanges])).toEqual(want.map(([b, , u]) => [b, u]))
  data.weighted.forEach((p: Json, i: number) => {
    expectClose(p.rate_8h, want[i]![1], 1e-9, `weighted at ${p.ts}`)
    expectClose(p.annualized, want[i]![1] * 3 * 365, 1e-9, `weighted annualized at ${p.ts}`)
  })
  // cumulative: venues' Σ rate weighted by their mean OI in USD over the intervals
  let w = 0
  let sum = 0
  for (const v of data.exchanges) {
    const ois: number[] = []
    for (let b = from; b < to; b += size) if (oi.has(`${v.exchange}|${b}`)) ois.push(oi.get(`${v.exchange}|${b}`)!)
    const mean = ois.reduce((a, x) => a + x, 0) / ois.length
    w += mean
    sum += mean * v.cumulative
  }
  expectClose(data.cumulative.rate, sum / w, 1e-9, 'cumulative')
}

describe('GET /v1/funding/history', () => {
  it('over 24h at 1h: the settlements are the stored rows; the weighted series and cumulative figures match', async () => {
    const { data } = await callOk(t, acct, '/v1/funding/history?coin=BTC&lookback=24h', 3)
    const from = Math.ceil((TEST_NOW - 24 * HOUR) / HOUR) * HOUR
    await expectFundingMatch(t, data, HOUR, from, TEST_NOW)
    // hourly venues settle every hour, the 8-hour ones at 00, 08 and 16 UTC
    expect(data.exchanges.find((v: Json) => v.exchange === 'hyperliquid').settlements.length).toBeGreaterThanOrEqual(19)
    expect(data.cumulative.exchanges).toEqual([...EXCHANGES])
  })

  it('at 4h, and for one exchange at 15m', async () => {
    const start = TEST_NOW - 19 * HOUR
    await expectFundingMatch(t, (await callOk(t, acct, `/v1/funding/history?coin=BTC&interval=4h&start_time=${start}`, 3)).data, 4 * HOUR, Math.ceil(start / (4 * HOUR)) * 4 * HOUR, TEST_NOW)
    const one = (await callOk(t, acct, '/v1/funding/history?coin=BTC&interval=15m&lookback=24h&exchange=binance', 3)).data
    expect(one.exchanges.map((v: Json) => v.exchange)).toEqual(['binance'])
    for (const p of one.weighted) expect(p.exchanges).toEqual(['binance'])
  })

  it('pages: settlements and weighted points split by interval slots, cumulative over the whole window on every page', async () => {
    const { pages } = await allPages(t, acct, '/v1/funding/history?coin=BTC&lookback=24h&limit=5', 3)
    expect(pages.length).toBe(Math.ceil(24 / 5))
    const whole = (await callOk(t, acct, '/v1/funding/history?coin=BTC&lookback=24h', 3)).data
    expect(pages.flatMap((p) => p.weighted)).toEqual(whole.weighted)
    for (const e of EXCHANGES) expect(pages.flatMap((p) => p.exchanges.find((v: Json) => v.exchange === e)?.settlements ?? [])).toEqual(whole.exchanges.find((v: Json) => v.exchange === e).settlements)
    for (const p of pages) expect(p.cumulative).toEqual(whole.cumulative)
  })

  it('refuses bad parameters naming them, charging nothing', async () => {
    await commonRefusals(t, acct, '/v1/funding/history', TEST_NOW)
  })

  it('fuzz: no parameter value gives a 5xx or a charge without a 2xx', async () => {
    await fuzzParams(t, acct, '/v1/funding/history', ['coin', 'exchange', 'interval', 'lookback', 'start_time', 'end_time', 'limit', 'cursor'], 3)
  })
})

describe('GET /v1/funding/history on PostgreSQL', () => {
  let pg: TestService | undefined
  let drop: (() => Promise<void>) | undefined
  afterAll(async () => {
    await pg?.close()
    await drop?.()
  })

  it('the settlements are the stored rows', async (ctx) => {
    if (!(await requirePostgresInCi())) return ctx.skip()
    const schema = await freshSchema('fundinghistory')
    drop = schema.drop
    pg = await startTestService({ env: { DATABASE_URL: schema.url }, clock: () => TEST_NOW })
    await seedMarket(pg, { hours: 4, coins: ['BTC'] })
    const a = await pg.signup()
    const { data } = await callOk(pg, a, '/v1/funding/history?coin=BTC&lookback=4h', 3)
    await expectFundingMatch(pg, data, HOUR, Math.ceil((TEST_NOW - 4 * HOUR) / HOUR) * HOUR, TEST_NOW)
  })
})
