// Entry point: which connectors MARKET_SOURCE asks for, and a factory per exchange id. Importing this module
// creates nothing and opens nothing; a connector touches the network only after start().
import type { ExchangeId } from '../../domain/exchanges.js'
import { BinanceConnector } from './binance.js'
import { BybitConnector } from './bybit.js'
import type { ExchangeConnector } from './connector.js'
import type { ConnectorOptions } from './connector-options.js'
import { DydxConnector } from './dydx.js'
import { HyperliquidConnector } from './hyperliquid.js'
import { OkxConnector } from './okx.js'

export type { ConnectorOptions } from './connector-options.js'
export { DEFAULT_POLL_INTERVALS } from './connector-options.js'
export { ExchangeConnector } from './connector.js'
export { BinanceConnector, BybitConnector, DydxConnector, HyperliquidConnector, OkxConnector }

export { MarketSourceError, parseMarketSource } from './source.js'

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
