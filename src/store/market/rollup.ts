// Rollups: fold minute bars (or any finer bars) into coarser aligned buckets with merged volume at price,
// e.g. candle_1m -> candle_1h. Pure; inputs are never mutated.

import { type MinuteBar } from '../../domain/minute-bars.js'
import { addVolumes, noVolumes } from '../../domain/bars.js'
import { HOUR_MS, floorTo } from '../../domain/time.js'
import { vapMerge } from '../../domain/minute-vap.js'

/**
 * Fold bars of ONE market into one bar at `ts`: open of the earliest bar, close of the latest, high/low extremes,
 * summed volumes / quote volume / trade counts, merged volume at price (a new map).
 * Provenance (domain/bars.ts): the taker split is summed over the bars that have one (null when none has) and
 * noSplitMinutes counts the minutes without; quote volume and trade count are null as soon as one bar lacks them;
 * klineMinutes counts the minutes from venue klines, and the source is 'venue_kline' when there is one, else
 * 'simulated' when a bar is, else 'trades'.
 * Bars are ordered by ts here, so the input order does not matter. Throws on an empty list.
 */
export function foldBars(bars: readonly MinuteBar[], ts: number): MinuteBar {
  if (bars.length === 0) throw new RangeError('foldBars needs at least one bar')
  const sorted = isSortedByTs(bars) ? bars : [...bars].sort((a, b) => a.ts - b.ts)
  const first = sorted[0]!
  const out: MinuteBar = {
    exchange: first.exchange,
    coin: first.coin,
    marketType: first.marketType,
    ts,
    open: first.open,
    high: -Infinity,
    low: Infinity,
    close: sorted[sorted.length - 1]!.close,
    ...noVolumes(),
    vap: new Map(),
  }
  for (const b of sorted) {
    if (b.exchange !== first.exchange || b.coin !== first.coin || b.marketType !== first.marketType)
      throw new RangeError('foldBars: bars of different markets')
    if (b.high > out.high) out.high = b.high
    if (b.low < out.low) out.low = b.low
    addVolumes(out, b)
    vapMerge(out.vap, b.vap)
  }
  return out
}

/**
 * Group bars by market and by the aligned bucket floor(ts / bucketMs) * bucketMs (UTC) and fold each group.
 * Returns one bar per (market, bucket) that has at least one input bar, sorted by market key then ts.
 * A bucket may be partial (fewer bars than bucketMs / 60 s): the caller decides whether it is complete.
 */
export function rollup(bars: readonly MinuteBar[], bucketMs: number): MinuteBar[] {
  if (!(bucketMs > 0)) throw new RangeError('bucketMs must be > 0')
  const groups = new Map<string, MinuteBar[]>()
  for (const b of bars) {
    const key = `${b.exchange}:${b.coin}:${b.marketType}:${floorTo(b.ts, bucketMs)}`
    let g = groups.get(key)
    if (!g) groups.set(key, (g = []))
    g.push(b)
  }
  const out: MinuteBar[] = []
  for (const g of groups.values()) out.push(foldBars(g, floorTo(g[0]!.ts, bucketMs)))
  out.sort((a, b) =>
    a.exchange !== b.exchange
      ? a.exchange < b.exchange ? -1 : 1
      : a.coin !== b.coin
        ? a.coin < b.coin ? -1 : 1
        : a.marketType !== b.marketType
          ? a.marketType < b.marketType ? -1 : 1
          : a.ts - b.ts,
  )
  return out
}

/** minute bars -> aligned hourly bars (candle_1h) */
export function rollupHour(bars: readonly MinuteBar[]): MinuteBar[] {
  return rollup(bars, HOUR_MS)
}

function isSortedByTs(bars: readonly MinuteBar[]): boolean {
  for (let i = 1; i < bars.length; i++) if (bars[i]!.ts < bars[i - 1]!.ts) return false
  return true
}
