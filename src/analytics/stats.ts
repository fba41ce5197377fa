// Shared statistics for every z-score and percentile the service returns.
// A statistic over too little history is null with a reason, never a made-up number.

export interface Stat {
  value: number | null
  /** why value is null: too few points, or no dispersion in the history */
  reason: string | null
  /** how many history points the statistic used */
  points: number
}

export function mean(xs: readonly number[]): number {
  let s = 0
  for (const x of xs) s += x
  return s / xs.length
}

/** sample standard deviation (n - 1) */
export function stdev(xs: readonly number[]): number {
  if (xs.length < 2) return NaN
  const m = mean(xs)
  let ss = 0
  for (const x of xs) ss += (x - m) * (x - m)
  return Math.sqrt(ss / (xs.length - 1))
}

const finite = (xs: readonly number[]) => xs.filter((x) => Number.isFinite(x))

/**
 * z = (value - mean(history)) / stdev(history).
 * history excludes the current value; minPoints is the metric's documented minimum.
 */
export function zScore(value: number | null | undefined, history: readonly number[], minPoints: number): Stat {
  const h = finite(history)
  if (value == null || !Number.isFinite(value)) return { value: null, reason: 'no current value', points: h.length }
  if (h.length < Math.max(2, minPoints))
    return { value: null, reason: `insufficient history: ${h.length} of ${Math.max(2, minPoints)} points`, points: h.length }
  const sd = stdev(h)
  if (!(sd > 0)) return { value: null, reason: 'history has no dispersion', points: h.length }
  return { value: (value - mean(h)) / sd, reason: null, points: h.length }
}

/**
 * Percentile rank of value within history, 0..100: the share of history strictly below plus half the ties
 * (the "mean" definition, so a value equal to every point ranks 50).
 */
export function percentileRank(value: number | null | undefined, history: readonly number[], minPoints: number): Stat {
  const h = finite(history)
  if (value == null || !Number.isFinite(value)) return { value: null, reason: 'no current value', points: h.length }
  if (h.length < Math.max(1, minPoints))
    return { value: null, reason: `insufficient history: ${h.length} of ${Math.max(1, minPoints)} points`, points: h.length }
  let below = 0
  let equal = 0
  for (const x of h) {
    if (x < value) below++
    else if (x === value) equal++
  }
  return { value: (100 * (below + equal / 2)) / h.length, reason: null, points: h.length }
}
