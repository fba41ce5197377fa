// Which venues publish liquidations and positioning ratios, and where from (docs/methodology.md#liquidations,
// #positioning). Hyperliquid publishes no public liquidation feed; the DEXs publish no positioning ratios. Each
// liquidation feed says whether it carries every liquidation or a sample, and which price its orders carry.
import { z } from 'zod'
import type { ExchangeId } from './exchanges.js'

export const PositionSide = z.enum(['long', 'short'])
export type PositionSide = z.infer<typeof PositionSide>

export interface FeedInfo {
  published: boolean
  /** the venue's stream or endpoint, null when it publishes none */
  source: string | null
  /** what to know when reading it */
  note: string | null
}

/** complete: the venue publishes every liquidation; sample: only some (sums are a lower bound); none: no feed */
export const LiquidationCompleteness = z.enum(['complete', 'sample', 'none'])
export type LiquidationCompleteness = z.infer<typeof LiquidationCompleteness>

/** the price a venue's liquidation order carries: the order's average fill, the position's bankruptcy price, or the trade's fill */
export const LiquidationPrice = z.enum(['average_fill', 'bankruptcy', 'fill'])
export type LiquidationPrice = z.infer<typeof LiquidationPrice>

export interface LiquidationFeedInfo extends FeedInfo {
  completeness: LiquidationCompleteness
  /** the price each order carries, null without a feed */
  price: LiquidationPrice | null
  /** how an order's USD is computed from the payload's fields, null without a feed */
  usd: string | null
}

// The venues' own rules, with their sources, in docs/methodology.md#liquidations.
export const LIQUIDATION_FEEDS: Record<ExchangeId, LiquidationFeedInfo> = {
  binance: {
    published: true,
    source: 'USD-M WebSocket <symbol>@forceOrder',
    note: 'a sample: only the latest liquidation order per symbol within each 1000 ms is pushed, so sums are a lower bound',
    completeness: 'sample',
    price: 'average_fill',
    usd: 'ap × z: the order\'s average fill price times its filled quantity (coins)',
  },
  bybit: {
    published: true,
    source: 'v5 WebSocket allLiquidation.{symbol}',
    note: 'every liquidation is pushed (every 500 ms); p is the bankruptcy price, not a fill',
    completeness: 'complete',
    price: 'bankruptcy',
    usd: 'p × v: the bankruptcy price times the executed size (coins)',
  },
  okx: {
    published: true,
    source: 'v5 WebSocket liquidation-orders (SWAP)',
    note: 'a sample: OKX states the channel does not represent the total number of liquidations (at most one order per contract per second), so sums are a lower bound; bkPx is the bankruptcy price, not a fill',
    completeness: 'sample',
    price: 'bankruptcy',
    usd: 'bkPx × sz × ctVal: the bankruptcy price times the contracts times the contract value (coins)',
  },
  hyperliquid: { published: false, source: null, note: 'Hyperliquid publishes no public liquidation feed', completeness: 'none', price: null, usd: null },
  dydx: {
    published: true,
    source: 'v4 indexer v4_trades, trades of type LIQUIDATED',
    note: 'every trade of the market is pushed, so every liquidation fill matched on the book; deleveraging (DELEVERAGED) is not counted',
    completeness: 'complete',
    price: 'fill',
    usd: 'price × size of the LIQUIDATED trade (coins)',
  },
}

export const POSITIONING_FEEDS: Record<ExchangeId, FeedInfo> = {
  binance: { published: true, source: '/futures/data/globalLongShortAccountRatio and topLongShortPositionRatio (5m)', note: null },
  bybit: { published: true, source: '/v5/market/account-ratio (5min)', note: null },
  okx: { published: true, source: '/api/v5/rubik/stat/contracts/long-short-account-ratio-contract (5m)', note: 'a ratio only: the shares are derived from it' },
  hyperliquid: { published: false, source: null, note: 'a DEX: publishes no long/short ratios' },
  dydx: { published: false, source: null, note: 'a DEX: publishes no long/short ratios' },
}

export const liquidationVenues = (): ExchangeId[] => (Object.keys(LIQUIDATION_FEEDS) as ExchangeId[]).filter((e) => LIQUIDATION_FEEDS[e].published)
const positioningVenues = (): ExchangeId[] => (Object.keys(POSITIONING_FEEDS) as ExchangeId[]).filter((e) => POSITIONING_FEEDS[e].published)

/** the positioning series each venue publishes: accounts (all holders) and Binance's top traders' positions */
export const POSITIONING_KINDS: Record<ExchangeId, readonly ('account' | 'top_position')[]> = {
  binance: ['account', 'top_position'],
  bybit: ['account'],
  okx: ['account'],
  hyperliquid: [],
  dydx: [],
}
