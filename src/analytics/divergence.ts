// Divergence signals: price against OI, CVD and funding, and spot CVD against perp CVD, on 1 h and 4 h windows.
// Methodology and limits: docs/methodology.md#divergence.

import { EXCHANGE_IDS, type ExchangeId } from '../domain/exchanges.js'
import { mean, stdev, zScore } from './stats.js'

const DIVERGENCE_PAIRS = ['oi_price', 'cvd_price', 'funding_price', 'spot_perp_cvd'] as const
export type DivergencePair = (typeof DIVERGENCE_PAIRS)[number]
const DIVERGENCE_TIMEFRAMES = ['1h', '4h'] as const
export type DivergenceTimeframe = (typeof DIVERGENCE_TIMEFRAMES)[number]
const TIMEFRAME_MINUTES: Record<DivergenceTimeframe, number> = { '1h': 60, '4h': 240 }

/** history: the previous 120 non-overlapping windows of the same length (5 days for 1h, 20 days for 4h) */
const DIVERGENCE_HISTORY_WINDOWS = 120
/** fewest history windows (with both legs present) for a z-score: one day of 1h windows */
export const DIVERGENCE_MIN_POINTS = 24
/** |z| at or above which a divergence with a direction is active */
export const DIVERGENCE_Z_THRESHOLD = 2
/** a leg counts as moving up/down when its standardized change is at least this far from its mean, else flat */
const DIVERGENCE_MOVE_Z = 0.5

export type DivergenceDirection = 'bullish' | 'bearish' | 'none'
type DivergenceSeries = 'price' | 'open_interest' | 'cvd' | 'funding_rate' | 'spot_cvd' | 'perp_cvd'

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
  /**
   * venues whose data entered this minute, per input: price and flows = venues that traded; openInterest and
   * fundingRate = venues the step into this minute was measured over (same venues at both ends)
   */
  exchanges?: Partial<Record<VenueInput, readonly string[]>>
}

/** the inputs a minute's venue sets are given for */
type VenueInput = 'price' | 'openInterest' | 'fundingRate' | 'perp' | 'spot'

export interface DivergenceLeg {
  series: DivergenceSeries
  /** change over the window: log change for price and OI, difference for funding, net taker flow (coins) for CVD */
  change: number | null
  /** the change standardized against its own history of changes */
  z: number | null
  /** venues whose data entered the current window's change (canonical order; empty when the input names none) */
  exchanges: ExchangeId[]
}

export interface DivergenceSignal {
  pair: DivergencePair
  timeframe: DivergenceTimeframe
  direction: DivergenceDirection
  /** z of the divergence against its own history; null with reason when it cannot be computed */
  zScore: number | null
  active: boolean
  /** the quadrant's statistic for the current window: z_a + z_b when both legs move the same way, else z_a − z_b */
  divergence: number | null
  /** which of the two `divergence` is: 'sum' or 'difference'; null without both leg z */
  statistic: 'sum' | 'difference' | null
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

type Reading = DivergenceDirection
/** readings by [sign of a + 1][sign of b + 1], each leg -1 (down), 0 (flat) or +1 (up); sources in docs/methodology.md#divergence */
const READINGS: Record<DivergencePair, readonly (readonly Reading[])[]> = {
  // a = price, b = OI: new longs (up/up) and long liquidation (down/down) bullish; short covering (up/down) and new shorts (down/up) bearish
  oi_price: [
    ['bullish', 'none', 'bearish'],
    ['none', 'none', 'none'],
    ['bearish', 'none', 'bullish'],
  ],
  // a = price, b = perp CVD: buying absorbed on the way down bullish, a rally without buyers bearish; agreement confirms
  cvd_price: [
    ['none', 'none', 'bullish'],
    ['none', 'none', 'none'],
    ['bearish', 'none', 'none'],
  ],
  // a = price, b = funding: funding rising (longs crowding, paying up) bearish, funding falling (shorts crowding) bullish
  funding_price: [
    ['bullish', 'none', 'bearish'],
    ['bullish', 'none', 'bearish'],
    ['bullish', 'none', 'bearish'],
  ],
  // a = spot CVD, b = perp CVD: spot-led buying against perp selling bullish, perp-led buying against spot selling bearish
  spot_perp_cvd: [
    ['none', 'none', 'bearish'],
    ['none', 'none', 'none'],
    ['bullish', 'none', 'none'],
  ],
}

function readDirection(pair: DivergencePair, a: number, b: number): DivergenceDirection {
  return READINGS[pair][Math.sign(a) + 1]![Math.sign(b) + 1]!
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
  /** per input, a bit per venue (EXCHANGE_IDS order) of the venues that entered each minute */
  venues: Record<VenueInput, Uint8Array>
}

const VENUE_INPUTS: readonly VenueInput[] = ['price', 'openInterest', 'fundingRate', 'perp', 'spot']
const LEG_INPUT: Record<DivergenceSeries, VenueInput> = {
  price: 'price',
  open_interest: 'openInterest',
  funding_rate: 'fundingRate',
  cvd: 'perp',
  perp_cvd: 'perp',
  spot_cvd: 'spot',
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
  const venues = Object.fromEntries(VENUE_INPUTS.map((k) => [k, new Uint8Array(n)])) as Record<VenueInput, Uint8Array>
  let hasSpot = false
  for (const m of rows) {
    const i = Math.floor(m.ts / MINUTE) - t0 / MINUTE
    for (const k of VENUE_INPUTS) for (const e of m.exchanges?.[k] ?? []) {
      const bit = (EXCHANGE_IDS as readonly string[]).indexOf(e)
      if (bit >= 0) venues[k][i]! |= 1 << bit
    }
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
  return { t0, n, price, oi, funding, perpCvd: cumulate(perpFlow), spotCvd: hasSpot ? cumulate(spotFlow) : null, venues }
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

// Venues behind a leg's change over the window ending at minute e: every minute of (e - w, e], plus its start for price.
function legExchanges(grid: Grid, series: DivergenceSeries, e: number, w: number): ExchangeId[] {
  const bits = grid.venues[LEG_INPUT[series]]
  let mask = 0
  for (let i = Math.max(0, series === 'price' ? e - w : e - w + 1); i <= e; i++) mask |= bits[i]!
  return EXCHANGE_IDS.filter((_, b) => mask & (1 << b))
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
    statistic: null,
    legs: [
      { series: sa, change: null, z: null, exchanges: [] },
      { series: sb, change: null, z: null, exchanges: [] },
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
  if (last - w >= 0) {
    out.legs[0].exchanges = legExchanges(grid, sa, last, w)
    out.legs[1].exchanges = legExchanges(grid, sb, last, w)
  }
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

  // The statistic follows the quadrant: legs moving apart are measured by z_a − z_b, legs moving together by
  // z_a + z_b, so a reading of either kind can reach |z| >= 2 when the data is that unusual.
  const sa0 = moveSign(za.value)
  const sb0 = moveSign(zb.value)
  const sign = sa0 * sb0 > 0 ? 1 : -1
  const d0 = za.value + sign * zb.value
  const ma = mean(ha)
  const mb = mean(hb)
  const sda = stdev(ha)
  const sdb = stdev(hb)
  const hd = ha.map((a, i) => (a - ma) / sda + (sign * (hb[i]! - mb)) / sdb)
  const z = zScore(d0, hd, DIVERGENCE_MIN_POINTS)
  out.divergence = d0
  out.statistic = sign > 0 ? 'sum' : 'difference'
  out.direction = readDirection(pair, sa0, sb0)
  out.zScore = z.value
  out.reason = z.reason
  out.active = z.value != null && Math.abs(z.value) >= DIVERGENCE_Z_THRESHOLD && out.direction !== 'none'
  return out
}

const moveSign = (z: number) => (z >= DIVERGENCE_MOVE_Z ? 1 : z <= -DIVERGENCE_MOVE_Z ? -1 : 0)
