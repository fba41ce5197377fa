// Liquidation map estimate: where one venue's positions would be force-closed, from its open-interest build-up by
// price and its leverage tiers. Methodology and limits: docs/methodology.md#liquidation-cascade.

import { BucketSet, type Bucket } from './liquidation-buckets.js'
import { classFactors, uniformClasses, type LeverageWeight, type LiquidationSide, type PositionClass } from './leverage-tiers.js'

export type { LiquidationSide } from './leverage-tiers.js'

/** positions of one side expected to be force-closed at `price` */
export interface LiquidationLevel {
  price: number
  side: LiquidationSide
  /** size x liquidation price, USD */
  notionalUsd: number
  /** the venue holding the positions (set by the caller that builds a per-venue map) */
  exchange?: string
}

/** maintenance margin rate of the pre-tier model (kept for callers without a tier table) */
const DEFAULT_MAINTENANCE_MARGIN_RATE = 0.005
/** estimated levels are merged into geometric price buckets this wide (bps); 0 keeps every level */
const DEFAULT_LIQUIDATION_BUCKET_BPS = 10

/** one period (minute or hour) of one venue's open-interest build-up */
export interface OiBuildUpPoint {
  /** price at which the period's OI change is assumed opened (close or VWAP of the period) */
  price: number
  /** change of one-sided open interest over the period, coins */
  oiChangeCoins: number
  /** the venue's one-sided open interest at the start of the period, coins: a decrease closes |change| / this of every estimate */
  openInterestCoins?: number
  /** taker volumes of the period: new OI is split long/short by buy / (buy + sell); 50/50 without them */
  buyVolume?: number
  sellVolume?: number
  /** the period's range, which sweeps estimated positions liquidated in it (defaults to price) */
  low?: number
  high?: number
  /** the period's start, Unix ms: what `horizonMs` counts from (a point without it never expires) */
  ts?: number
}

export interface LiquidationEstimateOptions {
  /** how new positions spread over tiers and leverages (positionClasses()); default: the leverage mix at one maintenance rate */
  classes?: readonly PositionClass[]
  /** used only without `classes` */
  leverageMix?: readonly LeverageWeight[]
  /** used only without `classes` */
  maintenanceMarginRate?: number
  bucketBps?: number
  /** positions opened this long before a period's start leave the map once that period is done (default: never) */
  horizonMs?: number
}

/**
 * Where one venue's liquidations sit, from its OI build-up by price (oldest period first).
 * Positive OI change opens positions at the period's price, split long/short by taker flow and spread over the
 * position classes (tier × leverage); negative OI change closes |change| / OI of every open estimate (positions
 * close in proportion, whenever they were opened; without the OI level, |change| / estimated open); a period
 * whose range crosses an estimate's liquidation price removes it (already liquidated). Estimates are merged into
 * bucketBps-wide price buckets as they are opened; a bucket behaves as one level at its coin-weighted mean price.
 * With horizonMs, what a period opened leaves the map after the last period starting within horizonMs of it.
 * Ascending by price.
 */
export function estimateLiquidationLevels(series: readonly OiBuildUpPoint[], options: LiquidationEstimateOptions = {}): LiquidationLevel[] {
  return estimateLiquidationMap(series, options).levels
}

export interface LiquidationMapTrace {
  /** per series point, the USD of estimated positions its range swept */
  swept: number[]
  /** the levels right after each point index asked for in `snapshotAt` */
  snapshots: Map<number, LiquidationLevel[]>
}

/**
 * The levels, and the USD of estimated positions the series' own ranges swept (what the model says was
 * liquidated); with `snapshotAt`, also each point's swept USD and the levels after the points asked for.
 */
export function estimateLiquidationMap(series: readonly OiBuildUpPoint[], options: LiquidationEstimateOptions & { snapshotAt?: ReadonlySet<number> } = {}): { levels: LiquidationLevel[]; sweptUsd: number; trace: LiquidationMapTrace } {
  const bucketBps = options.bucketBps ?? DEFAULT_LIQUIDATION_BUCKET_BPS
  if (!(bucketBps >= 0)) throw new RangeError(`bucketBps must be >= 0, got ${bucketBps}`)
  const classes = options.classes ?? uniformClasses(options.maintenanceMarginRate ?? DEFAULT_MAINTENANCE_MARGIN_RATE, options.leverageMix)

  // Estimates are kept merged in their output buckets: one bucket acts as one level at its coin-weighted mean price.
  const width = bucketBps > 0 ? Math.log1p(bucketBps / 1e4) : 0
  const sides = classFactors(classes).map((f) => ({ ...f, lnLong: Math.log(f.long), lnShort: Math.log(f.short) }))
  // Longs pop the highest bucket first (a falling low sweeps them), shorts the lowest.
  const longs = new BucketSet(true)
  const shorts = new BucketSet(false)
  // Lazy proportional scaling: coins = units * scale, so an OI decrease is O(1) instead of touching every bucket.
  let scale = 1
  let units = 0
  let sweptUsd = 0
  // what each period added, oldest first, to take back when it leaves the horizon
  const added: { ts: number; set: BucketSet; bucket: Bucket; units: number; weighted: number }[] = []
  let head = 0
  const horizon = options.horizonMs ?? Infinity
  const addAt = (set: BucketSet, key: number, liq: number, u: number, ts: number | undefined) => {
    const bucket = set.add(key, liq, u)
    if (ts !== undefined && horizon < Infinity) added.push({ ts, set, bucket, units: u, weighted: u * liq })
  }
  const trace: LiquidationMapTrace = { swept: new Array<number>(series.length).fill(0), snapshots: new Map() }
  const levelsNow = (): LiquidationLevel[] => {
    const out: LiquidationLevel[] = []
    for (const [set, side] of [[longs, 'long'], [shorts, 'short']] as const)
      for (const b of set.buckets.values()) if (b.units * scale > 0) out.push({ price: b.weighted / b.units, side, notionalUsd: b.weighted * scale })
    return out.sort((a, b) => a.price - b.price || (a.side < b.side ? -1 : a.side > b.side ? 1 : 0))
  }

  for (let i = 0; i < series.length; i++) {
    period(i)
    const ts = series[i]!.ts
    if (ts !== undefined) expire(ts)
    if (options.snapshotAt?.has(i)) trace.snapshots.set(i, levelsNow())
  }
  return { levels: levelsNow(), sweptUsd, trace }

  function expire(ts: number): void {
    while (head < added.length && added[head]!.ts <= ts - horizon) {
      const a = added[head++]!
      units -= a.set.remove(a.bucket, a.units, a.weighted)
    }
    if (head > 4096 && head * 2 > added.length) {
      added.splice(0, head)
      head = 0
    }
  }

  function period(i: number): void {
    const pt = series[i]!
    if (!(pt.price > 0) || !Number.isFinite(pt.price) || !Number.isFinite(pt.oiChangeCoins)) return
    const low = pt.low != null && pt.low > 0 ? pt.low : pt.price
    const high = pt.high != null && Number.isFinite(pt.high) ? pt.high : pt.price
    const sl = longs.sweep(low)
    const ss = shorts.sweep(high)
    units -= sl.units + ss.units
    trace.swept[i] = (sl.weighted + ss.weighted) * scale
    sweptUsd += trace.swept[i]!

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
        if (l > 0) addAt(longs, width > 0 ? Math.floor((lnP + m.lnLong) / width) : lLiq, lLiq, l, pt.ts)
        if (s > 0) addAt(shorts, width > 0 ? Math.floor((lnP + m.lnShort) / width) : sLiq, sLiq, s, pt.ts)
        units += l + s
      }
    } else if (d < 0) {
      const open = Math.max(0, units) * scale
      if (open <= 0) return
      const base = pt.openInterestCoins != null && Number.isFinite(pt.openInterestCoins) ? Math.max(pt.openInterestCoins, open) : open
      const closed = -d / base
      if (closed >= 1) {
        longs.clear()
        shorts.clear()
        added.length = head = 0
        units = 0
        scale = 1
        return
      }
      scale *= 1 - closed
      if (scale < 1e-100) {
        longs.rescale(scale)
        shorts.rescale(scale)
        for (let k = head; k < added.length; k++) {
          added[k]!.units *= scale
          added[k]!.weighted *= scale
        }
        units *= scale
        scale = 1
      }
    }
  }
}
