// GET /v1/flow/cvd and /v1/flow/taker-volume: every figure derived again from the stored 1-minute candles by SQL
// (docs/methodology.md#flow-series), paging, refused parameters, a parameter fuzz, and a run on PostgreSQL.
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

interface Cell {
  exchange: string
  bucket: number
  buy: number
  sell: number
}

/** Σ taker buy and sell of the stored minutes per venue and interval in [from, to) */
async function storedFlow(svc: TestService, marketType: string, intervalMs: number, from: number, to: number): Promise<Cell[]> {
  const rows = await svc.services.db.sql.query<{ exchange: string; bucket: string; buy: number; sell: number }>(
    `SELECT exchange, ts - ts % $4 AS bucket, SUM(buy_volume) AS buy, SUM(sell_volume) AS sell FROM candle_1m
     WHERE coin = 'BTC' AND market_type = $1 AND ts >= $2 AND ts < $3 GROUP BY exchange, bucket ORDER BY exchange, bucket`,
    [marketType, from, to, intervalMs],
  )
  return rows.map((r) => ({ exchange: r.exchange, bucket: Number(r.bucket), buy: Number(r.buy), sell: Number(r.sell) }))
}

const firstSlot = (start: number, size: number) => Math.ceil(start / size) * size

/** the answer's points against the stored minutes: per venue, and the aggregate over the venues of each interval */
function expectFlowsMatch(leg: Json, cells: Cell[], withCvd: boolean): void {
  const venues = [...new Set(cells.map((c) => c.exchange))]
  expect(leg.exchanges.map((v: Json) => v.exchange).sort()).toEqual(venues.sort())
  for (const v of leg.exchanges) {
    const mine = cells.filter((c) => c.exchange === v.exchange)
    expect(v.points.map((p: Json) => p.ts)).toEqual(mine.map((c) => c.bucket))
    let cvd = 0
    v.points.forEach((p: Json, i: number) => {
      const c = mine[i]!
      expectClose(p.buy_volume, c.buy, 1e-9, `${v.exchange} buy at ${p.ts}`)
      expectClose(p.sell_volume, c.sell, 1e-9, `${v.exchange} sell at ${p.ts}`)
      if (withCvd) {
        cvd += c.buy - c.sell
        expectClose(p.cvd, cvd, 1e-9, `${v.exchange} cvd at ${p.ts}`)
      } else if (c.sell > 0) expectClose(p.ratio, c.buy / c.sell, 1e-9, `${v.exchange} ratio at ${p.ts}`)
    })
  }
  const buckets = [...new Set(cells.map((c) => c.bucket))].sort((a, b) => a - b)
  expect(leg.aggregate.map((p: Json) => p.ts)).toEqual(buckets)
  let cvd = 0
  leg.aggregate.forEach((p: Json, i: number) => {
    const here = cells.filter((c) => c.bucket === buckets[i])
    const buy = here.reduce((s, c) => s + c.buy, 0)
    const sell = here.reduce((s, c) => s + c.sell, 0)
    expect(p.exchanges).toEqual(EXCHANGES.filter((e) => here.some((c) => c.exchange === e)))
    expectClose(p.buy_volume, buy, 1e-9, `aggregate buy at ${p.ts}`)
    if (withCvd) {
      cvd += buy - sell
      expectClose(p.cvd, cvd, 1e-9, `aggregate cvd at ${p.ts}`)
    } else expectClose(p.ratio, buy / sell, 1e-9, `aggregate ratio at ${p.ts}`)
  })
}

describe('GET /v1/flow/cvd', () => {
  it('at 1m over 4h: per venue and aggregated, perp and spot, equal to the stored minutes; CVD at the end = Σ(buy − sell)', async () => {
    const { data } = await callOk(t, acct, '/v1/flow/cvd?coin=BTC&interval=1m&lookback=4h&limit=5000', 3)
    const from = firstSlot(TEST_NOW - 4 * HOUR, MINUTE)
    expect(data.start).toBe(TEST_NOW - 4 * HOUR)
    expect(data.end).toBe(TEST_NOW)
    for (const mt of ['perp', 'spot']) {
      const cells = await storedFlow(t, mt, MINUTE, from, TEST_NOW)
      expectFlowsMatch(data[mt], cells, true)
      const total = cells.reduce((s, c) => s + c.buy - c.sell, 0)
      expectClose(data[mt].aggregate.at(-1).cvd, total, 1e-9, `${mt} CVD at the end`)
    }
    // spot: only the CEXs list it; the DEXs say so in the coverage
    expect(data.spot.coverage.exchanges).toEqual([...CEX])
    expect(data.spot.coverage.missing.map((m: Json) => [m.exchange, m.status])).toEqual([['hyperliquid', 'not_listed'], ['dydx', 'not_listed']])
    expect(data.spot.coverage.partial).toBe(false)
    expect(data.perp.coverage.exchanges).toEqual([...EXCHANGES])
  })

  it('at 1h (hourly rollups and edge minutes) equals the stored minutes summed per hour', async () => {
    const start = TEST_NOW - 6 * HOUR - 17 * MINUTE
    const { data } = await callOk(t, acct, `/v1/flow/cvd?coin=BTC&interval=1h&start_time=${start}&end_time=${TEST_NOW}`, 3)
    for (const mt of ['perp', 'spot']) expectFlowsMatch(data[mt], await storedFlow(t, mt, HOUR, firstSlot(start, HOUR), TEST_NOW), true)
    for (const p of data.perp.aggregate) expect(p.ts % HOUR).toBe(0)
  })

  it('one exchange: its series only, no aggregate; a venue without spot has an empty spot leg marked not_listed', async () => {
    const { data } = await callOk(t, acct, '/v1/flow/cvd?coin=BTC&exchange=dydx&interval=5m&lookback=4h', 3)
    expect(data.exchange).toBe('dydx')
    expect(data.perp.aggregate).toBeNull()
    expect(data.perp.exchanges.map((v: Json) => v.exchange)).toEqual(['dydx'])
    expect(data.spot.exchanges).toEqual([])
    expect(data.spot.coverage.missing).toEqual([{ exchange: 'dydx', status: 'not_listed', reason: expect.stringMatching(/no spot market/) }])
  })

  it('pages join up: limit 50 at 1m over 4h, the CVD running on across pages, equal to one long page', async () => {
    let clock = 0
    const { pages } = await allPages(t, acct, '/v1/flow/cvd?coin=BTC&interval=1m&lookback=4h&limit=50', 3, () => clock++)
    expect(pages.length).toBe(Math.ceil(240 / 50))
    const joined = pages.flatMap((p) => p.perp.aggregate)
    for (const p of pages) expect(p.perp.aggregate.length).toBeLessThanOrEqual(50)
    const whole = (await callOk(t, acct, '/v1/flow/cvd?coin=BTC&interval=1m&lookback=4h&limit=5000', 3)).data
    expect(joined).toEqual(whole.perp.aggregate)
    expect(pages.flatMap((p) => p.spot.exchanges.find((v: Json) => v.exchange === 'okx').points)).toEqual(whole.spot.exchanges.find((v: Json) => v.exchange === 'okx').points)
  })

  it('GraphQL answers the same figures', async () => {
    const rest = (await callOk(t, acct, '/v1/flow/cvd?coin=BTC&interval=15m&lookback=4h', 3)).data
    const g = await t.graphql('{ cvd(coin: "BTC", interval: M15, lookback: H4) { perp { aggregate { ts cvd exchanges } } next } }', {}, acct.apiKey)
    expect(g.errors).toBeUndefined()
    expect(g.data.cvd.perp.aggregate.map((p: Json) => [p.ts, p.cvd])).toEqual(rest.perp.aggregate.map((p: Json) => [p.ts, p.cvd]))
    expect(g.data.cvd.next).toBeNull()
  })

  it('refuses bad parameters naming them, charging nothing', async () => {
    await commonRefusals(t, acct, '/v1/flow/cvd', TEST_NOW)
  })

  it('fuzz: no parameter value gives a 5xx or a charge without a 2xx', async () => {
    await fuzzParams(t, acct, '/v1/flow/cvd', ['coin', 'exchange', 'interval', 'lookback', 'start_time', 'end_time', 'limit', 'cursor'], 3)
  })
})

describe('GET /v1/flow/taker-volume', () => {
  it('per interval: buy, sell and buy/sell ratio per venue and aggregated, from the stored minutes', async () => {
    const { data } = await callOk(t, acct, '/v1/flow/taker-volume?coin=BTC&interval=15m&lookback=4h', 2)
    expect(data.market_type).toBe('perp')
    expectFlowsMatch(data, await storedFlow(t, 'perp', 15 * MINUTE, firstSlot(TEST_NOW - 4 * HOUR, 15 * MINUTE), TEST_NOW), false)
    const spot = (await callOk(t, acct, '/v1/flow/taker-volume?coin=BTC&interval=4h&lookback=24h&market_type=spot', 2)).data
    expectFlowsMatch(spot, await storedFlow(t, 'spot', 4 * HOUR, firstSlot(TEST_NOW - 24 * HOUR, 4 * HOUR), TEST_NOW), false)
  })

  it('a venue-interval without bars is absent (never a zero), and the aggregate there names the venues it sums', async () => {
    const gap = Date.UTC(2026, 2, 2, 10, 15)
    await t.services.db.sql.query(`DELETE FROM candle_1m WHERE exchange = 'bybit' AND coin = 'BTC' AND market_type = 'perp' AND ts >= $1 AND ts < $2`, [gap, gap + 15 * MINUTE])
    await t.services.market.series.load(t.services.db, TEST_NOW)
    t.services.market.reader.bump('candles')
    const { data } = await callOk(t, acct, '/v1/flow/taker-volume?coin=BTC&interval=15m&lookback=4h', 2)
    const bybit = data.exchanges.find((v: Json) => v.exchange === 'bybit')
    expect(bybit.points.some((p: Json) => p.ts === gap)).toBe(false)
    expect(bybit.points.some((p: Json) => p.ts === gap - 15 * MINUTE)).toBe(true)
    const agg = data.aggregate.find((p: Json) => p.ts === gap)
    expect(agg.exchanges).toEqual(['binance', 'okx', 'hyperliquid', 'dydx'])
    expectFlowsMatch(data, await storedFlow(t, 'perp', 15 * MINUTE, firstSlot(TEST_NOW - 4 * HOUR, 15 * MINUTE), TEST_NOW), false)
  })

  it('refuses bad parameters naming them, charging nothing', async () => {
    await commonRefusals(t, acct, '/v1/flow/taker-volume', TEST_NOW)
    const { callBad } = await import('./series-helpers.js')
    await callBad(t, acct, '/v1/flow/taker-volume?coin=BTC&exchange=dydx&market_type=spot', 'market_type')
    await callBad(t, acct, '/v1/flow/taker-volume?coin=BTC&market_type=futures', 'market_type')
  })

  it('fuzz: no parameter value gives a 5xx or a charge without a 2xx', async () => {
    await fuzzParams(t, acct, '/v1/flow/taker-volume', ['coin', 'exchange', 'interval', 'lookback', 'start_time', 'end_time', 'limit', 'cursor', 'market_type'], 2)
  })
})

describe('on PostgreSQL', () => {
  let pg: TestService | undefined
  let drop: (() => Promise<void>) | undefined
  afterAll(async () => {
    await pg?.close()
    await drop?.()
  })

  it('CVD and taker volume equal the stored minutes', async (ctx) => {
    if (!(await requirePostgresInCi())) return ctx.skip()
    const schema = await freshSchema('flowseries')
    drop = schema.drop
    pg = await startTestService({ env: { DATABASE_URL: schema.url }, clock: () => TEST_NOW })
    await seedMarket(pg, { hours: 3, coins: ['BTC'] })
    const a = await pg.signup()
    const from = firstSlot(TEST_NOW - 4 * HOUR, 5 * MINUTE)
    const cvd = (await callOk(pg, a, '/v1/flow/cvd?coin=BTC&interval=5m&lookback=4h', 3)).data
    for (const mt of ['perp', 'spot']) expectFlowsMatch(cvd[mt], await storedFlow(pg, mt, 5 * MINUTE, from, TEST_NOW), true)
    const tv = (await callOk(pg, a, '/v1/flow/taker-volume?coin=BTC&interval=1h&lookback=4h', 2)).data
    expectFlowsMatch(tv, await storedFlow(pg, 'perp', HOUR, firstSlot(TEST_NOW - 4 * HOUR, HOUR), TEST_NOW), false)
  })
})
