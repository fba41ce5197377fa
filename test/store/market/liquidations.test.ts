// liquidation_order / liquidation_minute (src/store/market/liquidations.ts): a minute row is always the sum of the
// stored orders in it, whatever order and however often the orders arrive; orders read newest first with filters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readLiquidationMinutes, readLiquidationOrders, readPositioning, writeLiquidations, writePositioning, type LiquidationOrderRow, type PositioningRow } from '../../../src/store/market/liquidations.js'
import type { Database } from '../../../src/store/database.js'
import { openTestStore } from '../../helpers/store.js'

const T0 = Date.UTC(2026, 3, 1, 5)
const M = 60_000

const order = (exchange: LiquidationOrderRow['exchange'], ts: number, side: 'long' | 'short', price: number, size: number, coin = 'BTC'): LiquidationOrderRow => ({
  exchange, coin, ts, id: `${ts}-${side}-${price}-${size}`, side, price, size, usd: price * size,
})

const ORDERS: LiquidationOrderRow[] = [
  order('binance', T0 + 1_000, 'long', 100, 2),
  order('binance', T0 + 59_999, 'short', 101, 1),
  order('binance', T0 + M, 'long', 99, 3),
  order('bybit', T0 + 30_000, 'long', 100.5, 0.5),
  order('okx', T0 + 2 * M + 5, 'short', 102, 4),
  order('binance', T0 + 10_000, 'long', 50, 1, 'ETH'),
]

describe('liquidation store', () => {
  let db: Database
  beforeAll(async () => {
    db = await openTestStore()
    // in two batches, the second repeating an order of the first (a reconnect): it is stored and counted once
    await writeLiquidations(db.sql, ORDERS.slice(0, 3))
    await writeLiquidations(db.sql, [ORDERS[1]!, ...ORDERS.slice(3)])
  })
  afterAll(() => db.close())

  it('each minute row equals the sum of the orders in that minute, per venue and side', async () => {
    const minutes = await readLiquidationMinutes(db.sql, { coins: ['BTC'], start: T0, end: T0 + 10 * M })
    const expected = new Map<string, { longUsd: number; shortUsd: number; longCount: number; shortCount: number }>()
    for (const o of ORDERS.filter((x) => x.coin === 'BTC')) {
      const key = `${o.exchange}|${Math.floor(o.ts / M) * M}`
      const row = expected.get(key) ?? { longUsd: 0, shortUsd: 0, longCount: 0, shortCount: 0 }
      if (o.side === 'long') (row.longUsd += o.usd), row.longCount++
      else (row.shortUsd += o.usd), row.shortCount++
      expected.set(key, row)
    }
    expect(minutes).toHaveLength(expected.size)
    for (const m of minutes) {
      const e = expected.get(`${m.exchange}|${m.ts}`)!
      expect(m.longUsd).toBeCloseTo(e.longUsd, 9)
      expect(m.shortUsd).toBeCloseTo(e.shortUsd, 9)
      expect([m.longCount, m.shortCount]).toEqual([e.longCount, e.shortCount])
    }
    // the first binance minute: 100 × 2 long, 101 × 1 short
    expect(minutes.find((m) => m.exchange === 'binance' && m.ts === T0)).toMatchObject({ longUsd: 200, shortUsd: 101 })
  })

  it('orders newest first, filtered by exchange, side and min_usd, paged by position', async () => {
    const all = await readLiquidationOrders(db.sql, { coin: 'BTC', start: T0, end: T0 + 10 * M, limit: 100 })
    expect(all.map((o) => o.ts)).toEqual([...ORDERS].filter((o) => o.coin === 'BTC').map((o) => o.ts).sort((a, b) => b - a))
    const longsOver150 = await readLiquidationOrders(db.sql, { coin: 'BTC', side: 'long', minUsd: 150, start: T0, end: T0 + 10 * M, limit: 100 })
    expect(longsOver150.map((o) => o.usd)).toEqual([297, 200])
    const bybit = await readLiquidationOrders(db.sql, { exchange: 'bybit', start: T0, end: T0 + 10 * M, limit: 100 })
    expect(bybit.map((o) => o.exchange)).toEqual(['bybit'])
    const first = await readLiquidationOrders(db.sql, { coin: 'BTC', start: T0, end: T0 + 10 * M, limit: 2 })
    const last = first.at(-1)!
    const rest = await readLiquidationOrders(db.sql, { coin: 'BTC', start: T0, end: T0 + 10 * M, limit: 100, from: { ts: last.ts, skip: first.filter((o) => o.ts === last.ts).length } })
    expect([...first, ...rest]).toEqual(all)
  })

  it('positioning: one batch may hold the same sample twice (polls between two publications); the last one is kept', async () => {
    const sample = (longShare: number): PositioningRow => ({ exchange: 'bybit', coin: 'BTC', kind: 'account', ts: T0, longShare, shortShare: 1 - longShare, ratio: longShare / (1 - longShare), periodMs: 5 * M })
    await writePositioning(db.sql, [sample(0.5), sample(0.6)])
    const rows = await readPositioning(db.sql, { coins: ['BTC'], start: T0, end: T0 + M })
    expect(rows).toEqual([{ ...sample(0.6), source: 'live' }])
  })
})
