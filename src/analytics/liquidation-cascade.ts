// Liquidation map estimate and cascade simulation: forced orders walk the book phase by phase until they stall.
// Methodology and limits: docs/methodology.md#liquidation-cascade.

import type { BookLevel } from '../market/events.js'
import type { HvnZone } from './volume-profile.js'

export type LiquidationSide = 'long' | 'short'

/** positions of one side expected to be force-closed at `price` */
export interface LiquidationLevel {
  price: number
  side: LiquidationSide
  /** size x liquidation price, USD */
  notionalUsd: number
}

export interface LeverageWeight {
  leverage: number
  /** share of new positions opened at this leverage (weights are normalized to sum 1) */
  weight: number
}

/** assumed leverage mix of new positions: no venue publishes it; concentrated at 10-25x as on retail venues */
export const DEFAULT_LEVERAGE_MIX: readonly LeverageWeight[] = [
  { leverage: 5, weight: 0.1 },
  { leverage: 10, weight: 0.25 },
  { leverage: 20, weight: 0.25 },
  { leverage: 25, weight: 0.15 },
  { leverage: 50, weight: 0.15 },
  { leverage: 100, weight: 0.1 },
]
/** maintenance margin rate of the lowest tier on the large CEXes (0.4-0.5 % for BTC/ETH) */
export const DEFAULT_MAINTENANCE_MARGIN_RATE = 0.005
/** estimated levels are merged into geometric price buckets this wide (bps); 0 keeps every level */
export const DEFAULT_LIQUIDATION_BUCKET_BPS = 10

export const MAX_CASCADE_PHASES = 5
/** resting liquidity an HVN zone holds, as a fraction of its traded volume (coins), meant for a 24 h profile */
export const DEFAULT_HVN_LIQUIDITY_FACTOR = 0.02
/** furthest a phase can push the price beyond the visible book, as a fraction of the phase's start price */
export const DEFAULT_VACUUM_STEP = 0.01

/** one period (minute or hour) of open-interest build-up */
export interface OiBuildUpPoint {
  /** price at which the period's OI change is assumed opened (close or VWAP of the period) */
  price: number
  /** change of one-sided open interest over the period, coins */
  oiChangeCoins: number
  /** taker volumes of the period: new OI is split long/short by buy / (buy + sell); 50/50 without them */
  buyVolume?: number
  sellVolume?: number
  /** the period's range, which sweeps estimated positions liquidated in it (defaults to price) */
  low?: number
  high?: number
}

export interface LiquidationEstimateOptions {
  leverageMix?: readonly LeverageWeight[]
  maintenanceMarginRate?: number
  bucketBps?: number
}

/** isolated-margin liquidation price: long p(1 - 1/L + mmr), short p(1 + 1/L - mmr) */
export function liquidationPrice(entry: number, side: LiquidationSide, leverage: number, mmr: number): number {
  return side === 'long' ? entry * (1 - 1 / leverage + mmr) : entry * (1 + 1 / leverage - mmr)
}

/**
 * Where liquidations sit, from OI build-up by price (oldest period first).
 * Positive OI change opens positions at the period's price, split long/short by taker flow and spread over the
 * leverage mix; negative OI change closes a proportional share of every open estimate; a period whose range crosses
 * an estimate's liquidation price removes it (already liquidated). Estimates are merged into bucketBps-wide price
 * buckets as they are opened; a bucket behaves as one level at its coin-weighted mean price. Ascending by price.
 */
export function estimateLiquidationLevels(
  series: readonly OiBuildUpPoint[],
  options: LiquidationEstimateOptions = {},
): LiquidationLevel[] {
  const mmr = options.maintenanceMarginRate ?? DEFAULT_MAINTENANCE_MARGIN_RATE
  const bucketBps = options.bucketBps ?? DEFAULT_LIQUIDATION_BUCKET_BPS
  if (!(mmr >= 0 && mmr < 1)) throw new RangeError(`maintenanceMarginRate must be in [0, 1), got ${mmr}`)
  if (!(bucketBps >= 0)) throw new RangeError(`bucketBps must be >= 0, got ${bucketBps}`)
  const mix = normalizeMix(options.leverageMix ?? DEFAULT_LEVERAGE_MIX, mmr)

  // Estimates are kept merged in their output buckets: one bucket acts as one level at its coin-weighted mean price.
  const width = bucketBps > 0 ? Math.log1p(bucketBps / 1e4) : 0
  const sides = mix.map(({ leverage, weight }) => {
    const long = liquidationPrice(1, 'long', leverage, mmr)
    const short = liquidationPrice(1, 'short', leverage, mmr)
    return { weight, long, short, lnLong: Math.log(long), lnShort: Math.log(short) }
  })
  // Longs pop the highest bucket first (a falling low sweeps them), shorts the lowest.
  const longs = new BucketSet(true)
  const shorts = new BucketSet(false)
  // Lazy proportional scaling: coins = units * scale, so an OI decrease is O(1) instead of touching every bucket.
  let scale = 1
  let units = 0

  for (const pt of series) {
    if (!(pt.price > 0) || !Number.isFinite(pt.price) || !Number.isFinite(pt.oiChangeCoins)) continue
    const low = pt.low != null && pt.low > 0 ? pt.low : pt.price
    const high = pt.high != null && Number.isFinite(pt.high) ? pt.high : pt.price
    units -= longs.sweep(low) + shorts.sweep(high)

    const d = pt.oiChangeCoins
    if (d > 0) {
      const buy = Math.max(0, pt.buyVolume ?? 0)
      const sell = Math.max(0, pt.sellVolume ?? 0)
      const longShare = buy + sell > 0 ? buy / (buy + sell) : 0.5
      const lnP = width > 0 ? Math.log(pt.price) : 0
      for (const m of sides) {
        const l = (d * longShare * m.weight) / scale
        const s = (d * (1 - longShare) * m.weight) / scale
        const lLiq = pt.price * m.long
        const sLiq = pt.price * m.short
        if (l > 0) longs.add(width > 0 ? Math.floor((lnP + m.lnLong) / width) : lLiq, lLiq, l)
        if (s > 0) shorts.add(width > 0 ? Math.floor((lnP + m.lnShort) / width) : sLiq, sLiq, s)
        units += l + s
      }
    } else if (d < 0) {
      const open = Math.max(0, units) * scale
      if (open <= 0) continue
      const closed = -d / open
      if (closed >= 1) {
        longs.clear()
        shorts.clear()
        units = 0
        scale = 1
        continue
      }
      scale *= 1 - closed
      if (scale < 1e-100) {
        longs.rescale(scale)
        shorts.rescale(scale)
        units *= scale
        scale = 1
      }
    }
  }

  const out: LiquidationLevel[] = []
  for (const [set, side] of [[longs, 'long'], [shorts, 'short']] as const)
    for (const b of set.buckets.values())
      if (b.units * scale > 0) out.push({ price: b.weighted / b.units, side, notionalUsd: b.weighted * scale })
  return out.sort((a, b) => a.price - b.price || (a.side < b.side ? -1 : a.side > b.side ? 1 : 0))
}

function normalizeMix(mix: readonly LeverageWeight[], mmr: number): LeverageWeight[] {
  let sum = 0
  for (const m of mix) {
    if (!(m.leverage > 0) || !(1 / m.leverage > mmr))
      throw new RangeError(`leverage ${m.leverage} must be > 0 and have 1/leverage > maintenance margin rate ${mmr}`)
    if (!(m.weight >= 0)) throw new RangeError(`leverage weight must be >= 0, got ${m.weight}`)
    sum += m.weight
  }
  if (!(sum > 0)) throw new RangeError('leverage weights must not all be zero')
  return mix.map((m) => ({ leverage: m.leverage, weight: m.weight / sum }))
}

interface Bucket {
  key: number
  /** coins / scale */
  units: number
  /** sum of units x liquidation price: the bucket's price is weighted / units */
  weighted: number
}

// Buckets of one side with a binary heap over their keys, so sweeping pops only what a period's range crossed.
class BucketSet {
  buckets = new Map<number, Bucket>()
  private heap: Bucket[] = []
  private readonly highFirst: boolean
  constructor(highFirst: boolean) {
    this.highFirst = highFirst
  }
  add(key: number, liq: number, units: number): void {
    let b = this.buckets.get(key)
    if (!b) {
      this.buckets.set(key, (b = { key, units: 0, weighted: 0 }))
      this.push(b)
    }
    b.units += units
    b.weighted += units * liq
  }
  /** remove buckets whose price the period reached (longs: price >= low, shorts: price <= high); returns their units */
  sweep(reached: number): number {
    let removed = 0
    for (let top = this.heap[0]; top; top = this.heap[0]) {
      const price = top.weighted / top.units
      if (this.highFirst ? price < reached : price > reached) break
      this.pop()
      this.buckets.delete(top.key)
      removed += top.units
    }
    return removed
  }
  rescale(f: number): void {
    for (const b of this.buckets.values()) {
      b.units *= f
      b.weighted *= f
    }
  }
  clear(): void {
    this.buckets.clear()
    this.heap = []
  }
  private before(a: Bucket, b: Bucket): boolean {
    return this.highFirst ? a.key > b.key : a.key < b.key
  }
  private push(e: Bucket): void {
    const a = this.heap
    a.push(e)
    let i = a.length - 1
    while (i > 0) {
      const p = (i - 1) >> 1
      if (!this.before(a[i]!, a[p]!)) break
      ;[a[i], a[p]] = [a[p]!, a[i]!]
      i = p
    }
  }
  private pop(): void {
    const a = this.heap
    const last = a.pop()
    if (a.length === 0 || !last) return
    a[0] = last
    let i = 0
    for (;;) {
      const l = 2 * i + 1
      const r = l + 1
      let m = i
      if (l < a.length && this.before(a[l]!, a[m]!)) m = l
      if (r < a.length && this.before(a[r]!, a[m]!)) m = r
      if (m === i) break
      ;[a[i], a[m]] = [a[m]!, a[i]!]
      i = m
    }
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Cascade simulation

export type CascadeDirection = 'down' | 'up'

export interface OrderBookDepth {
  /** sizes in coins; any order */
  bids: readonly BookLevel[]
  asks: readonly BookLevel[]
}

export interface CascadeInput {
  currentPrice: number
  triggerPrice: number
  liquidations: readonly LiquidationLevel[]
  book: OrderBookDepth
  /** contiguous HVN zones of the coin's volume profile (hvnZones()) */
  hvnZones?: readonly HvnZone[]
}

export interface CascadeOptions {
  /** 1..5 */
  maxPhases?: number
  hvnLiquidityFactor?: number
  vacuumStep?: number
}

export interface CascadePhase {
  phase: number
  fromPrice: number
  /** where this phase's forced orders left the price */
  toPrice: number
  /** notional of the positions liquidated in this phase, USD */
  liquidatedUsd: number
  stalled: boolean
}

export interface CascadeResult {
  startPrice: number
  triggerPrice: number
  /** sign of trigger - start; 'down' when they are equal (then there are no phases) */
  direction: CascadeDirection
  phases: CascadePhase[]
  finalPrice: number
  totalLiquidatedUsd: number
  /** the HVN zone whose liquidity absorbed the last phase's forced flow, else null */
  stalledAt: { low: number; high: number } | null
  /** why it ended: trigger at the current price, a stalled phase, or the phase limit */
  endedBy: 'no_move' | 'stalled' | 'phase_limit'
}

/**
 * Simulate a liquidation cascade set off by moving the price from currentPrice to triggerPrice.
 * Phase 1 liquidates the positions between the two prices; each phase's forced market orders walk the book
 * (its depth profile re-centred on the phase's start price) plus the HVN zones' resting liquidity, and the next
 * phase liquidates what that move reached. A phase stalls when its move reaches no position not yet liquidated.
 */
export function simulateCascade(input: CascadeInput, options: CascadeOptions = {}): CascadeResult {
  const { currentPrice: start, triggerPrice: trigger } = input
  if (!(start > 0) || !Number.isFinite(start)) throw new RangeError(`currentPrice must be > 0, got ${start}`)
  if (!(trigger > 0) || !Number.isFinite(trigger)) throw new RangeError(`triggerPrice must be > 0, got ${trigger}`)
  const maxPhases = options.maxPhases ?? MAX_CASCADE_PHASES
  if (!Number.isInteger(maxPhases) || maxPhases < 1 || maxPhases > MAX_CASCADE_PHASES)
    throw new RangeError(`maxPhases must be an integer in 1..${MAX_CASCADE_PHASES}, got ${maxPhases}`)
  const factor = options.hvnLiquidityFactor ?? DEFAULT_HVN_LIQUIDITY_FACTOR
  const vacuumStep = options.vacuumStep ?? DEFAULT_VACUUM_STEP
  if (!(factor >= 0)) throw new RangeError(`hvnLiquidityFactor must be >= 0, got ${factor}`)
  if (!(vacuumStep > 0 && vacuumStep < 1)) throw new RangeError(`vacuumStep must be in (0, 1), got ${vacuumStep}`)

  const direction: CascadeDirection = trigger > start ? 'up' : 'down'
  const result: CascadeResult = {
    startPrice: start,
    triggerPrice: trigger,
    direction,
    phases: [],
    finalPrice: start,
    totalLiquidatedUsd: 0,
    stalledAt: null,
    endedBy: 'no_move',
  }
  if (trigger === start) return result

  // Work along u = s * price, which increases in the direction of the move for both directions.
  const s = direction === 'up' ? 1 : -1
  const side: LiquidationSide = direction === 'down' ? 'long' : 'short'
  const levels = input.liquidations
    .filter((l) => l.side === side && l.price > 0 && Number.isFinite(l.price) && l.notionalUsd > 0 && Number.isFinite(l.notionalUsd))
    .map((l) => ({ u: s * l.price, usd: l.notionalUsd, coins: l.notionalUsd / l.price }))
    .sort((a, b) => a.u - b.u)
  // Positions at or behind the current price should already be gone: skip them.
  let next = 0
  while (next < levels.length && levels[next]!.u <= s * start) next++

  const depth = depthProfile(input.book, direction)
  const zones = (input.hvnZones ?? [])
    .filter((z) => z.high > z.low && z.low > 0 && z.volume > 0 && Number.isFinite(z.high))
    .map((z) => {
      const a = s > 0 ? z.low : -z.high
      const b = s > 0 ? z.high : -z.low
      return { zone: { low: z.low, high: z.high }, a, b, consumedTo: a, density: (factor * z.volume) / (z.high - z.low) }
    })

  let reach = s * trigger
  let walkFrom = trigger
  let fromPrice = start
  for (let k = 1; k <= maxPhases; k++) {
    let usd = 0
    let coins = 0
    while (next < levels.length && levels[next]!.u <= reach) {
      usd += levels[next]!.usd
      coins += levels[next]!.coins
      next++
    }
    const walk = walkBook(walkFrom, coins, s, depth, zones, vacuumStep)
    const toPrice = s * walk.u
    reach = walk.u
    const stalled = !(next < levels.length && levels[next]!.u <= reach)
    result.phases.push({ phase: k, fromPrice, toPrice, liquidatedUsd: usd, stalled })
    result.totalLiquidatedUsd += usd
    result.finalPrice = toPrice
    if (stalled) {
      result.stalledAt = walk.zone
      result.endedBy = 'stalled'
      return result
    }
    fromPrice = toPrice
    walkFrom = toPrice
  }
  result.endedBy = 'phase_limit'
  return result
}

interface Depth {
  /** fractional distances from mid, ascending */
  offsets: number[]
  sizes: number[]
  total: number
}

// The side a forced flow consumes (bids for sells), as distance-from-mid fractions so it can be re-centred.
function depthProfile(book: OrderBookDepth, direction: CascadeDirection): Depth {
  const valid = (l: BookLevel) => l.price > 0 && Number.isFinite(l.price) && l.size > 0 && Number.isFinite(l.size)
  const bids = book.bids.filter(valid)
  const asks = book.asks.filter(valid)
  const bestBid = bids.reduce((m, l) => Math.max(m, l.price), -Infinity)
  const bestAsk = asks.reduce((m, l) => Math.min(m, l.price), Infinity)
  const mid = bids.length && asks.length ? (bestBid + bestAsk) / 2 : bids.length ? bestBid : bestAsk
  const levels = (direction === 'down' ? bids : asks)
    .map((l) => ({ d: Math.max(0, direction === 'down' ? (mid - l.price) / mid : (l.price - mid) / mid), size: l.size }))
    .sort((a, b) => a.d - b.d)
  return { offsets: levels.map((l) => l.d), sizes: levels.map((l) => l.size), total: levels.reduce((t, l) => t + l.size, 0) }
}

interface ZoneState {
  zone: { low: number; high: number }
  a: number
  b: number
  consumedTo: number
  density: number
}

type WalkEvent = { u: number; mass: number; dDensity: number }

// Consume `coins` of liquidity from price `from` along u: book points, zone densities, then the book's average
// density extrapolated past its deepest level, at most vacuumStep beyond it. Zones keep what was consumed.
function walkBook(
  from: number,
  coins: number,
  s: number,
  depth: Depth,
  zones: ZoneState[],
  vacuumStep: number,
): { u: number; zone: { low: number; high: number } | null } {
  const u0 = s * from
  if (!(coins > 0)) return { u: u0, zone: null }
  const deepest = depth.offsets.length ? depth.offsets[depth.offsets.length - 1]! : 0
  const deepU = u0 + from * deepest
  let capU = deepU + from * vacuumStep
  if (s < 0) capU = Math.min(capU, -from * 1e-9)
  const beyond = deepest > 0 ? depth.total / (from * deepest) : 0

  const events: WalkEvent[] = []
  for (let i = 0; i < depth.offsets.length; i++) events.push({ u: u0 + from * depth.offsets[i]!, mass: depth.sizes[i]!, dDensity: 0 })
  if (beyond > 0) events.push({ u: deepU, mass: 0, dDensity: beyond })
  for (const z of zones) {
    const a = Math.max(z.a, z.consumedTo, u0)
    if (z.b <= a || z.density <= 0) continue
    events.push({ u: a, mass: 0, dDensity: z.density }, { u: z.b, mass: 0, dDensity: -z.density })
  }
  events.sort((x, y) => x.u - y.u)

  let cur = u0
  let dens = 0
  let rem = coins
  let end: number | null = null
  for (const ev of events) {
    if (ev.u > capU) break
    const seg = (ev.u - cur) * dens
    if (rem <= seg) {
      end = cur + rem / dens
      break
    }
    rem -= seg
    cur = ev.u
    if (ev.mass > 0) {
      if (rem <= ev.mass) {
        end = cur
        break
      }
      rem -= ev.mass
    }
    dens = Math.max(0, dens + ev.dDensity)
  }
  let absorbed = end !== null
  if (end === null) {
    const seg = (capU - cur) * Math.max(0, dens)
    absorbed = dens > 0 && rem <= seg
    end = absorbed ? cur + rem / dens : capU
  }

  let zone: { low: number; high: number } | null = null
  for (const z of zones) {
    const a = Math.max(z.a, z.consumedTo, u0)
    if (end > a) z.consumedTo = Math.max(z.consumedTo, Math.min(z.b, end))
    if (absorbed && !zone && end > z.a && end <= z.b) zone = z.zone
  }
  return { u: end, zone }
}
