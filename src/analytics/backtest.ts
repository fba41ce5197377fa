// Backtest of the published signals over stored history (docs/methodology.md#signal-backtest): for each signal, its
// events (the hours it switched on), and per horizon the hit rate and mean forward return with 95 % confidence
// intervals, against a no-signal baseline of every hour in the window with the same mix of directions.
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
  /** events with a close `hours` after them */
  n: number
  /** share of events whose forward return had the signal's sign; null for a signal without a direction */
  hitRate: number | null
  /** Wilson 95 % interval of the hit rate */
  hitRateCi: [number, number] | null
  /** mean forward return, signed by the direction (bullish +, bearish −; raw without a direction) */
  meanReturn: number | null
  /** mean ± 1.96 standard errors */
  meanReturnCi: [number, number] | null
  /** the same figures for every hour of the window, with the events' mix of directions */
  baselineHitRate: number | null
  baselineMeanReturn: number | null
}

export interface SignalBacktest {
  signal: string
  events: number
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

function wilson(hits: number, n: number): [number, number] | null {
  if (n === 0) return null
  const p = hits / n
  const d = 1 + (Z95 * Z95) / n
  const c = p + (Z95 * Z95) / (2 * n)
  const m = Z95 * Math.sqrt((p * (1 - p)) / n + (Z95 * Z95) / (4 * n * n))
  return [(c - m) / d, (c + m) / d]
}

function meanCi(xs: readonly number[]): { mean: number | null; ci: [number, number] | null } {
  const n = xs.length
  if (!n) return { mean: null, ci: null }
  const mean = xs.reduce((s, x) => s + x, 0) / n
  if (n < 2) return { mean, ci: null }
  const sd = Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (n - 1))
  const se = sd / Math.sqrt(n)
  return { mean, ci: [mean - Z95 * se, mean + Z95 * se] }
}

/**
 * The table row of one signal. `closes`: hourly closes by hour start; `window`: the hours [from, to) the baseline
 * and the events are taken from. A forward return at h hours is close(ts + h) / close(ts) − 1 (both must exist).
 */
export function backtestSignal(signal: string, events: readonly SignalHour[], closes: ReadonlyMap<number, number>, window: { from: number; to: number }): SignalBacktest {
  const fwd = (ts: number, h: number): number | null => {
    const a = closes.get(ts)
    const b = closes.get(ts + h * HOUR)
    return a !== undefined && b !== undefined && a > 0 ? b / a - 1 : null
  }
  const directional = events.some((e) => e.direction !== 'none')
  const horizons = BACKTEST_HORIZON_HOURS.map((h): HorizonStats => {
    const rs: { r: number; sign: number }[] = []
    for (const e of events) {
      const r = fwd(e.ts, h)
      if (r !== null) rs.push({ r, sign: e.direction === 'bearish' ? -1 : 1 })
    }
    const base: number[] = []
    for (let ts = window.from; ts < window.to; ts += HOUR) {
      const r = fwd(ts, h)
      if (r !== null) base.push(r)
    }
    const signed = rs.map((x) => x.r * x.sign)
    const m = meanCi(signed)
    const hits = signed.filter((x) => x > 0).length
    const bearShare = rs.length ? rs.filter((x) => x.sign < 0).length / rs.length : 0
    const up = base.length ? base.filter((x) => x > 0).length / base.length : null
    const down = base.length ? base.filter((x) => x < 0).length / base.length : null
    const baseMean = base.length ? base.reduce((s, x) => s + x, 0) / base.length : null
    return {
      hours: h,
      n: rs.length,
      hitRate: directional && rs.length ? hits / rs.length : null,
      hitRateCi: directional ? wilson(hits, rs.length) : null,
      meanReturn: m.mean,
      meanReturnCi: m.ci,
      baselineHitRate: directional && up !== null && down !== null ? (1 - bearShare) * up + bearShare * down : null,
      baselineMeanReturn: baseMean === null ? null : directional ? (1 - 2 * bearShare) * baseMean : baseMean,
    }
  })
  return { signal, events: events.length, horizons }
}
