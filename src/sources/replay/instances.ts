// The CCXT instances a venue's connector runs on: the same ccxt.pro classes the connectors create for themselves,
// made here so the recorder and the replay can hook them before the connector starts.
import ccxt, { type Exchange } from 'ccxt'
import type { ExchangeId, MarketType } from '../../domain/exchanges.js'

export interface VenueInstances {
  /** perps (and, where one class serves both, spot) */
  perp: Exchange
  /** Binance spot (CCXT `binance`; perps use `binanceusdm`) */
  spot?: Exchange
}

export function ccxtInstances(venue: ExchangeId, marketTypes?: readonly MarketType[]): VenueInstances {
  const opts = { enableRateLimit: true }
  switch (venue) {
    case 'binance':
      return { perp: new ccxt.pro.binanceusdm(opts), ...(!marketTypes || marketTypes.includes('spot') ? { spot: new ccxt.pro.binance(opts) } : {}) }
    case 'bybit':
      return { perp: new ccxt.pro.bybit(opts) }
    case 'okx':
      return { perp: new ccxt.pro.okx(opts) }
    case 'hyperliquid':
      return { perp: new ccxt.pro.hyperliquid(opts) }
    case 'dydx':
      return { perp: new ccxt.pro.dydx(opts) }
  }
}

export function instanceList(i: VenueInstances): Exchange[] {
  return i.spot ? [i.perp, i.spot] : [i.perp]
}
