// A page of venue history into the store (src/sources/history/page-writer.ts): a kline fills a missing minute and
// completes a minute marked partial (cut by a restart or an outage; its mark goes), never replaces a whole minute from
// trades; the steps the page and the store both lack are its holes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { klineMinuteBar, type MarketKey, type TradeMinuteBar } from '../../../src/domain/minute-bars.js'
import { MINUTE_MS } from '../../../src/domain/time.js'
import { MarketState } from '../../../src/read/state.js'
import { writeMinuteBars } from '../../../src/store/market/candles.js'
import { markPartial } from '../../../src/store/market/partial-minutes.js'
import { pageHoles, storedView, writePage } from '../../../src/sources/history/page-writer.js'
import type { Database } from '../../../src/store/database.js'
import { openTestStore } from '../../helpers/store.js'

const H = Date.UTC(2026, 3, 2, 10)
const KEY: MarketKey = { exchange: 'binance', coin: 'BTC', marketType: 'perp' }
const traded = (minute: number, price: number): TradeMinuteBar => ({
  ...KEY, ts: H + minute * MINUTE_MS, open: price, high: price, low: price, close: price, volume: 1, buyVolume: 1, sellVolume: 0,
  quoteVolume: price, trades: 1, source: 'trades', noSplitMinutes: 0, klineMinutes: 0, vap: new Map(),
})
const kline = (minute: number, price: number) => klineMinuteBar(KEY, { ts: H + minute * MINUTE_MS, open: price, high: price + 1, low: price - 1, close: price, volume: 5, buyVolume: 2, quoteVolume: 5 * price, trades: 9 })

describe('history page writer', () => {
  let db: Database
  let market: MarketState
  beforeAll(async () => {
    db = await openTestStore()
    market = new MarketState(db, () => H + 10 * MINUTE_MS)
  })
  afterAll(() => db?.close())

  it('fills missing minutes, completes a partial one, keeps a whole one from trades; the rest of the span is a hole', async () => {
    // minute 0 whole from trades, minute 1 from trades but cut by a restart, minutes 2.. missing
    const stored = [traded(0, 100), traded(1, 101)]
    await markPartial(db.sql, new Map([[stored[1]!, { coveredFrom: null, coveredTo: H + MINUTE_MS + 20_000 }]]))
    await writeMinuteBars(db.sql, stored)
    const from = H
    const to = H + 5 * MINUTE_MS
    const view = await storedView(db, { ...KEY, kind: 'candles_perp' }, from, to)
    expect([0, 1, 2].map((m) => view.step(H + m * MINUTE_MS))).toEqual([true, false, false])
    // the venue serves minutes 0..3 (not 4)
    const page = { from, to, bars: [0, 1, 2, 3].map((m) => kline(m, 200 + m)), events: [] }
    const wrote = await writePage({ db, market, page, stored: view })
    expect(wrote).toEqual({ bars: 3, events: 0 })
    const rows = await db.sql.query<{ ts: string; close: number; source: string; trades: number }>("SELECT ts, close, source, trades FROM candle_1m WHERE coin = 'BTC' ORDER BY ts")
    expect(rows.map((r) => [(Number(r.ts) - H) / MINUTE_MS, r.close, r.source, r.trades])).toEqual([
      [0, 100, 'trades', 1],
      [1, 201, 'venue_kline', 9],
      [2, 202, 'venue_kline', 9],
      [3, 203, 'venue_kline', 9],
    ])
    expect(await db.sql.query('SELECT ts FROM minute_partial')).toEqual([])
    expect(pageHoles('candles_perp', from, to, page, view)).toEqual([{ from: H + 4 * MINUTE_MS, to }])
  })
})
