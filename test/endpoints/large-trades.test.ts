// The first page of large trades is read widened to whole minutes (a read the store's memo keeps) and cut to the
// window: it must be exactly the page the window's own read gives, wherever the trades sit around the window's
// edges, and however many of them fall outside it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MINUTE_MS } from '../../src/domain/time.js'
import { pageRows } from '../../src/endpoints/large-trades.js'
import type { TradeEvent } from '../../src/domain/events.js'
import { MarketReader } from '../../src/read/reader.js'
import { readLargeTrades, writeLargeTrades } from '../../src/store/market/large-trades.js'
import type { Database } from '../../src/store/database.js'
import { openTestStore } from '../helpers/store.js'

const T0 = Date.UTC(2026, 10, 20, 12, 0)
let db: Database
let n = 0
const trade = (ts: number, usd: number, coin = 'BTC'): TradeEvent => ({
  type: 'trade', exchange: n % 2 ? 'bybit' : 'binance', coin, marketType: 'perp', ts, id: `t${n++}`, price: 100, size: usd / 100, side: n % 3 ? 'buy' : 'sell',
})

beforeAll(async () => {
  db = await openTestStore()
  const trades: TradeEvent[] = []
  // a few every minute for an hour, and crowds of them in two minutes around the windows' edges below
  for (let m = 0; m < 60; m++) for (let k = 0; k < 3; k++) trades.push(trade(T0 + m * MINUTE_MS + k * 13_001, 150_000 + k * 500_000))
  for (let k = 0; k < 150; k++) trades.push(trade(T0 + 40 * MINUTE_MS + 30_000 + k * 100, 2_000_000))
  for (let k = 0; k < 150; k++) trades.push(trade(T0 + 10 * MINUTE_MS + 100 + k * 100, 2_000_000))
  await writeLargeTrades(db.sql, trades)
})
afterAll(() => db.close())

describe('large trades: the widened first page', () => {
  it('equals the exact read for windows ending and starting anywhere in a minute, at any page size and filter', async () => {
    const reader = new MarketReader(db)
    for (const to of [T0 + 40 * MINUTE_MS + 30_000 + 2_000 + 1, T0 + 40 * MINUTE_MS + 45_000, T0 + 59 * MINUTE_MS + 59_999, T0 + 25 * MINUTE_MS + 1])
      for (const from of [T0 + 10 * MINUTE_MS + 100 + 5_000, T0 + 10 * MINUTE_MS + 59_000, T0, T0 + 20 * MINUTE_MS + 7])
        for (const limit of [2, 11, 101])
          for (const minUsd of [100_000, 1_000_000]) {
            const q = { coin: 'BTC', minUsd, from, to, limit }
            expect(await pageRows(reader, q), JSON.stringify(q)).toEqual(await readLargeTrades(db.sql, q))
          }
  })
})
