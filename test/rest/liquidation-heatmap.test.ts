// /v1/liquidations/heatmap: observed liquidations per bucket and each venue's calibration counted here from the
// stored liquidation_order rows (SQL); the fit's sums and correlation recomputed from the buckets; mass conservation
// of the binning and of the estimate on constructed cases; bad parameters → 400 naming the parameter, nothing charged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { binLevels, priceEdges } from '../../src/analytics/liquidation-heatmap.js'
import { estimateLiquidationMap } from '../../src/analytics/liquidation-map.js'
import { TEST_NOW, seedMarket } from '../helpers/market.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { HOUR, callBad, callOk, type Json } from './markets/helpers.js'

let t: TestService
let acct: { apiKey: string; accountId: string }

beforeAll(async () => {
  t = await startTestService({ clock: () => TEST_NOW })
  await seedMarket(t, { hours: 30, coins: ['BTC'] })
  acct = await t.signup()
  await t.setCredits(acct.accountId, 100_000)
}, 120_000)
afterAll(() => t?.close())

const rel = (a: number, b: number, tol = 1e-9) => Math.abs(a - b) <= tol * Math.max(1, Math.abs(a), Math.abs(b))
const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0)

describe('mass conservation (constructed cases)', () => {
  it('binning: Σ bins + outside = Σ levels, each level in the bin holding its price', () => {
    const edges = priceEdges(100, 0.2, 8) // 80..120, 5 wide
    expect(edges[0]).toBe(80)
    expect(edges[8]).toBe(120)
    const levels = [
      { price: 80, side: 'long' as const, notionalUsd: 1 },
      { price: 84.99, side: 'long' as const, notionalUsd: 2 },
      { price: 85, side: 'short' as const, notionalUsd: 4 },
      { price: 120, side: 'short' as const, notionalUsd: 8 },
      { price: 79.9, side: 'long' as const, notionalUsd: 16 },
      { price: 130, side: 'short' as const, notionalUsd: 32 },
    ]
    const b = binLevels(levels, edges)
    expect(b.longUsd).toEqual([3, 0, 0, 0, 0, 0, 0, 0])
    expect(b.shortUsd).toEqual([0, 4, 0, 0, 0, 0, 0, 8])
    expect(b.outsideUsd).toBe(48)
    expect(sum(b.longUsd) + sum(b.shortUsd) + b.outsideUsd).toBe(63)
    // no axis (no build-up to place it): every level is outside
    expect(binLevels(levels, [])).toEqual({ longUsd: [], shortUsd: [], outsideUsd: 63 })
  })

  it('estimate: coins at the levels = coins opened − coins swept, with no OI decrease', () => {
    const classes = [
      { weight: 0.5, leverage: 10, maintenanceMarginRate: 0.005, amountOverNotional: 0, tier: 1 },
      { weight: 0.5, leverage: 50, maintenanceMarginRate: 0.005, amountOverNotional: 0, tier: 1 },
    ]
    const series = [
      { price: 100, oiChangeCoins: 10, buyVolume: 3, sellVolume: 1 }, // 7.5 long, 2.5 short coins
      { price: 101, oiChangeCoins: 4, low: 100.5, high: 101.5 }, // 2 long, 2 short; 50x short from 100 (liq ≈ 101.49) swept
      { price: 99, oiChangeCoins: 0, low: 98, high: 99.5 }, // 50x longs from 100 (≈ 98.51) and 101 (≈ 99.49) swept
    ]
    const { levels, trace } = estimateLiquidationMap(series, { classes, bucketBps: 0, snapshotAt: new Set([0, 1, 2]) })
    const coins = (ls: { price: number; notionalUsd: number }[]) => sum(ls.map((l) => l.notionalUsd / l.price))
    expect(rel(coins(trace.snapshots.get(0)!), 10)).toBe(true)
    // after the second hour: 14 opened, the 50x shorts of hour 1 (1.25 coins) swept
    expect(rel(coins(trace.snapshots.get(1)!), 14 - 1.25)).toBe(true)
    // after the third: the 50x longs of both hours (3.75 + 1) swept as well
    expect(rel(coins(levels), 14 - 1.25 - 4.75)).toBe(true)
    const liqShort50 = (100 * 1.02) / 1.005
    expect(rel(trace.swept[1]!, 1.25 * liqShort50)).toBe(true)
    expect(trace.swept[0]).toBe(0)
  })
})

describe('GET /v1/liquidations/heatmap', () => {
  it('observed per bucket and each venue calibration from the stored orders; Σ bins + outside = total; the fit recomputed', async () => {
    const { data, meta } = await callOk(t, acct, '/v1/liquidations/heatmap?coin=BTC&interval=1h&lookback=24h&bins=40', 10)
    expect(meta.next).toBeNull()
    expect(data.price_bins).toHaveLength(40)
    for (let i = 1; i < 40; i++) expect(data.price_bins[i].low).toBe(data.price_bins[i - 1].high)
    const rows = (await t.services.db.sql.query<Record<string, unknown>>(`SELECT exchange, ts, usd FROM liquidation_order WHERE coin = 'BTC' AND ts >= $1 AND ts < $2`, [data.buckets[0].ts, data.end])).map((r) => ({
      exchange: String(r['exchange']), ts: Number(r['ts']), usd: Number(r['usd']),
    }))
    expect(rows.length).toBeGreaterThan(0)
    expect(data.buckets).toHaveLength(24)
    for (const b of data.buckets as Json[]) {
      expect(rel(b.observed_usd, sum(rows.filter((r) => r.ts >= b.ts && r.ts < b.ts + HOUR).map((r) => r.usd)), 1e-6), `observed ${b.ts}`).toBe(true)
      expect(rel(sum(b.long_usd) + sum(b.short_usd) + b.outside_usd, b.total_usd)).toBe(true)
      expect(b.total_usd).toBeGreaterThan(0)
    }
    for (const v of data.exchanges as Json[]) {
      const mine = rows.filter((r) => r.exchange === v.exchange)
      expect(v.calibration.orders, v.exchange).toBe(mine.length)
      expect(rel(v.calibration.observed_usd, sum(mine.map((r) => r.usd)), 1e-6)).toBe(true)
      // Binance and OKX publish samples (a lower bound): never scaled down
      const raw = v.calibration.observed_usd / v.calibration.modelled_usd
      const expected = ['binance', 'okx'].includes(v.exchange) && raw < 1 ? 1 : Math.min(10, Math.max(0.1, raw))
      if (v.calibration.kind === 'observed') expect(rel(v.calibration.factor, expected)).toBe(true)
      else expect(v.calibration.factor).toBe(1)
    }
    expect(data.exchanges.find((v: Json) => v.exchange === 'hyperliquid').calibration.kind).toBe('modelled')
    const f = data.fit
    expect(f.buckets).toBe(24)
    expect(rel(f.observed_usd, sum(data.buckets.map((b: Json) => b.observed_usd)))).toBe(true)
    expect(rel(f.calibrated_usd, sum(data.buckets.map((b: Json) => b.modelled_usd)))).toBe(true)
    expect(f.exchanges).toEqual(data.exchanges.filter((v: Json) => v.calibration.kind === 'observed').map((v: Json) => v.exchange))
    // Pearson, recomputed
    const x = data.buckets.map((b: Json) => b.modelled_usd) as number[]
    const y = data.buckets.map((b: Json) => b.observed_usd) as number[]
    const mx = sum(x) / x.length
    const my = sum(y) / y.length
    const r = sum(x.map((xi, i) => (xi - mx) * (y[i]! - my))) / Math.sqrt(sum(x.map((xi) => (xi - mx) ** 2)) * sum(y.map((yi) => (yi - my) ** 2)))
    expect(rel(f.correlation, r, 1e-9)).toBe(true)
  })

  it('paged: pages join into the whole window', async () => {
    const whole = (await callOk(t, acct, '/v1/liquidations/heatmap?coin=BTC&exchange=binance&interval=1h&lookback=24h&bins=10', 10)).data
    const seen: Json[] = []
    let path = '/v1/liquidations/heatmap?coin=BTC&exchange=binance&interval=1h&lookback=24h&bins=10&limit=10'
    for (;;) {
      const { data, meta } = await callOk(t, acct, path, 10)
      seen.push(...data.buckets)
      expect(data.fit).toEqual(whole.fit)
      if (meta.next === null) break
      path = `/v1/liquidations/heatmap?coin=BTC&exchange=binance&interval=1h&lookback=24h&bins=10&limit=10&cursor=${meta.next}`
    }
    expect(seen).toEqual(whole.buckets)
    expect(whole.exchanges.map((v: Json) => v.exchange)).toEqual(['binance'])
  })

  it('bad parameters are 400 naming the parameter; nothing charged', async () => {
    await callBad(t, acct, '/v1/liquidations/heatmap?interval=1h', 'coin')
    await callBad(t, acct, '/v1/liquidations/heatmap?coin=BTC&interval=15m', 'interval')
    await callBad(t, acct, '/v1/liquidations/heatmap?coin=BTC&bins=5', 'bins')
    await callBad(t, acct, '/v1/liquidations/heatmap?coin=BTC&range_pct=90', 'range_pct')
    await callBad(t, acct, '/v1/liquidations/heatmap?coin=BTC&exchange=ftx', 'exchange')
    await callBad(t, acct, '/v1/liquidations/heatmap?coin=BTC&cursor=@@', 'cursor')
    // a page holds at most 100,000 cells (limit × bins): 501 buckets of 200 bins is over, 500 is not
    const over = await callBad(t, acct, '/v1/liquidations/heatmap?coin=BTC&bins=200&limit=501', 'limit')
    expect(over.detail).toContain('limit may be at most 500')
    await callOk(t, acct, '/v1/liquidations/heatmap?coin=BTC&bins=200&limit=500', 10)
  })
})
