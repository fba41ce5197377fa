// Backtest of the published signals over stored history (docs/methodology.md#signal-backtest): for each signal, its
// events (the hours it switched on), and per horizon the hit rate and mean forward return net of taker fees, with 95 %
// intervals that allow for events whose horizons overlap, against a no-signal baseline with the same mix of
// directions. Only hours at which the signal had its full history count: the others are reported, not tested.
// Pure and deterministic: the same events and closes give the same table.

const BACKTEST_HORIZON_HOURS = [1, 4, 24] as const
const HOUR = 3_600_000
const Z95 = 1.959963984540054

export type SignalDirection = 'bullish' | 'bearish' | 'none'

/** one signal's state at one hour: active with a direction, or inactive */
export interface SignalHour {
  ts: number
  active: boolean
  direction: SignalDirection
}

export interface HorizonStats {
  hours: number
  /** full-history events with a close `hours` after them */
  n: number
  /** n discounted for events whose horizons overlap: n² / Σ_ij max(0, 1 − |t_i − t_j| / horizon); null without events */
  effectiveN: number | null
  /** share of events whose net forward return had the signal's sign; null for a signal without a direction */
  hitRate: number | null
  /** Wilson 95 % interval of the hit rate, at the effective n */
  hitRateCi: [number, number] | null
  /** mean forward return signed by the direction, net of the round-trip taker fee (raw, no fee, without a direction) */
  meanReturn: number | null
  /** mean ± 1.96 standard deviations / √(effective n) */
  meanReturnCi: [number, number] | null
  /** the mean signed return before fees */
  grossMeanReturn: number | null
  /** the same figures for every full-history hour of the window, with the events' mix of directions, net of the fee */
  baselineHitRate: number | null
  baselineMeanReturn: number | null
}

/** how much history a signal reads and where the stored hours it can read start */
export interface SignalHistory {
  /** hours before an hour that the signal's computation reads in full */
  hours: number
  /** the first stored hour it can read (null: none) */
  dataFrom: number | null
}

export interface SignalBacktest {
  signal: string
  /** onsets in the window */
  events: number
  /** onsets made before the signal had its full history: left out of the statistics */
  shortHistoryEvents: number
  historyHours: number
  /** the first hour of the window with the signal's full history before it; null when none has */
  fullHistoryFrom: number | null
  /** share of the window's hours that had it */
  fullHistoryShare: number
  horizons: HorizonStats[]
}

/** the hours a signal switched on: active now and not active (or another direction) the hour before */
export function onsets(hours: readonly SignalHour[]): SignalHour[] {
  const out: SignalHour[] = []
  let prev: SignalHour | null = null
  for (const h of hours) {
    const continuing = prev !== null && prev.active && prev.ts === h.ts - HOUR && prev.direction === h.direction
    if (h.active && !continuing) out.push(h)
    prev = h
  }
  return out
}

/** Wilson score interval at (effective) sample size n */
function wilson(p: number, n: number): [number, number] | null {
  if (!(n > 0)) return null
  const d = 1 + (Z95 * Z95) / n
  const c = p + (Z95 * Z95) / (2 * n)
  const m = Z95 * Math.sqrt((p * (1 - p)) / n + (Z95 * Z95) / (4 * n * n))
  return [(c - m) / d, (c + m) / d]
}

/**
 * Effective sample size of the means of h-hour forward returns started at `times`: two returns overlapping by o hours
 * share o of their h hourly steps, so with serially uncorrelated hourly returns their correlation is o / h (the
 * Bartlett weights of Newey & West), and Var(mean) = σ² Σ_ij ρ_ij / n² = σ² / n_eff.
 */
export function effectiveSampleSize(times: readonly number[], horizonMs: number): number | null {
  const n = times.length
  if (!n) return null
  const t = [...times].sort((a, b) => a - b)
  let sum = n
  for (let i = 0; i < n; i++)
    for (let j = i + 1; j < n && t[j]! - t[i]! < horizonMs; j++) sum += 2 * (1 - (t[j]! - t[i]!) / horizonMs)
  return (n * n) / sum
}

function meanCi(xs: readonly number[], nEff: number | null): { mean: number | null; ci: [number, number] | null } {
  const n = xs.length
  if (!n) return { mean: null, ci: null }
  const mean = xs.reduce((s, x) => s + x, 0) / n
  if (n < 2 || nEff === null) return { mean, ci: null }
  const sd = Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1))
  const se = sd / Math.sqrt(nEff)
  return { mean, ci: [mean - Z95 * se, mean + Z95 * se] }
}

/** the first hour of [from, to) with `hours` of stored hours before it, or null */
function fullHistoryStart(history: SignalHistory, window: { from: number; to: number }): number | null {
  if (history.dataFrom === null) return null
  const first = Math.max(window.from, history.dataFrom + history.hours * HOUR)
  return first < window.to ? first : null
}

/**
 * The table row of one signal. `closes`: hourly closes by hour start; `window`: the hours [from, to) the baseline
 * and the events are taken from; `history`: what the signal reads; `feeRoundTrip`: the taker fee paid to open and
 * close a position, as a fraction. A forward return at h hours is close(ts + h) / close(ts) − 1 (both must exist).
 */
export function backtestSignal(
  signal: string,
  events: readonly SignalHour[],
  closes: ReadonlyMap<number, number>,
  window: { from: number; to: number },
  opts: { history: SignalHistory; feeRoundTrip: number },
): SignalBacktest {
  const fwd = (ts: number, h: number): number | null => {
    const a = closes.get(ts)
    const b = closes.get(ts + h * HOUR)
    return a !== undefined && b !== undefined && a > 0 ? b / a - 1 : null
  }
  const fullFrom = fullHistoryStart(opts.history, window)
  const tested = fullFrom === null ? [] : events.filter((e) => e.ts >= fullFrom)
  const directional = events.some((e) => e.direction !== 'none')
  // a signal without a direction is no trade: no fee
  const fee = directional ? opts.feeRoundTrip : 0
  const horizons = BACKTEST_HORIZON_HOURS.map((h): HorizonStats => {
    const rs: { ts: number; r: number; sign: number }[] = []
    for (const e of tested) {
      const r = fwd(e.ts, h)
      if (r !== null) rs.push({ ts: e.ts, r, sign: e.direction === 'bearish' ? -1 : 1 })
    }
    const base: number[] = []
    if (fullFrom !== null)
      for (let ts = fullFrom; ts < window.to; ts += HOUR) {
        const r = fwd(ts, h)
        if (r !== null) base.push(r)
      }
    const gross = rs.map((x) => x.r * x.sign)
    const net = gross.map((x) => x - fee)
    const nEff = effectiveSampleSize(rs.map((x) => x.ts), h * HOUR)
    const m = meanCi(net, nEff)
    const hits = net.filter((x) => x > 0).length
    const bearShare = rs.length ? rs.filter((x) => x.sign < 0).length / rs.length : 0
    const up = base.length ? base.filter((x) => x > fee).length / base.length : null
    const down = base.length ? base.filter((x) => x < -fee).length / base.length : null
    const baseMean = base.length ? base.reduce((s, x) => s + x, 0) / base.length : null
    return {
      hours: h,
      n: rs.length,
      effectiveN: nEff,
      hitRate: directional && rs.length ? hits / rs.length : null,
      hitRateCi: directional && rs.length && nEff !== null ? wilson(hits / rs.length, nEff) : null,
      meanReturn: m.mean,
      meanReturnCi: m.ci,
      grossMeanReturn: gross.length ? gross.reduce((s, x) => s + x, 0) / gross.length : null,
      baselineHitRate: directional && up !== null && down !== null ? (1 - bearShare) * up + bearShare * down : null,
      baselineMeanReturn: baseMean === null ? null : directional ? (1 - 2 * bearShare) * baseMean - fee : baseMean,
    }
  })
  const span = window.to - window.from
  return {
    signal,
    events: events.length,
    shortHistoryEvents: events.length - tested.length,
    historyHours: opts.history.hours,
    fullHistoryFrom: fullFrom,
    fullHistoryShare: fullFrom === null || span <= 0 ? 0 : (window.to - fullFrom) / span,
    horizons,
  }
}
