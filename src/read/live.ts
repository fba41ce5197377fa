// The latest state of every market, in memory: ticker, open interest and order book as last received.
// The ticker endpoint and the order-book analytics read this; the store keeps the history.
import type { BookSnapshotEvent, LiquidationEvent, OpenInterestEvent, TickerEvent } from '../domain/events.js'
import type { ExchangeId, MarketType } from '../domain/exchanges.js'

export const marketId = (exchange: ExchangeId, coin: string, marketType: MarketType) => `${exchange}:${coin}:${marketType}`

export class LiveMarket {
  readonly tickers = new Map<string, TickerEvent>()
  readonly openInterest = new Map<string, OpenInterestEvent>()
  readonly books = new Map<string, BookSnapshotEvent>()
  /** books changed since the last persist */
  readonly dirtyBooks = new Set<string>()
  /** tickers or open interest as of the last data tick: bumped by tick() when they changed since (views computed per tick key on it) */
  version = 0
  private changed = false

  /** the maps were changed directly (not through on…): a new version at once */
  changedDirectly(): void {
    this.changed = true
    this.tick()
  }

  /** the data tick: what arrived since the last one becomes the next version */
  tick(): void {
    if (!this.changed) return
    this.changed = false
    this.version++
  }

  /** told of every accepted ticker and every live liquidation (the push channels); null on an API node, whose push events come over the bus */
  listener: ((e: TickerEvent | LiquidationEvent) => void) | null = null

  onTicker(e: TickerEvent): void {
    const id = marketId(e.exchange, e.coin, e.marketType)
    const prev = this.tickers.get(id)
    if (!prev || prev.ts <= e.ts) {
      this.tickers.set(id, e)
      this.changed = true
      this.listener?.(e)
    }
  }

  /** a liquidation as it arrives (the store keeps them; this only tells the push channels) */
  onLiquidation(e: LiquidationEvent): void {
    this.listener?.(e)
  }

  onOpenInterest(e: OpenInterestEvent): void {
    const id = marketId(e.exchange, e.coin, e.marketType)
    const prev = this.openInterest.get(id)
    if (!prev || prev.ts <= e.ts) {
      this.openInterest.set(id, e)
      this.changed = true
    }
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
