// What a connector is configured with and reports: the public types of the connector API.
import type { Exchange } from 'ccxt'
import type { EventSink } from '../../domain/events.js'
import type { ExchangeId, MarketType } from '../../domain/exchanges.js'
import type { BackoffOptions } from './backoff.js'
import type { VenueAccess, VenueRefusal } from './venue-access.js'

/** pino-compatible subset. */
export interface ConnectorLogger {
  debug(obj: object, msg?: string): void
  info(obj: object, msg?: string): void
  warn(obj: object, msg?: string): void
  error(obj: object, msg?: string): void
}

export interface PollIntervals {
  /** mark/index/last/current funding (default 5 s) */
  tickerMs: number
  /** open interest (default 30 s) */
  openInterestMs: number
  /** settled funding history (default 60 s) */
  fundingMs: number
  /** coarser/deeper book snapshots for the wide depth bands, where a venue serves them (default 15 s) */
  wideBookMs: number
  /** long/short positioning ratios, where a venue publishes them (default 5 min, the venues' own period) */
  positioningMs: number
}

export const DEFAULT_POLL_INTERVALS: PollIntervals = { tickerMs: 5_000, openInterestMs: 30_000, fundingMs: 60_000, wideBookMs: 15_000, positioningMs: 300_000 }

/** ConnectorOptions.pollIntervalMs -> every loop's interval: a number sets the ticker poll and scales the others as the defaults are scaled */
export function pollIntervals(p: ConnectorOptions['pollIntervalMs']): PollIntervals {
  return typeof p === 'number' ? { tickerMs: p, openInterestMs: p * 6, fundingMs: p * 12, wideBookMs: p * 3, positioningMs: p * 60 } : { ...DEFAULT_POLL_INTERVALS, ...p }
}

export interface ConnectorOptions {
  /** base assets, e.g. ['BTC', 'ETH']; coins a venue does not list are skipped with a warning */
  coins: readonly string[]
  sink: EventSink
  logger?: ConnectorLogger
  /** a number sets the ticker poll and scales the others (OI x6, funding x12, wide books x3, positioning x60); or set each loop */
  pollIntervalMs?: number | Partial<PollIntervals>
  /** CCXT instance to use instead of a new ccxt.pro one (tests inject offline instances); perp and, where one class serves both, spot */
  ccxtExchange?: Exchange
  /** Binance only: the spot instance (CCXT's `binance`; perps use `binanceusdm`) */
  ccxtSpotExchange?: Exchange
  /** restrict to these market types (default: all the venue lists) */
  marketTypes?: readonly MarketType[]
  /** minimum spacing of book snapshots per market, ms (default 1000) */
  bookIntervalMs?: number
  /** book snapshots keep levels within this fraction of mid, plus one beyond (default 0.05) */
  bookBand?: number
  /** switch loops off (all on by default), e.g. { books: false } */
  streams?: Partial<Record<StreamName, boolean>>
  backoff?: Partial<BackoffOptions>
  /** [0, 1) source for backoff jitter (default Math.random) */
  random?: () => number
  /** clock for lastEventAt and throttling (default Date.now) */
  now?: () => number
  /** how often the liquidation stream's liveness is probed, ms (default 1000) */
  livenessMs?: number
  /** base-URL overrides, proxy and testnet for the venue's CCXT instances (config.venueAccess) */
  access?: VenueAccess
  /** the venue started refusing this service (451, 403), or stopped (null): a clear per-venue error */
  onRefusal?: (refusal: VenueRefusal | null) => void
}

export type StreamName = 'trades' | 'books' | 'tickers' | 'openInterest' | 'funding' | 'liquidations' | 'positioning'

export interface ConnectorHealth {
  exchange: ExchangeId
  /** Unix ms of the last event handed to the sink */
  lastEventAt: number | null
  /** running, at least one market followed, and no loop currently failing (a loop that failed counts until it succeeds again) */
  connected: boolean
  /** failures since construction (each failed attempt of any loop) */
  errors: number
  /** the loops whose latest attempt failed (`trades:<symbol>`, `book:<symbol>`, `tickers`, …): what gap repair watches */
  failing: string[]
  /** the venue refuses this service (a geo-block or a ban), null otherwise */
  refused: VenueRefusal | null
}

export interface KlineQuery {
  /** CCXT timeframe (default '1m') */
  timeframe?: string
  since?: number
  limit?: number
}
