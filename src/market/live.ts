// The latest state of every market, in memory: ticker, open interest and order book as last received.
// The ticker endpoint and the order-book analytics read this; the store keeps the history.
import type { BookSnapshotEvent, OpenInterestEvent, TickerEvent } from './events.js'
import type { ExchangeId, MarketType } from '../domain/exchanges.js'

export const marketId = (exchange: ExchangeId, coin: string, marketType: MarketType) => `${exchange}:${coin}:${marketType}`

export class LiveMarket {
  readonly tickers = new Map<string, TickerEvent>()
  readonly openInterest = new Map<string, OpenInterestEvent>()
  readonly books = new Map<string, BookSnapshotEvent>()
  /** books changed since the last persist */
  readonly dirtyBooks = new Set<string>()

  onTicker(e: TickerEvent): void {
    const id = marketId(e.exchange, e.coin, e.marketType)
    const prev = this.tickers.get(id)
    if (!prev || prev.ts <= e.ts) this.tickers.set(id, e)
  }

  onOpenInterest(e: OpenInterestEvent): void {
    const id = marketId(e.exchange, e.coin, e.marketType)
    const prev = this.openInterest.get(id)
    if (!prev || prev.ts <= e.ts) this.openInterest.set(id, e)
  }

  onBook(e: BookSnapshotEvent): void {
    const id = marketId(e.exchange, e.coin, e.marketType)
    const prev = this.books.get(id)
    if (!prev || prev.ts <= e.ts) {
      this.books.set(id, e)
      this.dirtyBooks.add(id)
    }
  }

  tickerList(): TickerEvent[] {
    return [...this.tickers.values()]
  }

  bookList(): BookSnapshotEvent[] {
    return [...this.books.values()]
  }
}
