// GET /v1/structure/basis: premium and basis derived again from the raw market_sample rows and the stored 1-minute
// candles, spot only where a venue has one, paging, refusals, a fuzz, and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_NOW, seedMarket } from '../helpers/market.js'
import { freshSchema, requirePostgresInCi } from '../helpers/postgres.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { CEX, EXCHANGES, HOUR, MINUTE, expectClose } from '../rest/markets/helpers.js'
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

const bucket = (ts: number, size: number) => Math.floor(ts / size) * size
/**
 * times a year each venue's funding pays a constant premium (docs/methodology.md#basis): Binance, Bybit and OKX once per
 * settlement (8 760 / h); Hyperliquid and dYdX pay one eighth of an 8-hour rate each hour (8 760 / 8)
 */
const periodsPerYear = (exchange: string, h: number) => (exchange === 'hyperliquid' || exchange === 'dydx' ? 8760 / 8 : 8760 / h)

async function expectBasisMatch(svc: TestService, data: Json, size: number, from: number, to: number) {
  const samples = await svc.services.db.sql.query<{ exchange: string; ts: string; mark_price: number; index_price: number; funding_interval_hours: number | null }>(
    `SELECT exchange, ts, mark_price, index_price, funding_interval_hours FROM market_sample WHERE coin = 'BTC' AND market_type = 'perp' AND ts >= $1 AND ts < $2 AND mark_price > 0 AND index_price > 0 ORDER BY ts`,
    [from, to],
  )
  const last = new Map<string, { mark: number; index: number; h: number | null }>()
  // dYdX's stored mark is its oracle price (it publishes no other): it has no premium
  for (const s of samples) if (s.exchange !== 'dydx') last.set(`${s.exchange}|${bucket(Number(s.ts), size)}`, { mark: Number(s.mark_price), index: Number(s.index_price), h: s.funding_interval_hours })
  const closes = async (mt: string) => {
    const rows = await svc.services.db.sql.query<{ exchange: string; ts: string; close: number }>(`SELECT exchange, ts, close FROM candle_1m WHERE coin = 'BTC' AND market_type = $1 AND ts >= $2 AND ts < $3 ORDER BY ts`, [mt, from, to])
    const out = new Map<string, number>()
    for (const r of rows) out.set(`${r.exchange}|${bucket(Number(r.ts), size)}`, Number(r.close))
    return out
  }
  const perp = await closes('perp')
  const spot = await closes('spot')
  let premiums = 0
  let bases = 0
  for (const v of data.exchanges) {
    expect(v.has_spot).toBe((CEX as readonly string[]).includes(v.exchange))
    for (const p of v.points) {
      const k = `${v.exchange}|${p.ts}`
      const s = last.get(k)
      if (s) {
        premiums++
        expectClose(p.premium_bps, (s.mark / s.index - 1) * 1e4, 1e-9, `${k} premium`)
        if (s.h) expectClose(p.premium_annualized_pct, (s.mark / s.index - 1) * periodsPerYear(v.exchange, s.h) * 100, 1e-9, `${k} premium annualized`)
      } else expect(p.premium_bps).toBeNull()
      expectClose(p.perp_price, perp.get(k)!, 1e-12, `${k} perp close`)
      if (spot.has(k)) {
        bases++
        expectClose(p.basis_bps, (perp.get(k)! / spot.get(k)! - 1) * 1e4, 1e-9, `${k} basis`)
      } else expect(p.basis_bps).toBeNull()
    }
  }
  expect(premiums).toBe(last.size)
  expect(bases).toBe([...spot.keys()].filter((k) => perp.has(k)).length)
}

describe('GET /v1/structure/basis', () => {
  it('at 15m over 4h: premium to index from the samples, basis to spot from the candle closes; spot only on the CEXs', async () => {
    const { data } = await callOk(t, acct, '/v1/structure/basis?coin=BTC&interval=15m&lookback=4h', 3)
    await expectBasisMatch(t, data, 15 * MINUTE, Math.ceil((TEST_NOW - 4 * HOUR) / (15 * MINUTE)) * 15 * MINUTE, TEST_NOW)
    // dYdX: no premium (no mark apart from its oracle) and no spot market, so no point at all
    expect(data.exchanges.map((v: Json) => v.exchange)).toEqual(EXCHANGES.filter((e) => e !== 'dydx'))
    for (const v of data.exchanges.filter((x: Json) => !x.has_spot)) for (const p of v.points) expect(p.basis_bps).toBeNull()
    expect(data.spot_coverage.exchanges).toEqual([...CEX])
    expect(data.spot_coverage.missing.map((m: Json) => [m.exchange, m.status])).toEqual([['hyperliquid', 'not_listed'], ['dydx', 'not_listed']])
    expect(data.coverage.exchanges).toEqual(EXCHANGES.filter((e) => e !== 'dydx'))
    expect(data.coverage.missing).toEqual([{ exchange: 'dydx', status: 'not_published', reason: expect.stringContaining('no mark price apart from its oracle') }])
    expect(data.missing).toEqual([{ exchange: 'dydx', reason: expect.stringContaining('no mark price apart from its oracle') }])
  })

  it('at 1h (hourly rollups) and for one exchange', async () => {
    const start = TEST_NOW - 7 * HOUR
    await expectBasisMatch(t, (await callOk(t, acct, `/v1/structure/basis?coin=BTC&start_time=${start}`, 3)).data, HOUR, Math.ceil(start / HOUR) * HOUR, TEST_NOW)
    const one = (await callOk(t, acct, '/v1/structure/basis?coin=BTC&exchange=hyperliquid&interval=5m&lookback=1h', 3)).data
    expect(one.exchanges.map((v: Json) => v.exchange)).toEqual(['hyperliquid'])
    expect(one.spot_coverage.missing).toEqual([{ exchange: 'hyperliquid', status: 'not_listed', reason: expect.stringMatching(/no spot market/) }])
    const dydx = (await callOk(t, acct, '/v1/structure/basis?coin=BTC&exchange=dydx&interval=5m&lookback=1h', 3)).data
    expect(dydx.exchanges).toEqual([])
    expect(dydx.coverage).toMatchObject({ exchanges: [], missing: [{ exchange: 'dydx', status: 'not_published', reason: expect.any(String) }] })
  })

  it('pages join up to one long page', async () => {
    const { pages } = await allPages(t, acct, '/v1/structure/basis?coin=BTC&interval=5m&lookback=4h&limit=9', 3)
    expect(pages.length).toBe(Math.ceil(48 / 9))
    const whole = (await callOk(t, acct, '/v1/structure/basis?coin=BTC&interval=5m&lookback=4h', 3)).data
    for (const e of EXCHANGES.filter((x) => x !== 'dydx')) expect(pages.flatMap((p) => p.exchanges.find((v: Json) => v.exchange === e)?.points ?? [])).toEqual(whole.exchanges.find((v: Json) => v.exchange === e).points)
  })

  it('refuses bad parameters naming them, charging nothing', async () => {
    await commonRefusals(t, acct, '/v1/structure/basis', TEST_NOW)
  })

  it('fuzz: no parameter value gives a 5xx or a charge without a 2xx', async () => {
    await fuzzParams(t, acct, '/v1/structure/basis', ['coin', 'exchange', 'interval', 'lookback', 'start_time', 'end_time', 'limit', 'cursor'], 3)
  })
})

describe('GET /v1/structure/basis on PostgreSQL', () => {
  let pg: TestService | undefined
  let drop: (() => Promise<void>) | undefined
  afterAll(async () => {
    await pg?.close()
    await drop?.()
  })

  it('equals the raw samples and candles', async (ctx) => {
    if (!(await requirePostgresInCi())) return ctx.skip()
    const schema = await freshSchema('basis')
    drop = schema.drop
    pg = await startTestService({ env: { DATABASE_URL: schema.url }, clock: () => TEST_NOW })
    await seedMarket(pg, { hours: 3, coins: ['BTC'] })
    const a = await pg.signup()
    const { data } = await callOk(pg, a, '/v1/structure/basis?coin=BTC&interval=15m&lookback=4h', 3)
    await expectBasisMatch(pg, data, 15 * MINUTE, Math.ceil((TEST_NOW - 4 * HOUR) / (15 * MINUTE)) * 15 * MINUTE, TEST_NOW)
  })
})
