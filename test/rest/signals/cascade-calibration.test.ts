// /v1/signals/liquidation-cascade states whether its levels are observed-calibrated or modelled only (issue 18):
// per venue, the orders and USD it published over the maps' build-up window are counted here from the stored
// liquidation_order rows (SQL), never from the code under test; the factor and kind follow the documented rule
// (docs/methodology.md#cascade-calibration). With every order deleted, every venue is modelled only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { calibrateVenue } from '../../../src/analytics/liquidation-calibration.js'
import { estimateLiquidationMap } from '../../../src/analytics/liquidation-map.js'
import { TEST_NOW, seedMarket } from '../../helpers/market.js'
import { startTestService, type TestService } from '../../helpers/service.js'
import { HOUR, callOk, type Json } from '../markets/helpers.js'
import type { Acct } from './helpers.js'

let t: TestService
let acct: Acct

beforeAll(async () => {
  t = await startTestService({ clock: () => TEST_NOW })
  await seedMarket(t, { hours: 30, coins: ['BTC'] })
  acct = await t.signup()
  await t.setCredits(acct.accountId, 100_000)
}, 120_000)
afterAll(() => t?.close())

const rel = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b))

describe('cascade calibration against observed liquidations', () => {
  it('per venue: orders and USD of the window from the stored orders; with 30 hours of history (less than the position horizon before the week) nothing is scaled, and the reason says why', async () => {
    const { data } = await callOk(t, acct, '/v1/signals/liquidation-cascade?coin=BTC&trigger_price=60000', 5)
    const c = data.calibration
    const to = Math.floor(TEST_NOW / HOUR) * HOUR + HOUR
    expect(c.to).toBe(to)
    expect(c.from).toBe(to - 7 * 24 * HOUR)
    const rows = await t.services.db.sql.query<Record<string, unknown>>(
      `SELECT exchange, count(*)::int AS n, sum(usd)::float8 AS usd FROM liquidation_order WHERE coin = 'BTC' AND ts >= $1 AND ts < $2 GROUP BY exchange`, [c.from, c.to])
    const stored = new Map(rows.map((r) => [String(r['exchange']), { n: Number(r['n']), usd: Number(r['usd']) }]))
    let orders = 0
    for (const v of data.by_exchange as Json[]) {
      const s = stored.get(v.exchange) ?? { n: 0, usd: 0 }
      const k = v.calibration
      expect(k.orders, v.exchange).toBe(s.n)
      expect(rel(k.observed_usd, s.usd), `${v.exchange} observed usd`).toBe(true)
      orders += s.n
      if (v.exchange === 'hyperliquid') {
        expect(k).toMatchObject({ kind: 'modelled', factor: 1, reason: 'Hyperliquid publishes no public liquidation feed' })
        continue
      }
      expect(s.n, v.exchange).toBeGreaterThanOrEqual(3)
      expect(k).toMatchObject({ kind: 'modelled', factor: 1 })
      expect(k.reason).toMatch(/less than a position horizon/)
      // the score is published all the same: observed / modelled from the stored orders
      if (k.modelled_usd > 0) expect(rel(k.score.ratio, s.usd / k.modelled_usd)).toBe(true)
    }
    expect(c.orders).toBe(orders)
    expect(c).toMatchObject({ kind: 'modelled', exchanges: [] })
  })

  it('without stored orders every venue is modelled only, and the levels are the unscaled estimate', async () => {
    const before = (await callOk(t, acct, '/v1/signals/liquidation-cascade?coin=BTC&trigger_price=80000', 5)).data
    await t.services.db.sql.query(`DELETE FROM liquidation_minute`)
    await t.services.db.sql.query(`DELETE FROM liquidation_order`)
    t.services.market.reader.bump('liquidations')
    const after = (await callOk(t, acct, '/v1/signals/liquidation-cascade?coin=BTC&trigger_price=80000', 5)).data
    expect(after.calibration).toMatchObject({ kind: 'modelled', exchanges: [], orders: 0 })
    for (const v of after.by_exchange as Json[]) {
      expect(v.calibration).toMatchObject({ kind: 'modelled', orders: 0, observed_usd: 0, factor: 1 })
      // the calibrated answer's estimate was the unscaled one times its factor
      const b = (before.by_exchange as Json[]).find((x) => x.exchange === v.exchange)!
      expect(rel(b.estimated_liquidations_usd, v.estimated_liquidations_usd * b.calibration.factor), v.exchange).toBe(true)
    }
  })
})

describe('calibrateVenue and the modelled liquidations of a build-up', () => {
  it('the rule: unpublished, too few orders or nothing modelled → modelled only; else the bounded ratio, never down for a sample feed', () => {
    const hourly = { modelled: [], observed: [] }
    const complete = { published: true, completeness: 'complete' as const, hourly, warmedUp: true }
    const sample = { published: true, completeness: 'sample' as const, hourly, warmedUp: true }
    expect(calibrateVenue({ published: false, completeness: 'none', hourly, warmedUp: true, orders: 50, observedUsd: 1e6, modelledUsd: 1e6, note: 'none' })).toMatchObject({ kind: 'modelled', factor: 1, reason: 'none' })
    // a build-up shorter than the horizon before the window does not know the positions open at its start
    expect(calibrateVenue({ ...complete, warmedUp: false, orders: 30, observedUsd: 5e5, modelledUsd: 1e6 })).toMatchObject({ kind: 'modelled', factor: 1, score: { ratio: 0.5 } })
    expect(calibrateVenue({ ...complete, orders: 2, observedUsd: 1e6, modelledUsd: 1e6 })).toMatchObject({ kind: 'modelled', factor: 1 })
    expect(calibrateVenue({ ...complete, orders: 9, observedUsd: 1e6, modelledUsd: 0 })).toMatchObject({ kind: 'modelled', factor: 1 })
    expect(calibrateVenue({ ...complete, orders: 3, observedUsd: 5e5, modelledUsd: 1e6 })).toMatchObject({ kind: 'observed', factor: 0.5 })
    expect(calibrateVenue({ ...complete, orders: 3, observedUsd: 1e9, modelledUsd: 1e6 }).factor).toBe(10)
    expect(calibrateVenue({ ...complete, orders: 3, observedUsd: 1, modelledUsd: 1e6 }).factor).toBe(0.1)
    // a sample feed (Binance, OKX) is a lower bound: below the model it says so and scales nothing; above, it scales up
    expect(calibrateVenue({ ...sample, orders: 3, observedUsd: 5e5, modelledUsd: 1e6 })).toMatchObject({ kind: 'observed', factor: 1, score: { ratio: 0.5, lowerBound: true } })
    const above = calibrateVenue({ ...sample, orders: 3, observedUsd: 2e6, modelledUsd: 1e6 })
    expect(above).toMatchObject({ kind: 'observed', completeness: 'sample', factor: 2 })
    expect(above.reason).toMatch(/lower bound/)
  })

  it('the score: the unbounded ratio and the Pearson correlation of the hourly pairs, with how many hours', () => {
    // modelled 1, 2, 3, 4 and observed 2, 4, 6, 9 per hour: r = Σ(dx·dy) / √(Σdx²·Σdy²) with means 2.5 and 5.25
    const modelled = [1, 2, 3, 4]
    const observed = [2, 4, 6, 9]
    const dx = [-1.5, -0.5, 0.5, 1.5]
    const dy = [-3.25, -1.25, 0.75, 3.75]
    const r = (dx[0]! * dy[0]! + dx[1]! * dy[1]! + dx[2]! * dy[2]! + dx[3]! * dy[3]!) / Math.sqrt(5 * (3.25 ** 2 + 1.25 ** 2 + 0.75 ** 2 + 3.75 ** 2))
    const c = calibrateVenue({ published: true, completeness: 'complete', warmedUp: true, orders: 40, observedUsd: 21, modelledUsd: 10, hourly: { modelled, observed } })
    expect(c.score.hours).toBe(4)
    expect(c.score.ratio).toBe(2.1)
    expect(c.score.correlation).toBeCloseTo(r, 12)
    expect(c.score.lowerBound).toBe(false)
    // a venue without a feed has no observation to score
    expect(calibrateVenue({ published: false, completeness: 'none', warmedUp: true, orders: 0, observedUsd: 0, modelledUsd: 10, hourly: { modelled, observed: [0, 0, 0, 0] } }).score).toEqual({ hours: 4, ratio: null, correlation: null, lowerBound: false })
  })

  it('sweptUsd: one 10x long opened at 100 (m = 0.5 %) is liquidated when a later low reaches its price', () => {
    // one class: 10x, m = 0.005, no deduction → long liquidation price 100 · (1 − 0.1) / (1 − 0.005)
    const classes = [{ weight: 1, leverage: 10, maintenanceMarginRate: 0.005, amountOverNotional: 0, tier: 1 }]
    const liq = (100 * 0.9) / 0.995
    const series = [
      { price: 100, oiChangeCoins: 10, buyVolume: 1, sellVolume: 0 }, // 10 coins of longs
      { price: 95, oiChangeCoins: 0, low: 95, high: 96 }, // above the liquidation price: nothing
      { price: 89, oiChangeCoins: 0, low: 89, high: 95 }, // through it
    ]
    const held = estimateLiquidationMap(series.slice(0, 2), { classes, bucketBps: 0 })
    expect(held.sweptUsd).toBe(0)
    expect(held.levels).toHaveLength(1)
    const swept = estimateLiquidationMap(series, { classes, bucketBps: 0 })
    expect(swept.levels).toHaveLength(0)
    expect(rel(swept.sweptUsd, 10 * liq)).toBe(true)
  })
})
