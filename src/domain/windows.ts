// Candle intervals and lookback windows: the names callers use and their lengths.
import { z } from 'zod'

const MINUTE = 60_000
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

export const INTERVALS = ['1m', '5m', '15m', '1h', '4h', '1d'] as const
export const Interval = z.enum(INTERVALS)
export type Interval = z.infer<typeof Interval>

const LOOKBACKS = ['1h', '4h', '24h', '7d', '30d'] as const
export const Lookback = z.enum(LOOKBACKS)
export type Lookback = z.infer<typeof Lookback>

/** whole-hour intervals: all a model of hourly data is read at (the regime history, the liquidation heatmap) */
export const HourlyInterval = z.enum(['1h', '4h', '1d'] as const satisfies readonly Interval[])

export const INTERVAL_MS: Readonly<Record<Interval, number>> = { '1m': MINUTE, '5m': 5 * MINUTE, '15m': 15 * MINUTE, '1h': HOUR, '4h': 4 * HOUR, '1d': DAY }
export const LOOKBACK_MS: Readonly<Record<Lookback, number>> = { '1h': HOUR, '4h': 4 * HOUR, '24h': DAY, '7d': 7 * DAY, '30d': 30 * DAY }

/** the signal backtest's own windows (/v1/signals/backtest): 90d is longer than any shared Lookback */
export const BacktestLookback = z.enum(['7d', '30d', '90d'])
export const BACKTEST_LOOKBACK_MS: Readonly<Record<z.infer<typeof BacktestLookback>, number>> = { '7d': 7 * DAY, '30d': 30 * DAY, '90d': 90 * DAY }

/** an interval longer than the lookback is an invalid parameter (docs/contract.md) */
export const intervalFitsLookback = (interval: Interval, lookback: Lookback): boolean => INTERVAL_MS[interval] <= LOOKBACK_MS[lookback]
