// Divergence signals: price against OI, CVD and funding, and spot CVD against perp CVD, on 1 h and 4 h windows.
// Methodology and limits: docs/methodology.md#divergence.

import { mean, stdev, zScore } from './stats.js'

export const DIVERGENCE_PAIRS = ['oi_price', 'cvd_price', 'funding_price', 'spot_perp_cvd'] as const
export type DivergencePair = (typeof DIVERGENCE_PAIRS)[number]
export const DIVERGENCE_TIMEFRAMES = ['1h', '4h'] as const
export type DivergenceTimeframe = (typeof DIVERGENCE_TIMEFRAMES)[number]
export const TIMEFRAME_MINUTES: Record<DivergenceTimeframe, number> = { '1h': 60, '4h': 240 }

/** history: the previous 120 non-overlapping windows of the same length (5 days for 1h, 20 days for 4h) */
export const DIVERGENCE_HISTORY_WINDOWS = 120
/** fewest history windows (with both legs present) for a z-score: one day of 1h windows */
export const DIVERGENCE_MIN_POINTS = 24
/** |z| at or above which a divergence with a direction is active */
export const DIVERGENCE_Z_THRESHOLD = 2
/** a leg counts as moving up/down when its standardized change is at least this far from its mean, else flat */
export const DIVERGENCE_MOVE_Z = 0.5

export type DivergenceDirection = 'bullish' | 'bearish' | 'none'
export type DivergenceSeries = 'price' | 'open_interest' | 'cvd' | 'funding_rate' | 'spot_cvd' | 'perp_cvd'

/** one minute of a coin's aggregate market; the caller merges exchanges */
export interface DivergenceMinute {
  /** minute open, Unix ms */
  ts: number
  /** perp close (composite across exchanges) */
  price: number | null
  /** aggregate one-sided open interest, coins */
  openInterest: number | null
  /** OI-weighted funding rate normalized to 8 h */
  fundingRate: number | null
  /** perp taker volumes, coins */
  perpBuyVolume: number
  perpSellVolume: number
  /** spot taker volumes, coins; null where the coin has no spot data */
  spotBuyVolume: number | null
  spotSellVolume: number | null
}

export interface DivergenceLeg {
  series: DivergenceSeries
  /** change over the window: log change for price and OI, difference for funding, net taker flow (coins) for CVD */
  change: number | null
  /** the change standardized against its own history of changes */
  z: number | null
}

export interface DivergenceSignal {
  pair: DivergencePair
  timeframe: DivergenceTimeframe
  direction: DivergenceDirection
  /** z of the divergence against its own history; null with reason when it cannot be computed */
  zScore: number | null
  active: boolean
  /** d = z(first leg) - z(second leg) for the current window */
  divergence: number | null
  legs: [DivergenceLeg, DivergenceLeg]
  /** history windows used */
  points: number
  reason: string | null
}

export interface CoinDivergence {
  coin: string
  /** end of the last minute used, Unix ms; null without data */
  asOf: number | null
  /** 8 entries: every pair on 1h then 4h */
  pairs: DivergenceSignal[]
}

const MINUTE = 60_000

/** minutes of history a full computation needs */
export function divergenceLookbackMinutes(timeframe: DivergenceTimeframe = '4h'): number {
  return (DIVERGENCE_HISTORY_WINDOWS + 1) * TIMEFRAME_MINUTES[timeframe] + 1
}

const PAIR_LEGS: Record<DivergencePair, [DivergenceSeries, DivergenceSeries]> = {
  oi_price: ['price', 'open_interest'],
  cvd_price: ['price', 'cvd'],
  funding_price: ['price', 'funding_rate'],
  spot_perp_cvd: ['spot_cvd', 'perp_cvd'],
}

// Standard readings; a = first leg, b = second, each -1 (down), 0 (flat) or +1 (up).
function readDirection(pair: DivergencePair, a: number, b: number): DivergenceDirection {
  switch (pair) {
    case 'oi_price': // rally on short covering, or shorts piling into a decline
      return (a > 0 && b < 0) || (a < 0 && b > 0) ? 'bearish' : 'none'
    case 'cvd_price': // aggressive buying absorbed on the way down / rally without buyers
      return a < 0 && b > 0 ? 'bullish' : a > 0 && b < 0 ? 'bearish' : 'none'
    case 'funding_price': // crowded longs paying up without price, or a rally shorts keep paying to fade
      return a <= 0 && b > 0 ? 'bearish' : a > 0 && b < 0 ? 'bullish' : 'none'
    case 'spot_perp_cvd': // spot-led buying is sturdier than perp-led buying
      return a > 0 && b < 0 ? 'bullish' : a < 0 && b > 0 ? 'bearish' : 'none'
  }
}

/** the coin's 8 divergence signals from its 1-minute series (oldest first; gaps are forward-filled) */
export function computeDivergence(coin: string, minutes: readonly DivergenceMinute[]): CoinDivergence {
  const grid = toGrid(minutes)
  const pairs: DivergenceSignal[] = []
  for (const timeframe of DIVERGENCE_TIMEFRAMES) {
    for (const pair of DIVERGENCE_PAIRS) pairs.push(signal(grid, pair, timeframe))
  }
  return { coin, asOf: grid ? grid.t0 + grid.n * MINUTE : null, pairs }
}

interface Grid {
  t0: number
  n: number
  price: Float64Array
  oi: Float64Array
  funding: Float64Array
  /** cumulative taker buy - sell through minute i */
  perpCvd: Float64Array
  spotCvd: Float64Array | null
}

// Minute grid from first to last ts: levels forward-filled (NaN before the first value), flows zero-filled.
function toGrid(minutes: readonly DivergenceMinute[]): Grid | null {
  const rows = minutes.filter((m) => Number.isFinite(m.ts))
  if (rows.length === 0) return null
  if (rows.some((m, i) => i > 0 && m.ts < rows[i - 1]!.ts)) rows.sort((x, y) => x.ts - y.ts)
  const t0 = Math.floor(rows[0]!.ts / MINUTE) * MINUTE
  const n = Math.floor(rows[rows.length - 1]!.ts / MINUTE) - t0 / MINUTE + 1
  const price = new Float64Array(n).fill(NaN)
  const oi = new Float64Array(n).fill(NaN)
  const funding = new Float64Array(n).fill(NaN)
  const perpFlow = new Float64Array(n)
  const spotFlow = new Float64Array(n)
  let hasSpot = false
  for (const m of rows) {
    const i = Math.floor(m.ts / MINUTE) - t0 / MINUTE
    if (m.price != null && m.price > 0) price[i] = m.price
    if (m.openInterest != null && m.openInterest > 0) oi[i] = m.openInterest
    if (m.fundingRate != null && Number.isFinite(m.fundingRate)) funding[i] = m.fundingRate
    perpFlow[i] = perpFlow[i]! + finiteOr0(m.perpBuyVolume) - finiteOr0(m.perpSellVolume)
    if (m.spotBuyVolume != null || m.spotSellVolume != null) {
      hasSpot = true
      spotFlow[i] = spotFlow[i]! + finiteOr0(m.spotBuyVolume) - finiteOr0(m.spotSellVolume)
    }
  }
  for (const s of [price, oi, funding]) for (let i = 1; i < n; i++) if (Number.isNaN(s[i]!)) s[i] = s[i - 1]!
  return { t0, n, price, oi, funding, perpCvd: cumulate(perpFlow), spotCvd: hasSpot ? cumulate(spotFlow) : null }
}

const finiteOr0 = (x: number | null | undefined) => (x != null && Number.isFinite(x) ? x : 0)

function cumulate(flow: Float64Array): Float64Array {
  const out = new Float64Array(flow.length)
  let c = 0
  for (let i = 0; i < flow.length; i++) out[i] = c += flow[i]!
  return out
}

// Change of one series over the window ending at minute e (exclusive start e - w): null when not computable.
function change(grid: Grid, series: DivergenceSeries, e: number, w: number): number | null {
  const s = e - w
  if (s < 0) return null
  let v: number
  switch (series) {
    case 'price':
      v = Math.log(grid.price[e]! / grid.price[s]!)
      break
    case 'open_interest':
      v = Math.log(grid.oi[e]! / grid.oi[s]!)
      break
    case 'funding_rate':
      v = grid.funding[e]! - grid.funding[s]!
      break
    case 'cvd':
    case 'perp_cvd':
      v = grid.perpCvd[e]! - grid.perpCvd[s]!
      break
    case 'spot_cvd':
      if (!grid.spotCvd) return null
      v = grid.spotCvd[e]! - grid.spotCvd[s]!
      break
  }
  return Number.isFinite(v) ? v : null
}

function signal(grid: Grid | null, pair: DivergencePair, timeframe: DivergenceTimeframe): DivergenceSignal {
  const [sa, sb] = PAIR_LEGS[pair]
  const out: DivergenceSignal = {
    pair,
    timeframe,
    direction: 'none',
    zScore: null,
    active: false,
    divergence: null,
    legs: [
      { series: sa, change: null, z: null },
      { series: sb, change: null, z: null },
    ],
    points: 0,
    reason: null,
  }
  if (!grid) return { ...out, reason: 'no data' }
  const w = TIMEFRAME_MINUTES[timeframe]
  const last = grid.n - 1
  const a0 = change(grid, sa, last, w)
  const b0 = change(grid, sb, last, w)
  out.legs[0].change = a0
  out.legs[1].change = b0
  if (a0 == null || b0 == null) return { ...out, reason: `no ${a0 == null ? sa : sb} change over the current ${timeframe} window` }

  // History: earlier non-overlapping windows where both legs are known.
  const ha: number[] = []
  const hb: number[] = []
  for (let k = 1; k <= DIVERGENCE_HISTORY_WINDOWS; k++) {
    const e = last - k * w
    const a = change(grid, sa, e, w)
    const b = change(grid, sb, e, w)
    if (a != null && b != null) {
      ha.push(a)
      hb.push(b)
    }
  }
  out.points = ha.length
  const za = zScore(a0, ha, DIVERGENCE_MIN_POINTS)
  const zb = zScore(b0, hb, DIVERGENCE_MIN_POINTS)
  out.legs[0].z = za.value
  out.legs[1].z = zb.value
  if (za.value == null || zb.value == null) return { ...out, reason: `${za.value == null ? sa : sb}: ${za.reason ?? zb.reason}` }

  const d0 = za.value - zb.value
  const ma = mean(ha)
  const mb = mean(hb)
  const sda = stdev(ha)
  const sdb = stdev(hb)
  const hd = ha.map((a, i) => (a - ma) / sda - (hb[i]! - mb) / sdb)
  const z = zScore(d0, hd, DIVERGENCE_MIN_POINTS)
  out.divergence = d0
  out.direction = readDirection(pair, moveSign(za.value), moveSign(zb.value))
  out.zScore = z.value
  out.reason = z.reason
  out.active = z.value != null && Math.abs(z.value) >= DIVERGENCE_Z_THRESHOLD && out.direction !== 'none'
  return out
}

const moveSign = (z: number) => (z >= DIVERGENCE_MOVE_Z ? 1 : z <= -DIVERGENCE_MOVE_Z ? -1 : 0)
