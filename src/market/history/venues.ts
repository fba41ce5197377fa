// Which history fetcher and budget each venue has, built on its live connector (the same CCXT instances, markets and
// base URLs). A venue without one yet has no backfill and its polls are not budgeted.
import type { ExchangeId } from '../../domain/exchanges.js'
import type { ExchangeConnector } from '../connectors/connector.js'
import { BinanceHistory } from './binance.js'
import type { Draw, VenueLimits } from './budget.js'
import { BINANCE_LIMITS, binanceDraws } from './limits.js'
import type { PayingVenueHistory } from './runner.js'

export interface VenueHistorySetup {
  limits: VenueLimits
  /** what one of the connector's CCXT calls costs (CCXT's api and path, and its own cost of the call) */
  price: (api: string, path: string, ccxtCost: number) => Draw[]
  history: (c: ExchangeConnector, now: () => number) => PayingVenueHistory
}

const SETUPS: Partial<Record<ExchangeId, VenueHistorySetup>> = {
  binance: {
    limits: BINANCE_LIMITS,
    price: binanceDraws,
    history: (c, now) => new BinanceHistory({ perp: c.exchangeFor('perp')!, spot: c.exchangeFor('spot'), markets: () => c.markets(), now }),
  },
}

export const historySetup = (venue: ExchangeId): VenueHistorySetup | undefined => SETUPS[venue]
