// What a venue's REST history looks like to the planner and runner: the kinds it serves, what one page costs, how far
// back it keeps them, and one call that fetches one page. Each venue implements it on its CCXT instance's implicit
// methods (binance.ts here; Bybit, OKX, Hyperliquid and dYdX beside it), so base-URL overrides, the proxy and
// recordings apply to history as they do to the live connectors.
import type { ExchangeId, MarketType } from './exchanges.js'
import type { MinuteBar } from './minute-bars.js'
import type { MarketEvent } from './events.js'

export const HISTORY_KINDS = ['candles_perp', 'candles_spot', 'open_interest', 'funding', 'long_short', 'liquidations'] as const
export type HistoryKind = (typeof HISTORY_KINDS)[number]

/** the market type a kind's series belongs to */
export const kindMarketType = (k: HistoryKind): MarketType => (k === 'candles_spot' ? 'spot' : 'perp')

/** why a series ends before the window's start */
export type ExhaustedReason = 'listing' | 'retention' | 'not_published'

/** [from, to) in Unix ms; pages are asked newest first */
export interface HistoryRequest {
  coin: string
  kind: HistoryKind
  from: number
  to: number
}

export interface HistoryPage {
  /** what this page covers for sure: [from, to) (a page may cover less than asked: the planner asks again for the rest) */
  from: number
  to: number
  /** candles: 1-minute bars (source 'venue_kline'), null where the venue gives no field */
  bars: MinuteBar[]
  /** OI / funding / positioning / liquidation events, with their venue timestamps */
  events: MarketEvent[]
  /** the venue has nothing older than this (listing or retention): the planner stops there and records why */
  exhaustedBefore?: { ts: number; reason: ExhaustedReason }
}

/** what one request costs: its weight in the venue budget's units, in which of the venue's pools (default 'rest') */
export interface HistoryCost {
  weight: number
  /** the longest span one page covers */
  pageSpanMs: number
  /** the budget pool the request draws from, where a venue has several (Binance: futures weight, spot weight, …) */
  pool?: string
}

export interface VenueHistory {
  venue: ExchangeId
  /** kinds it can fetch; the others are 'not_published' (e.g. Hyperliquid open_interest) */
  kinds: ReadonlySet<HistoryKind>
  /** the weight (in the venue budget's units) one request of this kind costs, and the longest span one page covers */
  cost(kind: HistoryKind): HistoryCost
  /** the oldest data the venue serves for this kind (retention), relative to now; Infinity when it keeps everything */
  retentionMs(kind: HistoryKind): number
  /** the coins it follows (its connector's markets); a kind's series exists only for a coin listed for its market type */
  lists(coin: string, kind: HistoryKind): boolean
  /** throws VenueHttpError with status/retryAfterMs */
  fetch(req: HistoryRequest, signal: AbortSignal): Promise<HistoryPage>
}

/**
 * A venue's refusal or failure of a history request, with what the budget needs: the HTTP status (429 rate limited,
 * 418 banned, 451/403 refused, 5xx) and how long the venue asked us to wait (Retry-After, a ban's end).
 */
export class VenueHttpError extends Error {
  constructor(
    readonly venue: ExchangeId,
    readonly status: number | null,
    message: string,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message)
    this.name = 'VenueHttpError'
  }

  /** the venue asked us to slow down (429, 418, a venue's own rate-limit code) */
  get rateLimited(): boolean {
    return this.status === 429 || this.status === 418
  }

  /** the venue refuses us outright (geo-block, forbidden): retrying will not help */
  get refused(): boolean {
    return this.status === 451 || this.status === 403
  }
}
