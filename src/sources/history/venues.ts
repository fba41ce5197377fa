// Which history fetcher and budget each venue has, built on its live connector (the same CCXT instances, markets and
// base URLs), and how the venue's answers say "stop". A venue without one has no backfill and its polls are not
// budgeted.
import type { ExchangeId } from '../../domain/exchanges.js'
import type { ExchangeConnector } from '../connectors/connector.js'
import { BinanceHistory } from './binance.js'
import { BybitHistory } from './bybit.js'
import type { Draw, VenueLimits } from './budget.js'
import { httpStopRule, type StopRule } from './ccxt-budget.js'
import { DydxHistory } from './dydx.js'
import { HyperliquidHistory } from './hyperliquid.js'
import { BINANCE_LIMITS, BYBIT_LIMITS, DYDX_LIMITS, HYPERLIQUID_LIMITS, OKX_LIMITS, binanceDraws, bybitDraws, dydxDraws, hyperliquidDraws, okxDraws } from './limits.js'
import { OkxHistory } from './okx.js'
import type { PayingVenueHistory } from './runner.js'
import { bybitStopRule, dydxStopRule, okxStopRule } from './venue-stops.js'

export interface VenueHistorySetup {
  limits: VenueLimits
  /** what one of the connector's CCXT calls costs (CCXT's api and path, and its own cost of the call) */
  price: (api: string, path: string, ccxtCost: number) => Draw[]
  /** how the venue's answers say "stop" (rate limited, banned) */
  stop: StopRule
  history: (c: ExchangeConnector, now: () => number) => PayingVenueHistory
}

/** the perp instance of a connector (Bybit and OKX serve spot on the same one) */
const perpOf = (c: ExchangeConnector) => c.exchangeFor('perp')!

const SETUPS: Record<ExchangeId, VenueHistorySetup> = {
  binance: {
    limits: BINANCE_LIMITS,
    price: binanceDraws,
    stop: httpStopRule,
    history: (c, now) => new BinanceHistory({ perp: c.exchangeFor('perp')!, spot: c.exchangeFor('spot'), markets: () => c.markets(), now }),
  },
  bybit: { limits: BYBIT_LIMITS, price: bybitDraws, stop: bybitStopRule, history: (c, now) => new BybitHistory({ ex: perpOf(c), markets: () => c.markets(), now }) },
  okx: { limits: OKX_LIMITS, price: okxDraws, stop: okxStopRule, history: (c, now) => new OkxHistory({ ex: perpOf(c), markets: () => c.markets(), now }) },
  hyperliquid: { limits: HYPERLIQUID_LIMITS, price: hyperliquidDraws, stop: httpStopRule, history: (c, now) => new HyperliquidHistory({ ex: perpOf(c), markets: () => c.markets(), now }) },
  dydx: { limits: DYDX_LIMITS, price: dydxDraws, stop: dydxStopRule, history: (c, now) => new DydxHistory({ ex: perpOf(c), markets: () => c.markets(), now }) },
}

export const historySetup = (venue: ExchangeId): VenueHistorySetup | undefined => SETUPS[venue]
