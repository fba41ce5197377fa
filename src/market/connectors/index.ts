// Entry point: which connectors MARKET_SOURCE asks for, and a factory per exchange id. Importing this module
// creates nothing and opens nothing; a connector touches the network only after start().
import { EXCHANGE_IDS, type ExchangeId } from '../events.js'
import { BinanceConnector } from './binance.js'
import { BybitConnector } from './bybit.js'
import type { ConnectorOptions, ExchangeConnector } from './connector.js'
import { DydxConnector } from './dydx.js'
import { HyperliquidConnector } from './hyperliquid.js'
import { OkxConnector } from './okx.js'

export type { ConnectorHealth, ConnectorLogger, ConnectorOptions, KlineQuery, PollIntervals, StreamName } from './connector.js'
export { DEFAULT_POLL_INTERVALS, ExchangeConnector } from './connector.js'
export { feedStatus, FEED_STATUS_DEFAULTS, type FeedStatus, type FeedStatusOptions } from './feed-status.js'
export { backoffDelay, DEFAULT_BACKOFF, type BackoffOptions } from './backoff.js'
export type { Kline } from './klines.js'
export { BinanceConnector, BybitConnector, DydxConnector, HyperliquidConnector, OkxConnector }

export type MarketSource = { kind: 'simulator' } | { kind: 'live'; exchanges: ExchangeId[] }

export class MarketSourceError extends Error {
  readonly allowed = ['simulator', 'live', ...EXCHANGE_IDS]
}

/**
 * MARKET_SOURCE: unset/empty or "simulator" -> the simulator; "live" -> all five exchanges; a comma-separated list
 * of exchange ids ("binance,okx") -> those. Case-insensitive, whitespace ignored, duplicates collapse, order kept
 * (exchange ids order for "live"). "simulator" cannot be mixed with exchanges; an unknown name is an error.
 */
export function parseMarketSource(value: string | undefined | null): MarketSource {
  const names = (value ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean)
  if (names.length === 0) return { kind: 'simulator' }
  const unknown = names.filter((n) => n !== 'simulator' && n !== 'live' && !(EXCHANGE_IDS as readonly string[]).includes(n))
  if (unknown.length > 0) {
    throw new MarketSourceError(`MARKET_SOURCE: unknown source ${unknown.map((u) => `"${u}"`).join(', ')}; use simulator, live, or a comma-separated list of ${EXCHANGE_IDS.join(', ')}`)
  }
  if (names.includes('simulator')) {
    if (names.some((n) => n !== 'simulator')) throw new MarketSourceError('MARKET_SOURCE: "simulator" cannot be combined with live exchanges')
    return { kind: 'simulator' }
  }
  if (names.includes('live')) return { kind: 'live', exchanges: [...EXCHANGE_IDS] }
  return { kind: 'live', exchanges: [...new Set(names)] as ExchangeId[] }
}

export function createConnector(exchange: ExchangeId, opts: ConnectorOptions): ExchangeConnector {
  switch (exchange) {
    case 'binance':
      return new BinanceConnector(opts)
    case 'bybit':
      return new BybitConnector(opts)
    case 'okx':
      return new OkxConnector(opts)
    case 'hyperliquid':
      return new HyperliquidConnector(opts)
    case 'dydx':
      return new DydxConnector(opts)
    default: {
      const never: never = exchange
      throw new Error(`unknown exchange ${String(never)}`)
    }
  }
}
