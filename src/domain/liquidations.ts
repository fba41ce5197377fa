// Which venues publish liquidations and positioning ratios, and where from (docs/methodology.md#liquidations,
// #positioning). Hyperliquid publishes no public liquidation feed; the DEXs publish no positioning ratios.
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

/** complete: every liquidation is published; sample: only some are, so sums are a lower bound; none: no feed */
export type LiquidationCompleteness = 'complete' | 'sample' | 'none'

interface LiquidationFeedInfo extends FeedInfo {
  completeness: LiquidationCompleteness
}

export const LIQUIDATION_FEEDS: Record<ExchangeId, LiquidationFeedInfo> = {
  binance: { published: true, completeness: 'sample', source: 'USD-M WebSocket <symbol>@forceOrder', note: 'a snapshot stream: at most one order per symbol per second is pushed, so sums are a lower bound' },
  bybit: { published: true, completeness: 'complete', source: 'v5 WebSocket allLiquidation.{symbol}', note: null },
  okx: { published: true, completeness: 'sample', source: 'v5 WebSocket liquidation-orders (SWAP)', note: 'prices are bankruptcy prices' },
  hyperliquid: { published: false, completeness: 'none', source: null, note: 'Hyperliquid publishes no public liquidation feed' },
  dydx: { published: true, completeness: 'complete', source: 'v4 indexer v4_trades, trades of type LIQUIDATED', note: 'deleveraging (DELEVERAGED) is not counted' },
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
