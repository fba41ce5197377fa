// Volume profile: traded volume binned by price from the volume-at-price grid, with POC, value area and HVN/LVN nodes.
// Methodology and limits: docs/methodology.md#volume-profile.

import { vapLevelHigh, vapLevelLow, vapLevelMid, type Vap } from '../domain/volume-at-price.js'

const MIN_BINS = 1
export const MAX_BINS = 200
const DEFAULT_BINS = 50
/** share of total volume the value area must reach */
export const VALUE_AREA_SHARE = 0.7
/** a bin is HVN when its volume >= HVN_MEAN_MULTIPLE x the mean bin volume (total / bin count), else LVN */
const HVN_MEAN_MULTIPLE = 1
// Relative tolerance so equal bins are not split HVN/LVN (or a value area missed) by float rounding.
const REL_EPS = 1e-9

type VolumeNode = 'HVN' | 'LVN'

export interface VolumeProfileLevel {
  priceLow: number
  priceHigh: number
  /** buyVolume + sellVolume, coin units */
  volume: number
  buyVolume: number
  sellVolume: number
  node: VolumeNode
}

export interface VolumeProfile {
  /** ascending by price, contiguous equal-width bins (empty bins included), at most `bins` */
  levels: VolumeProfileLevel[]
  /** the max-volume bin, priced at its mid; null when there is no volume */
  poc: { price: number; volume: number } | null
  /** volumePct is a percentage (0..100) of totalVolume */
  valueArea: { low: number; high: number; volumePct: number } | null
  totalVolume: number
}

/** a contiguous run of HVN bins: the price zones the liquidation cascade treats as resting liquidity */
export interface HvnZone {
  low: number
  high: number
  /** traded volume in the zone, coin units */
  volume: number
}

/**
 * Bin a merged volume-at-price map into at most `bins` equal-width price bins.
 * Each 1-bp level's buy/sell volume goes whole into the bin holding the level's mid price.
 * The bin count is capped at the number of 1-bp levels spanned, so bins are never finer than the data.
 */
export function volumeProfile(vap: Vap, bins: number = DEFAULT_BINS): VolumeProfile {
  if (!Number.isInteger(bins) || bins < MIN_BINS || bins > MAX_BINS)
    throw new RangeError(`bins must be an integer in ${MIN_BINS}..${MAX_BINS}, got ${bins}`)

  let minLevel = Infinity
  let maxLevel = -Infinity
  for (const [level, [buy, sell]] of vap) {
    if (!isVolume(buy, sell)) continue
    if (level < minLevel) minLevel = level
    if (level > maxLevel) maxLevel = level
  }
  if (minLevel === Infinity) return { levels: [], poc: null, valueArea: null, totalVolume: 0 }

  const n = Math.min(bins, maxLevel - minLevel + 1)
  const lo = vapLevelLow(minLevel)
  const hi = vapLevelHigh(maxLevel)
  const width = (hi - lo) / n
  const buys = new Float64Array(n)
  const sells = new Float64Array(n)
  let total = 0
  let weightedPrice = 0
  for (const [level, [buy, sell]] of vap) {
    if (!isVolume(buy, sell)) continue
    const mid = vapLevelMid(level)
    const i = Math.min(n - 1, Math.max(0, Math.floor((mid - lo) / width)))
    buys[i] = buys[i]! + Math.max(0, buy)
    sells[i] = sells[i]! + Math.max(0, sell)
    const v = Math.max(0, buy) + Math.max(0, sell)
    total += v
    weightedPrice += v * mid
  }
  const vwap = weightedPrice / total

  const hvnMin = HVN_MEAN_MULTIPLE * (total / n) * (1 - REL_EPS)
  const levels: VolumeProfileLevel[] = new Array(n)
  for (let i = 0; i < n; i++) {
    const volume = buys[i]! + sells[i]!
    levels[i] = {
      priceLow: lo + i * width,
      priceHigh: i === n - 1 ? hi : lo + (i + 1) * width,
      volume,
      buyVolume: buys[i]!,
      sellVolume: sells[i]!,
      node: volume >= hvnMin ? 'HVN' : 'LVN',
    }
  }

  const pocIndex = findPoc(levels, vwap)
  const poc = levels[pocIndex]!
  const [vaLow, vaHigh, vaVolume] = valueAreaRange(levels, pocIndex, total)
  return {
    levels,
    poc: { price: (poc.priceLow + poc.priceHigh) / 2, volume: poc.volume },
    valueArea: { low: levels[vaLow]!.priceLow, high: levels[vaHigh]!.priceHigh, volumePct: (100 * vaVolume) / total },
    totalVolume: total,
  }
}

/** contiguous HVN runs of a profile, ascending by price */
export function hvnZones(levels: readonly VolumeProfileLevel[]): HvnZone[] {
  const zones: HvnZone[] = []
  let open: HvnZone | null = null
  for (const l of levels) {
    if (l.node !== 'HVN') {
      open = null
      continue
    }
    if (open && Math.abs(open.high - l.priceLow) <= REL_EPS * l.priceLow) {
      open.high = l.priceHigh
      open.volume += l.volume
    } else zones.push((open = { low: l.priceLow, high: l.priceHigh, volume: l.volume }))
  }
  return zones
}

function isVolume(buy: number, sell: number): boolean {
  return Number.isFinite(buy) && Number.isFinite(sell) && Math.max(0, buy) + Math.max(0, sell) > 0
}

// Max-volume bin; a tie goes to the bin whose mid is nearest the volume-weighted mean price, then to the lower bin.
function findPoc(levels: readonly VolumeProfileLevel[], vwap: number): number {
  let best = 0
  for (let i = 1; i < levels.length; i++) {
    const l = levels[i]!
    const b = levels[best]!
    if (l.volume > b.volume) best = i
    else if (l.volume === b.volume && Math.abs(mid(l) - vwap) < Math.abs(mid(b) - vwap)) best = i
  }
  return best
}

const mid = (l: VolumeProfileLevel) => (l.priceLow + l.priceHigh) / 2

// Grow from the POC one bin at a time toward the larger neighbour; on a tie both neighbours join at once.
function valueAreaRange(levels: readonly VolumeProfileLevel[], poc: number, total: number): [number, number, number] {
  const target = VALUE_AREA_SHARE * total * (1 - REL_EPS)
  let low = poc
  let high = poc
  let sum = levels[poc]!.volume
  while (sum < target && (low > 0 || high < levels.length - 1)) {
    const below = low > 0 ? levels[low - 1]!.volume : -1
    const above = high < levels.length - 1 ? levels[high + 1]!.volume : -1
    if (above >= below) sum += levels[++high]!.volume
    if (below >= above) sum += levels[--low]!.volume
  }
  return [low, high, sum]
}
