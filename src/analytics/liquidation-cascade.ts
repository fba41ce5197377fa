// Cascade simulation: forced orders walk the book phase by phase until they stall, with the liquidated notional
// kept per venue. The liquidation map it consumes is estimated in liquidation-map.ts.
// Methodology and limits: docs/methodology.md#liquidation-cascade.

import type { BookLevel } from '../domain/books.js'
import type { LiquidationLevel, LiquidationSide } from './liquidation-map.js'
import type { HvnZone } from './volume-profile.js'

export { DEFAULT_LEVERAGE_MIX, liquidationPrice } from './leverage-tiers.js'
export { estimateLiquidationLevels, type LiquidationLevel } from './liquidation-map.js'

export const MAX_CASCADE_PHASES = 5
/** resting liquidity an HVN zone holds, as a fraction of its traded volume (coins), meant for a 24 h profile */
const DEFAULT_HVN_LIQUIDITY_FACTOR = 0.02
/** furthest a phase can push the price beyond the visible book, as a fraction of the phase's start price */
const DEFAULT_VACUUM_STEP = 0.01

type CascadeDirection = 'down' | 'up'

interface OrderBookDepth {
  /** sizes in coins; any order */
  bids: readonly BookLevel[]
  asks: readonly BookLevel[]
}

export interface CascadeInput {
  currentPrice: number
  triggerPrice: number
  /** every venue's levels together; each level's `exchange` says whose positions they are */
  liquidations: readonly LiquidationLevel[]
  book: OrderBookDepth
  /** contiguous HVN zones of the coin's volume profile (hvnZones()) */
  hvnZones?: readonly HvnZone[]
  /** venues reported in `byExchange` (in this order, zeros included); venues of levels not listed follow */
  exchanges?: readonly string[]
}

export interface CascadeOptions {
  /** 1..5 */
  maxPhases?: number
  hvnLiquidityFactor?: number
  vacuumStep?: number
}

/** liquidated notional of one venue's positions, USD */
export interface ExchangeLiquidation {
  exchange: string
  liquidatedUsd: number
}

export interface CascadePhase {
  phase: number
  fromPrice: number
  /** where this phase's forced orders left the price */
  toPrice: number
  /** notional of the positions liquidated in this phase, USD */
  liquidatedUsd: number
  /** the same per venue (Σ = liquidatedUsd) */
  byExchange: ExchangeLiquidation[]
  /** true only for a last phase whose forced orders an HVN zone absorbed (stalledAt names it) */
  stalled: boolean
}

/**
 * Why the cascade ended: no_move (trigger at the current price), no_liquidations (the move to the trigger reaches
 * no estimated position), stalled (an HVN zone absorbed the last phase's forced orders: stalledAt), book_absorbed
 * (the book absorbed them outside any HVN zone before they reached another position), no_further_liquidations (the
 * last phase pushed the price as far as a phase can go and met no other position), phase_limit (5 phases).
 */
type CascadeEnd = 'no_move' | 'no_liquidations' | 'stalled' | 'book_absorbed' | 'no_further_liquidations' | 'phase_limit'

export interface CascadeResult {
  startPrice: number
  triggerPrice: number
  /** sign of trigger - start; 'down' when they are equal (then there are no phases) */
  direction: CascadeDirection
  phases: CascadePhase[]
  finalPrice: number
  totalLiquidatedUsd: number
  /** Σ over the phases per venue (Σ = totalLiquidatedUsd) */
  byExchange: ExchangeLiquidation[]
  /** the HVN zone whose liquidity absorbed the last phase's forced flow; non-null exactly when endedBy is stalled */
  stalledAt: { low: number; high: number } | null
  endedBy: CascadeEnd
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
  const venues = [...(input.exchanges ?? [])]
  for (const l of input.liquidations) if (!venues.includes(l.exchange ?? UNATTRIBUTED)) venues.push(l.exchange ?? UNATTRIBUTED)
  const result: CascadeResult = {
    startPrice: start,
    triggerPrice: trigger,
    direction,
    phases: [],
    finalPrice: start,
    totalLiquidatedUsd: 0,
    byExchange: venues.map((exchange) => ({ exchange, liquidatedUsd: 0 })),
    stalledAt: null,
    endedBy: 'no_move',
  }
  if (trigger === start) return result

  // Work along u = s * price, which increases in the direction of the move for both directions.
  const s = direction === 'up' ? 1 : -1
  const side: LiquidationSide = direction === 'down' ? 'long' : 'short'
  const levels = input.liquidations
    .filter((l) => l.side === side && l.price > 0 && Number.isFinite(l.price) && l.notionalUsd > 0 && Number.isFinite(l.notionalUsd))
    .map((l) => ({ u: s * l.price, usd: l.notionalUsd, coins: l.notionalUsd / l.price, venue: venues.indexOf(l.exchange ?? UNATTRIBUTED) }))
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
    const perVenue = venues.map(() => 0)
    while (next < levels.length && levels[next]!.u <= reach) {
      const l = levels[next]!
      usd += l.usd
      coins += l.coins
      perVenue[l.venue]! += l.usd
      next++
    }
    const walk = walkBook(walkFrom, coins, s, depth, zones, vacuumStep)
    const toPrice = s * walk.u
    reach = walk.u
    const ends = !(next < levels.length && levels[next]!.u <= reach)
    const stalled = ends && usd > 0 && walk.zone !== null
    result.phases.push({ phase: k, fromPrice, toPrice, liquidatedUsd: usd, byExchange: venues.map((exchange, i) => ({ exchange, liquidatedUsd: perVenue[i]! })), stalled })
    result.totalLiquidatedUsd += usd
    perVenue.forEach((v, i) => (result.byExchange[i]!.liquidatedUsd += v))
    result.finalPrice = toPrice
    if (ends) {
      result.stalledAt = stalled ? walk.zone : null
      result.endedBy = usd === 0 ? 'no_liquidations' : stalled ? 'stalled' : walk.absorbed ? 'book_absorbed' : 'no_further_liquidations'
      return result
    }
    fromPrice = toPrice
    walkFrom = toPrice
  }
  result.endedBy = 'phase_limit'
  return result
}

/** the byExchange key of levels that carry no exchange */
const UNATTRIBUTED = 'unattributed'

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
): { u: number; zone: { low: number; high: number } | null; absorbed: boolean } {
  const u0 = s * from
  if (!(coins > 0)) return { u: u0, zone: null, absorbed: true }
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
  return { u: end, zone, absorbed }
}
