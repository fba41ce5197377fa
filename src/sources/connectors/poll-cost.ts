// What the live connectors' REST polls cost each venue, and the poll plan that keeps them inside its documented limits
// (docs/performance.md#what-a-coin-costs). A loop makes a fixed number of bulk calls per poll, or one (or a few) per
// market; each limit group is one of the venue's per-IP limits, counted in its own unit (Binance and Hyperliquid
// weights, requests elsewhere). The request counts per poll are those of the connectors' code
// (test/sources/connectors/poll-cost.test.ts counts them on the real connectors).
import type { ExchangeId } from '../../domain/exchanges.js'
import { DEFAULT_POLL_INTERVALS, type PollIntervals } from './connector-options.js'
import type { VenueLimits } from '../history/budget.js'
import { BINANCE_LIMITS, BYBIT_LIMITS, DYDX_LIMITS, HYPERLIQUID_LIMITS } from '../history/limits.js'

type Loop = keyof PollIntervals | 'hourly' | 'fundingInfo'

interface Call {
  /** the venue's endpoint */
  endpoint: string
  loop: Loop
  /** the limit group it counts against */
  group: string
  /** calls per poll: a fixed number, or per perp market */
  per: 'poll' | 'perp'
  count: number
  /** made only when the venue's spot markets are followed (the CEXes' spot tickers) */
  spot?: true
  /** units (weight) of one call in its group; a function of the markets asked for where the venue weighs by it */
  weight: number | ((spots: number) => number)
}

interface Group {
  /** units per minute (per IP) */
  limit: number
  unit: 'weight' | 'requests'
  source: string
}

interface VenueCost {
  groups: Record<string, Group>
  calls: Call[]
}

const MINUTE = 60_000

/**
 * A limit group from the venue's documented pool (history/limits.ts, the one place each limit is written, with its
 * source), counted per minute: the history budget and the poll plan read the same numbers.
 */
function pool(limits: VenueLimits, name: string, unit: Group['unit'], what: string): Group {
  const p = limits.pools.find((x) => x.name === name)
  if (!p) throw new Error(`${limits.venue} has no documented pool ${name}`)
  return { limit: (p.limit * MINUTE) / p.windowMs, unit, source: `${what}: ${p.limit} per ${p.windowMs / 1000} s per IP (${p.source})` }
}
const FUNDING_INFO_MS = 10 * MINUTE
const HOUR = 60 * MINUTE

/** the venues' documented REST limits (history/limits.ts; OKX's per-endpoint limits of the endpoints only the polls use are here) and the calls the connectors make (src/sources/connectors/<venue>.ts) */
export const VENUE_COSTS: Record<ExchangeId, VenueCost> = {
  binance: {
    groups: {
      fapi: pool(BINANCE_LIMITS, 'fapi', 'weight', 'USD-M REQUEST_WEIGHT'),
      'fapi funding': pool(BINANCE_LIMITS, 'fapi_funding', 'requests', 'GET /fapi/v1/fundingRate with /fapi/v1/fundingInfo'),
      'futures/data': pool(BINANCE_LIMITS, 'futures_data', 'requests', 'GET /futures/data/*'),
      spot: pool(BINANCE_LIMITS, 'spot', 'weight', 'spot REQUEST_WEIGHT'),
    },
    calls: [
      { endpoint: 'GET /fapi/v1/premiumIndex (all symbols)', loop: 'tickerMs', group: 'fapi', per: 'poll', count: 1, weight: 10 },
      { endpoint: 'GET /api/v3/ticker/24hr?symbols=[…]', loop: 'tickerMs', group: 'spot', per: 'poll', count: 1, spot: true, weight: (spots) => (spots <= 20 ? 2 : spots <= 100 ? 40 : 80) },
      { endpoint: 'GET /fapi/v1/fundingInfo', loop: 'fundingInfo', group: 'fapi funding', per: 'poll', count: 1, weight: 1 },
      { endpoint: 'GET /fapi/v1/openInterest', loop: 'openInterestMs', group: 'fapi', per: 'perp', count: 1, weight: 1 },
      { endpoint: 'GET /fapi/v1/fundingRate', loop: 'fundingMs', group: 'fapi funding', per: 'perp', count: 1, weight: 1 },
      { endpoint: 'GET /futures/data/globalLongShortAccountRatio, topLongShortPositionRatio', loop: 'positioningMs', group: 'futures/data', per: 'perp', count: 2, weight: 1 },
    ],
  },
  bybit: {
    groups: { ip: pool(BYBIT_LIMITS, 'ip', 'requests', 'v5 REST') },
    calls: [
      { endpoint: 'GET /v5/market/tickers?category=linear (tickers and open interest)', loop: 'tickerMs', group: 'ip', per: 'poll', count: 1, weight: 1 },
      { endpoint: 'GET /v5/market/tickers?category=spot', loop: 'tickerMs', group: 'ip', per: 'poll', count: 1, spot: true, weight: 1 },
      { endpoint: 'GET /v5/market/funding/history', loop: 'fundingMs', group: 'ip', per: 'perp', count: 1, weight: 1 },
      { endpoint: 'GET /v5/market/account-ratio', loop: 'positioningMs', group: 'ip', per: 'perp', count: 1, weight: 1 },
      { endpoint: 'GET /v5/market/risk-limit', loop: 'hourly', group: 'ip', per: 'perp', count: 1, weight: 1 },
    ],
  },
  okx: {
    // per endpoint and IP (OKX v5 docs; CCXT's okx cost table: cost 1 = 20 requests per 2 s)
    groups: {
      'market/tickers': { limit: 600, unit: 'requests', source: '20 requests per 2 s' },
      'public/mark-price': { limit: 300, unit: 'requests', source: '10 requests per 2 s' },
      'market/index-tickers': { limit: 600, unit: 'requests', source: '20 requests per 2 s' },
      'public/funding-rate': { limit: 300, unit: 'requests', source: '10 requests per 2 s' },
      'public/open-interest': { limit: 600, unit: 'requests', source: '20 requests per 2 s' },
      'public/funding-rate-history': { limit: 300, unit: 'requests', source: '10 requests per 2 s' },
      'market/books-full': { limit: 300, unit: 'requests', source: '10 requests per 2 s' },
      'rubik long-short': { limit: 150, unit: 'requests', source: '5 requests per 2 s' },
      'public/position-tiers': { limit: 300, unit: 'requests', source: '10 requests per 2 s' },
    },
    calls: [
      { endpoint: 'GET /api/v5/market/tickers?instType=SWAP', loop: 'tickerMs', group: 'market/tickers', per: 'poll', count: 1, weight: 1 },
      { endpoint: 'GET /api/v5/market/tickers?instType=SPOT', loop: 'tickerMs', group: 'market/tickers', per: 'poll', count: 1, spot: true, weight: 1 },
      { endpoint: 'GET /api/v5/public/mark-price?instType=SWAP', loop: 'tickerMs', group: 'public/mark-price', per: 'poll', count: 1, weight: 1 },
      { endpoint: 'GET /api/v5/market/index-tickers?quoteCcy=USDT', loop: 'tickerMs', group: 'market/index-tickers', per: 'poll', count: 1, weight: 1 },
      { endpoint: 'GET /api/v5/public/funding-rate?instId=ANY', loop: 'tickerMs', group: 'public/funding-rate', per: 'poll', count: 1, weight: 1 },
      { endpoint: 'GET /api/v5/public/open-interest', loop: 'openInterestMs', group: 'public/open-interest', per: 'perp', count: 1, weight: 1 },
      { endpoint: 'GET /api/v5/public/funding-rate-history', loop: 'fundingMs', group: 'public/funding-rate-history', per: 'perp', count: 1, weight: 1 },
      { endpoint: 'GET /api/v5/market/books-full?sz=5000', loop: 'wideBookMs', group: 'market/books-full', per: 'perp', count: 1, weight: 1 },
      { endpoint: 'GET /api/v5/rubik/stat/contracts/long-short-account-ratio-contract', loop: 'positioningMs', group: 'rubik long-short', per: 'perp', count: 1, weight: 1 },
      { endpoint: 'GET /api/v5/public/position-tiers', loop: 'hourly', group: 'public/position-tiers', per: 'perp', count: 1, weight: 1 },
    ],
  },
  hyperliquid: {
    groups: { info: pool(HYPERLIQUID_LIMITS, 'ip', 'weight', 'POST /info weight (l2Book 2, fundingHistory 20 + 1 per 20 rows, others 20)') },
    calls: [
      { endpoint: 'POST /info metaAndAssetCtxs (tickers)', loop: 'tickerMs', group: 'info', per: 'poll', count: 1, weight: 20 },
      { endpoint: 'POST /info metaAndAssetCtxs (open interest)', loop: 'openInterestMs', group: 'info', per: 'poll', count: 1, weight: 20 },
      // startTime = now − 10 h: 10 hourly rows, under the 20 that add weight
      { endpoint: 'POST /info fundingHistory', loop: 'fundingMs', group: 'info', per: 'perp', count: 1, weight: 20 },
      { endpoint: 'POST /info l2Book nSigFigs 4, 3, 2', loop: 'wideBookMs', group: 'info', per: 'perp', count: 3, weight: 2 },
      { endpoint: 'POST /info meta (margin tables)', loop: 'hourly', group: 'info', per: 'poll', count: 1, weight: 20 },
    ],
  },
  dydx: {
    groups: { indexer: pool(DYDX_LIMITS, 'indexer', 'requests', 'indexer') },
    calls: [
      { endpoint: 'GET /v4/perpetualMarkets (tickers and open interest)', loop: 'tickerMs', group: 'indexer', per: 'poll', count: 1, weight: 1 },
      { endpoint: 'GET /v4/historicalFunding/{market}', loop: 'fundingMs', group: 'indexer', per: 'perp', count: 1, weight: 1 },
      { endpoint: 'GET /v4/perpetualMarkets (margin fractions)', loop: 'hourly', group: 'indexer', per: 'poll', count: 1, weight: 1 },
    ],
  },
}

const SPOT_VENUES = new Set<ExchangeId>(['binance', 'bybit', 'okx'])

function intervalOf(loop: Loop, i: PollIntervals): number {
  return loop === 'hourly' ? HOUR : loop === 'fundingInfo' ? FUNDING_INFO_MS : i[loop]
}

export interface GroupUse {
  group: string
  limit: number
  unit: Group['unit']
  /** units per minute: the bulk calls', and those that grow with the coins */
  fixed: number
  perCoins: number
  source: string
}

/** units per minute each limit group takes for `coins` coins (perps, and as many spot markets on the CEXes) at these intervals */
export function restUse(venue: ExchangeId, coins: number, intervals: PollIntervals = DEFAULT_POLL_INTERVALS): GroupUse[] {
  const v = VENUE_COSTS[venue]
  const spots = SPOT_VENUES.has(venue) ? coins : 0
  return Object.entries(v.groups).map(([group, g]) => {
    let fixed = 0
    let perCoins = 0
    for (const c of v.calls.filter((x) => x.group === group && (!x.spot || spots > 0))) {
      const n = c.per === 'poll' ? c.count : c.count * coins
      const units = (n * (typeof c.weight === 'number' ? c.weight : c.weight(spots)) * MINUTE) / intervalOf(c.loop, intervals)
      if (c.per === 'poll') fixed += units
      else perCoins += units
    }
    return { group, limit: g.limit, unit: g.unit, fixed, perCoins, source: g.source }
  })
}

/** requests per minute the venue's polls make for `coins` coins, at these intervals */
export function requestsPerMinute(venue: ExchangeId, coins: number, intervals: PollIntervals = DEFAULT_POLL_INTERVALS): number {
  const spots = SPOT_VENUES.has(venue) ? coins : 0
  return VENUE_COSTS[venue].calls.filter((c) => !c.spot || spots > 0).reduce((a, c) => a + ((c.per === 'poll' ? c.count : c.count * coins) * MINUTE) / intervalOf(c.loop, intervals), 0)
}

/** the share of each limit the live polls may take: the rest is left to history backfill, gap repair and probes */
export const LIVE_POLL_SHARE = 0.8

/** the most coins a venue's polls can follow at these intervals within LIVE_POLL_SHARE of every limit */
export function maxCoins(venue: ExchangeId, intervals: PollIntervals = DEFAULT_POLL_INTERVALS): number {
  let n = 0
  while (n < 100_000 && restUse(venue, n + 1, intervals).every((g) => g.fixed + g.perCoins <= LIVE_POLL_SHARE * g.limit)) n++
  return n
}

/**
 * The poll intervals for `coins` coins on this venue: the defaults, with the loops whose calls grow with the coins
 * slowed down (never sped up) until every limit group stays within LIVE_POLL_SHARE. With the default 12 coins nothing
 * changes on any venue; COINS=all slows the per-market polls (funding history, open interest, wide books,
 * positioning) of the venues whose limits the universe would exceed.
 */
export function plannedIntervals(venue: ExchangeId, coins: number, base: PollIntervals = DEFAULT_POLL_INTERVALS): PollIntervals {
  const out = { ...base }
  const spots = SPOT_VENUES.has(venue) ? coins : 0
  for (const g of restUse(venue, coins, base)) {
    if (g.fixed + g.perCoins <= LIVE_POLL_SHARE * g.limit) continue
    const calls = VENUE_COSTS[venue].calls.filter((x) => x.group === g.group && x.per !== 'poll')
    const adjustable = calls.filter((c) => c.loop in base)
    const unitsOf = (c: Call) => (c.count * coins * (typeof c.weight === 'number' ? c.weight : c.weight(spots)) * MINUTE) / intervalOf(c.loop, base)
    const slow = adjustable.reduce((a, c) => a + unitsOf(c), 0)
    // what the loops that cannot be slowed (hourly) and the bulk calls leave to the per-market polls
    const room = LIVE_POLL_SHARE * g.limit - g.fixed - (g.perCoins - slow)
    // every per-market loop of the group slowed by the same factor, to at least one poll a day whatever the universe
    const factor = room > 0 ? slow / room : Infinity
    for (const c of adjustable) {
      const loop = c.loop as keyof PollIntervals
      out[loop] = Math.max(out[loop], Math.min(24 * HOUR, Math.ceil(base[loop] * factor)))
    }
  }
  return out
}
