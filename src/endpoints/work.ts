// How much work a call asks for, estimated from its parameters before anything runs: the stored rows it reads and
// computes over (docs/operations.md#heavy-calls). An operation is heavy from HEAVY_WORK_ROWS, summed over its fields
// (src/graphql/heavy-calls.ts); a call that cannot be parsed counts nothing (it fails before any work).
import { EXCHANGE_IDS } from '../domain/exchanges.js'
import { windowOf, type WindowValues } from '../domain/series.js'
import { HOUR_MS, MINUTE_MS } from '../domain/time.js'
import { INTERVAL_MS, type Interval } from '../domain/windows.js'

/** the venues a call reads: one when it names an exchange */
export const venuesOf = (v: { exchange?: string }): number => (v.exchange ? 1 : EXCHANGE_IDS.length)

/** the rows one venue's stored series at `resolutionMs` holds over the call's window */
export function windowRows(v: WindowValues & Record<string, unknown>, now: number, resolutionMs: number): number {
  const { start, end } = windowOf(v, now)
  return Math.max(0, Math.ceil((end - start) / resolutionMs))
}

/** what candle reads take for an interval: 1-minute rows below an hour, hourly rollups from it */
export const candleResolution = (interval: Interval): number => (INTERVAL_MS[interval] >= HOUR_MS ? HOUR_MS : MINUTE_MS)

/** samples (open interest, mark and index) are stored a minute apart and bucketed by the store, whatever the interval */
export const SAMPLE_RESOLUTION_MS = MINUTE_MS

/**
 * What a modelled hour costs against a stored row: the liquidation map and the backtest evaluate every hour of their
 * build-up or window over many leverage classes or signals (measured: a year's heatmap, 44,000 venue-hours, ~3 s)
 */
export const MODEL_HOUR_ROWS = 20

/** a candle with its volume at price counts as this many rows (tens of price levels each) */
export const VAP_ROW_ROWS = 20
