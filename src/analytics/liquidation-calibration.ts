// Calibration of a venue's modelled liquidation map against the liquidations it published
// (docs/methodology.md#cascade-calibration), and the score of the model against them. The map's own build-up is
// replayed by the estimate: the positions its ranges swept in the window are what the model says was liquidated
// there. Where the venue published enough orders over the same window, the map's levels are scaled by observed /
// modelled (bounded; never down for a venue whose feed is a sample, since its observed sum is a lower bound);
// otherwise the levels are the model's alone, and the answer says so.
import type { LiquidationCompleteness } from '../domain/liquidations.js'
import { HOUR_MS } from '../domain/time.js'
import { correlation } from './liquidation-heatmap.js'

/** fewest observed orders in the window for a venue's levels to be scaled */
const MIN_CALIBRATION_ORDERS = 3
/** the scale factor is kept within [1 / BOUND, BOUND] */
const CALIBRATION_FACTOR_BOUND = 10

/** how the model's hourly liquidations compare with the venue's over the window */
export interface CalibrationScore {
  /** hours compared: the window's hours the model ran on (the venue's build-up has them) */
  hours: number
  /** observed / modelled USD over the window, unbounded; null when the venue publishes no feed or the model liquidated nothing */
  ratio: number | null
  /** Pearson correlation of the hourly modelled and observed USD; null without a feed, with fewer than 3 hours or no variance */
  correlation: number | null
  /** the venue's feed is a sample: observed is a lower bound of what it liquidated */
  lowerBound: boolean
}

export interface VenueCalibration {
  /** observed: levels compared with (and scaled by) the observed / modelled liquidations of the window; modelled: the model's alone */
  kind: 'observed' | 'modelled'
  /** the venue's feed: complete, a sample (observed is a lower bound) or none */
  completeness: LiquidationCompleteness
  /** observed liquidation orders in the window */
  orders: number
  observedUsd: number
  /** USD of the estimate's positions the window's own price ranges liquidated */
  modelledUsd: number
  /** the factor the levels were multiplied by (1 when modelled only) */
  factor: number
  reason: string
  score: CalibrationScore
}

export interface CalibrationInput {
  published: boolean
  completeness: LiquidationCompleteness
  note?: string | null
  orders: number
  observedUsd: number
  modelledUsd: number
  /** per hour of the window the model ran on: its liquidated USD and the venue's, same length */
  hourly: { modelled: readonly number[]; observed: readonly number[] }
  /** the build-up reaches a position horizon before the window: the model knows the positions open at its start */
  warmedUp: boolean
}

export function calibrateVenue(input: CalibrationInput): VenueCalibration {
  const { orders, observedUsd, modelledUsd, published } = input
  const lowerBound = input.completeness === 'sample'
  const score: CalibrationScore = {
    hours: input.hourly.modelled.length,
    ratio: published && modelledUsd > 0 ? observedUsd / modelledUsd : null,
    correlation: published ? correlation(input.hourly.modelled, input.hourly.observed) : null,
    lowerBound,
  }
  const base = { completeness: input.completeness, orders, observedUsd, modelledUsd, score }
  if (!published) return { kind: 'modelled', ...base, factor: 1, reason: input.note ?? 'the venue publishes no liquidation feed' }
  if (!input.warmedUp)
    return { kind: 'modelled', ...base, factor: 1, reason: 'the build-up starts less than a position horizon before the window: the positions open at its start are unknown, so observed / modelled is biased and scales nothing' }
  if (orders < MIN_CALIBRATION_ORDERS) return { kind: 'modelled', ...base, factor: 1, reason: `fewer than ${MIN_CALIBRATION_ORDERS} observed liquidation orders in the window` }
  if (!(modelledUsd > 0)) return { kind: 'modelled', ...base, factor: 1, reason: 'the model liquidated nothing in the window: nothing to compare the observed orders with' }
  const raw = observedUsd / modelledUsd
  if (lowerBound && raw < 1)
    return { kind: 'observed', ...base, factor: 1, reason: `observed / modelled = ${raw.toPrecision(3)}, but the venue's feed is a sample (observed is a lower bound): the levels are not scaled down` }
  const factor = Math.min(CALIBRATION_FACTOR_BOUND, Math.max(1 / CALIBRATION_FACTOR_BOUND, raw))
  const scaled = factor === raw ? 'levels scaled by observed / modelled liquidations of the window' : `observed / modelled = ${raw.toPrecision(3)}, bounded to ${factor}`
  // a sampled feed's observed USD is a lower bound of what the venue liquidated: so is the factor
  const reason = input.completeness === 'sample' ? `${scaled}; observed is a lower bound (the venue publishes a sample of its liquidations), so the factor is biased low` : scaled
  return { kind: 'observed', ...base, factor, reason }
}

/**
 * The hourly pairs of a window for the score: per build-up hour in [from, to), the model's swept USD and the
 * venue's observed USD of that hour (minutes of hours the model did not run on are in the totals only).
 */
export function hourlyPairs(hours: readonly { ts: number; sweptUsd: number }[], minutes: readonly { ts: number; usd: number }[], from: number, to: number) {
  const observedByHour = new Map<number, number>()
  for (const m of minutes) {
    const h = Math.floor(m.ts / HOUR_MS) * HOUR_MS
    observedByHour.set(h, (observedByHour.get(h) ?? 0) + m.usd)
  }
  const inWindow = hours.filter((h) => h.ts >= from && h.ts < to)
  return { modelled: inWindow.map((h) => h.sweptUsd), observed: inWindow.map((h) => observedByHour.get(h.ts) ?? 0) }
}
