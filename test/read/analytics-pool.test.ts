// The analytics threads (src/read/analytics-pool.ts): the liquidation map computed on a worker thread, its
// trace moved back as typed arrays, is the one computed on the event loop, to the bit; with no threads it runs here.
import { afterAll, describe, expect, it } from 'vitest'
import { POSITION_HORIZON_HOURS, positionClasses } from '../../src/analytics/leverage-tiers.js'
import { estimateLiquidationMap, type OiBuildUpPoint } from '../../src/analytics/liquidation-map.js'
import { HOUR_MS } from '../../src/domain/time.js'
import { AnalyticsPool } from '../../src/read/analytics-pool.js'

/** a year of hourly build-up: a random walk of price and open interest (fixed seed) */
function buildUp(hours: number): OiBuildUpPoint[] {
  let seed = 7
  const rand = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31)
  let price = 60_000
  let oi = 50_000
  const out: OiBuildUpPoint[] = []
  for (let h = 0; h < hours; h++) {
    const next = price * (1 + (rand() - 0.5) * 0.02)
    const change = (rand() - 0.45) * 400
    out.push({ ts: h * HOUR_MS, price: next, oiChangeCoins: change, openInterestCoins: oi, buyVolume: rand() * 100, sellVolume: rand() * 100, low: Math.min(price, next) * 0.997, high: Math.max(price, next) * 1.003 })
    oi += change
    price = next
  }
  return out
}

const pools: AnalyticsPool[] = []
afterAll(async () => {
  for (const p of pools) await p.close()
})

describe('AnalyticsPool', () => {
  const series = buildUp(24 * 366)
  const classes = positionClasses([
    { minNotional: 0, maxNotional: 1e6, maintenanceMarginRate: 0.004, maxLeverage: 125, maintenanceAmount: 0 },
    { minNotional: 1e6, maxNotional: Infinity, maintenanceMarginRate: 0.01, maxLeverage: 50, maintenanceAmount: 6000 },
  ])
  const snapshotAt = [100, 5000, 8000, series.length - 1]
  const task = { series, classes, horizonMs: POSITION_HORIZON_HOURS * HOUR_MS, snapshotAt }
  const local = estimateLiquidationMap(series, { classes, horizonMs: task.horizonMs, snapshotAt: new Set(snapshotAt) }).trace

  it('a year\'s liquidation map on a worker thread is the event loop\'s, to the bit', async () => {
    const pool = new AnalyticsPool(1)
    pools.push(pool)
    const trace = await pool.liquidationMap(task)
    expect(pool.ran).toBe(1)
    expect(trace.swept).toEqual(local.swept)
    expect([...trace.snapshots.keys()]).toEqual([...local.snapshots.keys()])
    for (const k of snapshotAt) expect(trace.snapshots.get(k)).toEqual(local.snapshots.get(k))
    expect(local.snapshots.get(series.length - 1)!.length).toBeGreaterThan(10)
  })

  it('with no threads it computes on the event loop', async () => {
    const pool = new AnalyticsPool(0)
    expect(await pool.liquidationMap(task)).toEqual(local)
    expect(pool.ran).toBe(0)
  })
})
