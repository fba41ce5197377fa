// Normalized market events: every source (live connector, simulator, historical import) emits exactly these,
// so nothing downstream knows where data came from (after tardis-node's normalized types).

import type { BookLevel, BookReach, WideBook } from './books.js'
import type { ExchangeId, MarketType } from './exchanges.js'

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

/**
 * Where a sample (open interest, funding, positioning) came from: the venue's live feed or poll ('live'), or its REST
 * history endpoint, fetched afterwards ('venue_history'). A history value never replaces a live one of the same slot.
 */
export type SampleSource = 'live' | 'venue_history'

export interface OpenInterestEvent extends EventBase {
  type: 'open_interest'
  /** one-sided open interest in coin units (venue conventions already normalized: contracts -> coins, two-sided halved) */
  openInterest: number
  /** absent: 'live' */
  source?: SampleSource
}

export interface FundingEvent extends EventBase {
  type: 'funding'
  /** a settled (historical) funding rate per interval */
  rate: number
  intervalHours: number
  /** absent: 'live' (a live connector's poll of the recent settlements) */
  source?: SampleSource
}

/** the side of the position a liquidation closed (not the side of the closing order) */
export type PositionSide = 'long' | 'short'

export interface LiquidationEvent extends EventBase {
  type: 'liquidation'
  /** the venue's id where it sends one (dYdX fill id), else one derived from the order's fields (ts, side, price, size) */
  id: string
  side: PositionSide
  /** the price the venue reports: Binance the order's average fill, Bybit and OKX the bankruptcy price, dYdX the fill (LIQUIDATION_FEEDS) */
  price: number
  /** coin units (contracts already converted) */
  size: number
  /** price × size, USD (USDT/USDC taken at par) */
  usd: number
}

/** what a positioning ratio counts: accounts (all holders), or the position sizes of the venue's top traders */
export type PositioningKind = 'account' | 'top_position'

export interface PositioningEvent extends EventBase {
  type: 'positioning'
  kind: PositioningKind
  /** share of longs and shorts (0..1, summing to 1 where the venue sends both) and their ratio */
  longShare: number
  shortShare: number
  ratio: number
  /** the venue's period the figure covers, ms (5 min) */
  periodMs: number
  /** absent: 'live' */
  source?: SampleSource
}

export type MarketEvent = TradeEvent | BookSnapshotEvent | TickerEvent | OpenInterestEvent | FundingEvent | LiquidationEvent | PositioningEvent

/** the streams whose own liveness a source reports (not market data: what the source was collecting, and when) */
export type FeedStream = 'liquidations'

/**
 * A source's own state of one of a venue's streams: a live connector's subscription connected (up) or lost (down), the
 * simulator's feed started; a history source vouches for a closed span (`until`). A quiet stream is still up.
 */
export interface FeedStateEvent {
  exchange: ExchangeId
  stream: FeedStream
  /** the coins whose data the stream carries (the venue's followed markets) */
  coins: string[]
  /** from this time on (Unix ms) the stream is up or down */
  ts: number
  up: boolean
  /** up only until this time (a span of history the source covered), instead of until a later down */
  until?: number
}

/** Where events go: the ingest pipeline implements this; sources only ever call it. */
export interface EventSink {
  emit(event: MarketEvent): void
  /** a source's feed state (optional: sinks that only count market data ignore it) */
  feed?(state: FeedStateEvent): void
}
