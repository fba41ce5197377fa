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
