// Calibration of a venue's modelled liquidation map against the liquidations it published
// (docs/methodology.md#cascade-calibration). The map's own build-up window is replayed by the estimate: the
// positions its ranges swept are what the model says was liquidated there. Where the venue published enough
// orders over the same window, the map's levels are scaled by observed / modelled (bounded); otherwise the levels
// are the model's alone, and the answer says so. A venue whose feed is a sample (LIQUIDATION_FEEDS completeness)
// observed only a lower bound of its liquidations: the answer carries its completeness and says so.
import type { LiquidationCompleteness } from '../domain/liquidations.js'

/** fewest observed orders in the window for a venue's levels to be scaled */
const MIN_CALIBRATION_ORDERS = 3
/** the scale factor is kept within [1 / BOUND, BOUND] */
const CALIBRATION_FACTOR_BOUND = 10

export interface VenueCalibration {
  /** observed: levels scaled by the observed / modelled liquidations of the window; modelled: the model's alone */
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
}

export function calibrateVenue(input: { published: boolean; completeness: LiquidationCompleteness; orders: number; observedUsd: number; modelledUsd: number; note?: string | null }): VenueCalibration {
  const { orders, observedUsd, modelledUsd } = input
  const base = { completeness: input.completeness, orders, observedUsd, modelledUsd }
  if (!input.published) return { kind: 'modelled', ...base, factor: 1, reason: input.note ?? 'the venue publishes no liquidation feed' }
  if (orders < MIN_CALIBRATION_ORDERS) return { kind: 'modelled', ...base, factor: 1, reason: `fewer than ${MIN_CALIBRATION_ORDERS} observed liquidation orders in the window` }
  if (!(modelledUsd > 0)) return { kind: 'modelled', ...base, factor: 1, reason: 'the model liquidated nothing in the window: nothing to compare the observed orders with' }
  const raw = observedUsd / modelledUsd
  const factor = Math.min(CALIBRATION_FACTOR_BOUND, Math.max(1 / CALIBRATION_FACTOR_BOUND, raw))
  const scaled = factor === raw ? 'levels scaled by observed / modelled liquidations of the window' : `observed / modelled = ${raw.toPrecision(3)}, bounded to ${factor}`
  // a sampled feed's observed USD is a lower bound of what the venue liquidated: so is the factor
  const reason = input.completeness === 'sample' ? `${scaled}; observed is a lower bound (the venue publishes a sample of its liquidations), so the factor is biased low` : scaled
  return { kind: 'observed', ...base, factor, reason }
}
