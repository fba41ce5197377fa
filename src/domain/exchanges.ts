// The five venues and their market types: ids, names, CEX or DEX, which markets each lists, fees and funding interval.

export const EXCHANGE_IDS = ['binance', 'bybit', 'okx', 'hyperliquid', 'dydx'] as const
export type ExchangeId = (typeof EXCHANGE_IDS)[number]
export const MARKET_TYPES = ['perp', 'spot'] as const
export type MarketType = (typeof MARKET_TYPES)[number]

type ExchangeType = 'CEX' | 'DEX'
/** the currency a venue's perp prices are in */
export type QuoteCurrency = 'USDT' | 'USDC'

export interface ExchangeInfo {
  id: ExchangeId
  name: string
  type: ExchangeType
  /** market types this venue lists */
  marketTypes: readonly MarketType[]
  /** typical taker fee as a fraction (0.0005 = 5 bps), used net of fees in arbitrage */
  takerFee: number
  /** the venue's public fee page the taker fee is read from (base tier, perps) */
  takerFeeSource: string
  /** default funding interval of its perps, hours */
  fundingIntervalHours: number
  /** quote (and settlement) currency of the perps we follow: the USDT-margined linear perps on the CEXes, USDC on the DEXes */
  quote: QuoteCurrency
}

// Taker fees are each venue's base (VIP 0 / lowest tier) perp taker fee as published in 2025.
export const EXCHANGES: readonly ExchangeInfo[] = [
  { id: 'binance', name: 'Binance', type: 'CEX', marketTypes: ['perp', 'spot'], takerFee: 0.0005, takerFeeSource: 'https://www.binance.com/en/fee/futureFee', fundingIntervalHours: 8, quote: 'USDT' },
  { id: 'bybit', name: 'Bybit', type: 'CEX', marketTypes: ['perp', 'spot'], takerFee: 0.00055, takerFeeSource: 'https://www.bybit.com/en/help-center/article/Trading-Fee-Structure', fundingIntervalHours: 8, quote: 'USDT' },
  { id: 'okx', name: 'OKX', type: 'CEX', marketTypes: ['perp', 'spot'], takerFee: 0.0005, takerFeeSource: 'https://www.okx.com/fees', fundingIntervalHours: 8, quote: 'USDT' },
  { id: 'hyperliquid', name: 'Hyperliquid', type: 'DEX', marketTypes: ['perp'], takerFee: 0.00045, takerFeeSource: 'https://hyperliquid.gitbook.io/hyperliquid-docs/trading/fees', fundingIntervalHours: 1, quote: 'USDC' },
  { id: 'dydx', name: 'dYdX', type: 'DEX', marketTypes: ['perp'], takerFee: 0.0005, takerFeeSource: 'https://docs.dydx.exchange/concepts/trading/fees', fundingIntervalHours: 1, quote: 'USDC' },
]

export const exchangeById = new Map(EXCHANGES.map((e) => [e.id, e]))

export function hasMarket(exchange: ExchangeId, marketType: MarketType): boolean {
  return exchangeById.get(exchange)!.marketTypes.includes(marketType)
}
