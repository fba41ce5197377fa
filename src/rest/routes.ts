// The REST shim's single source of truth: one row per /v1 analytics GET path — its credit cost, its
// parameter rules, and the stored GraphQL operation it runs. Express routes, validation, credit
// charging, GraphQL field costs and the OpenAPI document are all derived from this table.
import { type ExchangeId, hasMarket, type MarketType } from '../domain/exchanges.js'
import { invalidParameter } from '../errors.js'
import type { ParamSpec, ParamValues } from './params.js'

export const INTERVALS = ['1m', '5m', '15m', '1h', '4h', '1d'] as const
export const LOOKBACKS = ['1h', '4h', '24h', '7d', '30d'] as const
export const MARKET_TYPES = ['perp', 'spot'] as const

export const DURATION_MS: Record<string, number> = {
  '1m': 60_000, '5m': 300_000, '15m': 900_000, '1h': 3_600_000, '4h': 14_400_000, '24h': 86_400_000, '1d': 86_400_000, '7d': 604_800_000, '30d': 2_592_000_000,
}

export interface AnalyticsRoute {
  path: string
  /** GraphQL root field the stored operation selects */
  field: string
  /** stored operation: schema/operations/v1/<operation>.graphql */
  operation: string
  cost: number
  summary: string
  params: readonly ParamSpec[]
  /** rules across parameters */
  check?: (v: ParamValues) => void
}

const coin = (required: boolean, what = 'base-asset symbol, e.g. BTC (case-insensitive)'): ParamSpec => ({
  name: 'coin', kind: 'coin', required, description: required ? what : `${what}; omitted = all coins`,
})
const exchange = (what = 'one exchange; omitted = all exchanges'): ParamSpec => ({ name: 'exchange', kind: 'exchange', description: what })
const marketType: ParamSpec = { name: 'market_type', kind: 'enum', values: MARKET_TYPES, default: 'perp', description: 'perp or spot' }
const lookback: ParamSpec = { name: 'lookback', kind: 'enum', values: LOOKBACKS, default: '24h', description: 'how far back the window reaches from `end`' }
const end: ParamSpec = { name: 'end', kind: 'timestamp', description: 'Unix ms where the window ends (default now), to read imported history' }

function spotNeedsCex(v: ParamValues) {
  if (v.market_type === 'spot' && v.exchange && !hasMarket(v.exchange as ExchangeId, 'spot' as MarketType))
    throw invalidParameter('market_type', `${v.exchange} has no spot market; use market_type=perp, or a CEX (binance, bybit, okx) for spot.`, ['perp'])
}

export const ROUTES: readonly AnalyticsRoute[] = [
  {
    path: '/v1/markets/ohlc', field: 'ohlc', operation: 'ohlc', cost: 2,
    summary: 'OHLC candles resampled from 1-minute trade aggregates; one exchange, or a composite across all when exchange is omitted',
    params: [
      coin(true),
      exchange('one exchange; omitted = a composite series across every exchange listing the market (volumes summed, prices volume-weighted)'),
      { name: 'interval', kind: 'enum', values: INTERVALS, default: '1h', description: 'candle size' },
      lookback,
      marketType,
      end,
    ],
    check(v) {
      if (DURATION_MS[v.interval as string]! > DURATION_MS[v.lookback as string]!)
        throw invalidParameter('interval', `interval ${v.interval} is longer than lookback ${v.lookback}; choose an interval of at most the lookback.`, INTERVALS.filter((i) => DURATION_MS[i]! <= DURATION_MS[v.lookback as string]!))
      spotNeedsCex(v)
    },
  },
  {
    path: '/v1/structure/volume-profile', field: 'volumeProfile', operation: 'volume-profile', cost: 3,
    summary: 'Volume per price level with HVN/LVN classification, point of control and 70 % value area',
    params: [coin(true), lookback, { name: 'bins', kind: 'int', min: 1, max: 200, default: 50, description: 'number of equal-width price levels (1..200)' }, exchange(), marketType, end],
    check: spotNeedsCex,
  },
  {
    path: '/v1/signals/liquidation-cascade', field: 'liquidationCascade', operation: 'liquidation-cascade', cost: 5,
    summary: 'Simulated liquidation cascade from the current price to a trigger price (at most 5 phases; stalls at HVN zones)',
    params: [coin(true), { name: 'trigger_price', kind: 'positive-number', required: true, description: 'price that starts the cascade (> 0)' }, exchange()],
  },
  { path: '/v1/markets/exchanges', field: 'exchanges', operation: 'exchanges', cost: 1, summary: 'The five supported exchanges with type (CEX/DEX) and feed status', params: [] },
  { path: '/v1/signals/snapshot', field: 'snapshot', operation: 'snapshot', cost: 10, summary: 'All coins ranked, active divergences, regime distribution and top arbitrage', params: [] },
  { path: '/v1/signals/divergence', field: 'divergence', operation: 'divergence', cost: 5, summary: 'OI/price, CVD/price, funding/price and spot/perp CVD divergences on 1h and 4h', params: [coin(false)] },
  { path: '/v1/structure/spread', field: 'spread', operation: 'spread', cost: 3, summary: 'Cross-exchange price spread in bps with cheapest/dearest venue and z-score', params: [coin(false)] },
  { path: '/v1/funding/weighted', field: 'weightedFunding', operation: 'weighted-funding', cost: 3, summary: 'Open-interest-weighted funding rate with per-exchange rates, annualized, z-score and percentile', params: [coin(false)] },
  { path: '/v1/flow/imbalance', field: 'imbalance', operation: 'imbalance', cost: 5, summary: 'Order-book bid/ask depth and ratio within ±0.5, 1, 2, 5 % of mid, per exchange and aggregated', params: [coin(false), exchange()] },
  { path: '/v1/markets/ticker', field: 'ticker', operation: 'ticker', cost: 1, summary: 'Mark, index, funding rate and next funding time per exchange (refreshed about every 5 s)', params: [coin(false), exchange()] },
  { path: '/v1/oi/changes', field: 'oiChanges', operation: 'oi-changes', cost: 3, summary: 'Open interest per exchange and aggregated, with change % over 1h, 4h, 24h', params: [coin(false)] },
]

export const routeByField = new Map(ROUTES.map((r) => [r.field, r]))
