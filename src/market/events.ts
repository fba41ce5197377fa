// Normalized market events: every source (live connector, simulator, historical import) emits exactly these,
// so nothing downstream knows where data came from (after tardis-node's normalized types).

export const EXCHANGE_IDS = ['binance', 'bybit', 'okx', 'hyperliquid', 'dydx'] as const
export type ExchangeId = (typeof EXCHANGE_IDS)[number]
export type MarketType = 'perp' | 'spot'
export type TakerSide = 'buy' | 'sell'

interface EventBase {
  exchange: ExchangeId
  /** base-asset symbol, upper case: BTC, ETH, ... */
  coin: string
  marketType: MarketType
  /** exchange timestamp, Unix epoch milliseconds */
  ts: number
}

export interface TradeEvent extends EventBase {
  type: 'trade'
  /** exchange trade id, unique per (exchange, coin, marketType); the aggregator dedupes on it */
  id: string
  price: number
  /** size in coin units (contracts already converted) */
  size: number
  side: TakerSide
}

export interface BookLevel {
  price: number
  /** size in coin units */
  size: number
}

/** How far a snapshot goes on each side, so a depth band is only a number where the book reaches its edge. */
export interface BookReach {
  /**
   * price of the deepest bid the venue sent (before any trimming on our side); null when it sent its whole bid side
   * (fewer levels than asked for, or a venue that always sends its whole book)
   */
  bidEnd: number | null
  /** price of the deepest ask the venue sent; null when it sent its whole ask side */
  askEnd: number | null
}

/** A coarser (aggregated) or deeper snapshot of the same market, for the bands the main snapshot does not reach. */
export interface WideBook extends BookReach {
  /** what it is, e.g. "nSigFigs=3" (Hyperliquid price aggregation) or "books-full" (OKX, 5 000 levels) */
  source: string
  ts: number
  bids: BookLevel[]
  asks: BookLevel[]
  /** width of its price buckets, in price units (0 for exact prices): a level stands for orders up to one bucket away */
  granularity: number
}

export interface BookSnapshotEvent extends EventBase, BookReach {
  type: 'book'
  /** best first: bids descending, asks ascending */
  bids: BookLevel[]
  asks: BookLevel[]
  /** coarser or deeper snapshots of the same market (absent when the venue serves none) */
  wide?: WideBook[]
}

export interface TickerEvent extends EventBase {
  type: 'ticker'
  markPrice: number | null
  indexPrice: number | null
  lastPrice: number | null
  /** funding rate per funding interval (not annualized), null for spot */
  fundingRate: number | null
  fundingIntervalHours: number | null
  /** Unix ms of the next funding settlement, null when unknown */
  nextFundingTime: number | null
}

export interface OpenInterestEvent extends EventBase {
  type: 'open_interest'
  /** one-sided open interest in coin units (venue conventions already normalized: contracts -> coins, two-sided halved) */
  openInterest: number
}

export interface FundingEvent extends EventBase {
  type: 'funding'
  /** a settled (historical) funding rate per interval */
  rate: number
  intervalHours: number
}

export type MarketEvent = TradeEvent | BookSnapshotEvent | TickerEvent | OpenInterestEvent | FundingEvent

/** Where events go: the ingest pipeline implements this; sources only ever call it. */
export interface EventSink {
  emit(event: MarketEvent): void
}
