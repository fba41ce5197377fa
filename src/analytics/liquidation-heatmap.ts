// Liquidation heatmap (docs/methodology.md#liquidation-heatmap): the estimated liquidation levels of each time
// bucket (liquidation-map.ts, per venue from its own build-up and tiers) folded into price bins, and the fit of the
// model's liquidations per bucket against the observed ones.
import type { LiquidationLevel } from './liquidation-map.js'

/** bins + 1 evenly spaced edges over [center · (1 − range), center · (1 + range)] */
export function priceEdges(center: number, range: number, bins: number): number[] {
  const low = center * (1 - range)
  const step = (2 * center * range) / bins
  return Array.from({ length: bins + 1 }, (_, i) => low + i * step)
}

export interface BinnedLevels {
  longUsd: number[]
  shortUsd: number[]
  /** USD of levels outside the axis (Σ bins + outside = Σ levels) */
  outsideUsd: number
}

/** each level's USD into the bin [edge_i, edge_i+1) holding its price (the last bin includes its upper edge) */
export function binLevels(levels: readonly LiquidationLevel[], edges: readonly number[]): BinnedLevels {
  const bins = Math.max(0, edges.length - 1)
  const out: BinnedLevels = { longUsd: new Array<number>(bins).fill(0), shortUsd: new Array<number>(bins).fill(0), outsideUsd: 0 }
  // no axis (no build-up to place it): everything is outside
  if (bins < 1) return { ...out, outsideUsd: levels.reduce((s, l) => s + l.notionalUsd, 0) }
  const low = edges[0]!
  const high = edges[bins]!
  const step = (high - low) / bins
  for (const l of levels) {
    if (!(l.price >= low && l.price <= high)) {
      out.outsideUsd += l.notionalUsd
      continue
    }
    const i = Math.min(bins - 1, Math.floor((l.price - low) / step))
    ;(l.side === 'long' ? out.longUsd : out.shortUsd)[i]! += l.notionalUsd
  }
  return out
}

/** Pearson correlation of two equally long series; null with fewer than 3 pairs or no variance */
export function correlation(x: readonly number[], y: readonly number[]): number | null {
  const n = x.length
  if (n < 3 || y.length !== n) return null
  const mx = x.reduce((s, v) => s + v, 0) / n
  const my = y.reduce((s, v) => s + v, 0) / n
  let sxy = 0
  let sxx = 0
  let syy = 0
  for (let i = 0; i < n; i++) {
    sxy += (x[i]! - mx) * (y[i]! - my)
    sxx += (x[i]! - mx) ** 2
    syy += (y[i]! - my) ** 2
  }
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : null
}
