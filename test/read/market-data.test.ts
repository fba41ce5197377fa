// The latest tickers and books per coin list the venues in their fixed order, whatever order their live events
// arrived in: API nodes fed by the bus receive them in different orders, and must give the same answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EXCHANGE_IDS, type ExchangeId } from '../../src/domain/exchanges.js'
import { latestBooks, latestTickers } from '../../src/read/market-data.js'
import { MarketState } from '../../src/read/state.js'
import type { Database } from '../../src/store/database.js'
import { openTestStore } from '../helpers/store.js'

const NOW = Date.UTC(2026, 10, 20, 12, 0)
let db: Database
beforeAll(async () => {
  db = await openTestStore()
})
afterAll(() => db.close())

const feed = (market: MarketState, order: readonly ExchangeId[]) => {
  for (const [i, exchange] of order.entries()) {
    market.live.onTicker({ type: 'ticker', exchange, coin: 'BTC', marketType: 'perp', ts: NOW - i, markPrice: 100 + i, indexPrice: 100, lastPrice: 100, fundingRate: 0.0001, fundingIntervalHours: 8, nextFundingTime: null })
    market.live.onBook({ type: 'book', exchange, coin: 'BTC', marketType: 'perp', ts: NOW - i, bids: [{ price: 99, size: 1 }], asks: [{ price: 101, size: 1 }], bidEnd: null, askEnd: null })
  }
}

describe('latest tickers and books', () => {
  it('come in the venues\' fixed order, not in the order their events arrived', async () => {
    const arrivals: ExchangeId[][] = [['hyperliquid', 'dydx', 'binance', 'bybit', 'okx'], ['okx', 'binance', 'dydx', 'bybit', 'hyperliquid']]
    for (const order of arrivals) {
      const market = new MarketState(db, () => NOW)
      feed(market, order)
      const [tickers] = await latestTickers(market, ['BTC'], NOW)
      const [books] = await latestBooks(market, ['BTC'])
      expect(tickers!.map((t) => t.exchange)).toEqual([...EXCHANGE_IDS])
      expect(books!.map((b) => b.exchange)).toEqual([...EXCHANGE_IDS])
    }
  })
})
