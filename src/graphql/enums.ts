// GraphQL enum types generated from the domain's zod enums. A value's GraphQL name is its REST value in GraphQL's
// spelling (1h → H1, 30d → D30, binance → BINANCE); resolvers receive the REST value.
import type { z } from 'zod'
import { BacktestLookback, HourlyInterval, Interval, Lookback } from '../domain/windows.js'
import { ExchangeName, MarketTypeName } from '../domain/markets.js'
import { OverviewSort, SortOrder } from '../domain/screener.js'
import { PositionSide } from '../domain/liquidations.js'
import { builder } from './builder.js'

/** the GraphQL name of a REST enum value */
export const enumValueName = (v: string): string => {
  const m = /^(\d+)([a-z])$/.exec(v)
  return m ? `${m[2]!.toUpperCase()}${m[1]}` : v.toUpperCase()
}

const DOMAIN_ENUMS: [z.ZodEnum, string, string][] = [
  [Interval, 'Interval', 'Candle or bucket size (REST: 1m, 5m, 15m, 1h, 4h, 1d)'],
  [HourlyInterval, 'HourlyInterval', 'A bucket of whole hours, for models of hourly data: the regime history, the liquidation heatmap (REST: 1h, 4h, 1d)'],
  [Lookback, 'Lookback', 'How far back a window reaches (REST: 1h, 4h, 24h, 7d, 30d)'],
  [MarketTypeName, 'MarketType', 'perp or spot'],
  [ExchangeName, 'ExchangeId', 'One of the five supported exchanges'],
  [OverviewSort, 'OverviewSort', 'A column of the market overview (REST: its snake_case field name)'],
  [SortOrder, 'SortOrder', 'asc or desc'],
  [BacktestLookback, 'BacktestLookback', 'How much stored history the signal backtest tests (REST: 7d, 30d, 90d)'],
  [PositionSide, 'PositionSide', 'The side of the position a liquidation closed (REST: long, short)'],
]

const refs = new Map(
  DOMAIN_ENUMS.map(([e, name, description]) => [
    e,
    builder.enumType(name, { description, values: Object.fromEntries((e.options as string[]).map((v) => [enumValueName(v), { value: v, description: v }])) }),
  ]),
)

/** the GraphQL enum type of a domain enum */
export function enumRef(e: z.ZodEnum) {
  const ref = refs.get(e)
  if (!ref) throw new Error('no GraphQL enum for this domain enum: add it to DOMAIN_ENUMS')
  return ref
}
