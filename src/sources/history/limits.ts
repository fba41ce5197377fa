// Each venue's documented REST limits, as budget pools (budget.ts), and what a CCXT call of the live connectors costs
// in them. docs/connectors.md ("History") lists them with their sources.
import type { Draw, VenueLimits } from './budget.js'

const MINUTE = 60_000

/** the share of each documented limit the service allows itself */
const SAFETY = 0.9

/**
 * Binance. USD-M futures: 2 400 request weight a minute per IP (klines weigh 1/2/5/10 by limit); /fapi/v1/fundingRate
 * shares 500 requests per 5 minutes per IP with /fapi/v1/fundingInfo; the /futures/data statistics (openInterestHist,
 * the long/short ratios) weigh 0 in the 2 400 and are limited to 1 000 requests per 5 minutes per IP. Spot: 6 000
 * request weight a minute per IP (klines weigh 2).
 */
export const BINANCE_LIMITS: VenueLimits = {
  venue: 'binance',
  safety: SAFETY,
  pools: [
    { name: 'fapi', limit: 2400, windowMs: MINUTE, source: 'https://developers.binance.com/docs/derivatives/usds-margined-futures/general-info' },
    { name: 'fapi_funding', limit: 500, windowMs: 5 * MINUTE, source: 'https://developers.binance.com/docs/derivatives/usds-margined-futures/market-data/rest-api/Get-Funding-Rate-History' },
    { name: 'futures_data', limit: 1000, windowMs: 5 * MINUTE, source: 'https://developers.binance.com/docs/derivatives/usds-margined-futures/market-data/rest-api/Open-Interest-Statistics' },
    { name: 'spot', limit: 6000, windowMs: MINUTE, source: 'https://developers.binance.com/docs/binance-spot-api-docs/rest-api/limits' },
  ],
}

/** Binance /fapi/v1/klines and /api/v3/klines weight by `limit` (USD-M: 1-99:1, 100-499:2, 500-1000:5, >1000:10; spot: 2) */
export function binanceKlinesWeight(market: 'perp' | 'spot', limit: number): number {
  if (market === 'spot') return 2
  return limit < 100 ? 1 : limit < 500 ? 2 : limit <= 1000 ? 5 : 10
}

/**
 * What one of the Binance connector's CCXT calls costs: CCXT's own cost of the endpoint (`calculateRateLimiterCost`,
 * which knows weights by limit and by symbol count) converted to Binance's weight. CCXT prices USD-M calls in
 * weight (its cost 1 = weight 1) and spot calls at a fifth (cost 0.4 = weight 2).
 */
export function binanceDraws(api: string, path: string, ccxtCost: number): Draw[] {
  if (api.startsWith('fapiData')) return [{ pool: 'futures_data', weight: 1 }]
  if (api.startsWith('fapi')) {
    if (path === 'fundingRate' || path === 'fundingInfo') return [{ pool: 'fapi_funding', weight: 1 }]
    return [{ pool: 'fapi', weight: ccxtCost }]
  }
  return [{ pool: 'spot', weight: Math.round(ccxtCost * 5 * 100) / 100 }]
}

/**
 * Bybit v5: 600 requests per 5-second window per IP for all REST traffic (every market endpoint counts one request);
 * beyond it Bybit answers "403, access too frequent" and the address waits at least 10 minutes. A per-UID limit
 * answers retCode 10006 with X-Bapi-Limit-Reset-Timestamp (public market data has no UID, but the code is honoured).
 */
export const BYBIT_LIMITS: VenueLimits = {
  venue: 'bybit',
  safety: SAFETY,
  pools: [{ name: 'ip', limit: 600, windowMs: 5_000, source: 'https://bybit-exchange.github.io/docs/v5/rate-limit' }],
}

/** every Bybit REST call is one request of the IP limit */
export const bybitDraws = (): Draw[] => [{ pool: 'ip', weight: 1 }]

/**
 * OKX v5 limits each endpoint on its own (per IP, or per IP and instrument: budgeted here per IP, the stricter reading).
 * The pools are the endpoints history pages draw from; the live polls of the same endpoints (funding history, the
 * long/short ratio) draw from them too, the connector's other endpoints (tickers, books, …) each have their own limit
 * that one poll per interval stays far below, and are not budgeted.
 */
export const OKX_LIMITS: VenueLimits = {
  venue: 'okx',
  safety: SAFETY,
  pools: [
    { name: 'history_candles', limit: 20, windowMs: 2_000, source: 'https://www.okx.com/docs-v5/en/#order-book-trading-market-data-get-candlesticks-history' },
    { name: 'oi_history', limit: 10, windowMs: 2_000, source: 'https://www.okx.com/docs-v5/en/#trading-statistics-rest-api-get-contract-open-interest-history' },
    { name: 'funding_history', limit: 10, windowMs: 2_000, source: 'https://www.okx.com/docs-v5/en/#public-data-rest-api-get-funding-rate-history' },
    { name: 'long_short', limit: 5, windowMs: 2_000, source: 'https://www.okx.com/docs-v5/en/#trading-statistics-rest-api-get-contract-long-short-ratio' },
  ],
}

const OKX_POOLS: Record<string, string> = {
  'market/history-candles': 'history_candles',
  'rubik/stat/contracts/open-interest-history': 'oi_history',
  'public/funding-rate-history': 'funding_history',
  'rubik/stat/contracts/long-short-account-ratio-contract': 'long_short',
}

/** an OKX call draws one request from its endpoint's pool (none for the endpoints history does not use) */
export function okxDraws(_api: string, path: string): Draw[] {
  const pool = OKX_POOLS[path]
  return pool ? [{ pool, weight: 1 }] : []
}

/**
 * Hyperliquid: 1 200 weight a minute per IP over all REST requests. Info requests weigh 20 (l2Book, allMids and a few
 * others 2), candleSnapshot 20 plus 1 per 60 candles returned, fundingHistory 20 plus 1 per 20 rows returned.
 */
export const HYPERLIQUID_LIMITS: VenueLimits = {
  venue: 'hyperliquid',
  safety: SAFETY,
  pools: [{ name: 'ip', limit: 1200, windowMs: MINUTE, source: 'https://hyperliquid.gitbook.io/hyperliquid-docs/for-developers/api/rate-limits-and-user-limits' }],
}

/** the weight of an info request returning `items` rows of an endpoint priced per `perItems` (candleSnapshot 60, fundingHistory 20) */
export const hyperliquidInfoWeight = (items: number, perItems: number): number => 20 + Math.ceil(items / perItems)

/** the most candles one candleSnapshot returns (the venue keeps the newest 5 000 per interval) */
export const HYPERLIQUID_CANDLES = 5000

/**
 * What a Hyperliquid CCXT call weighs, from CCXT's cost of it (its `byType` table: 2 for l2Book and the like, 4 for
 * candleSnapshot, 20 otherwise): candleSnapshot at its heaviest (a full 5 000 candles), the others at their base
 * weight (the per-row extra of the live polls' short answers is within the budget's safety margin).
 */
export function hyperliquidDraws(_api: string, _path: string, ccxtCost: number): Draw[] {
  return [{ pool: 'ip', weight: ccxtCost === 4 ? hyperliquidInfoWeight(HYPERLIQUID_CANDLES, 60) : ccxtCost }]
}

/** dYdX v4 indexer: 100 requests per 10 seconds per IP */
export const DYDX_LIMITS: VenueLimits = {
  venue: 'dydx',
  safety: SAFETY,
  pools: [{ name: 'indexer', limit: 100, windowMs: 10_000, source: 'https://docs.dydx.xyz/concepts/trading/limits/rate-limits' }],
}

/** every indexer call is one request */
export const dydxDraws = (): Draw[] => [{ pool: 'indexer', weight: 1 }]
