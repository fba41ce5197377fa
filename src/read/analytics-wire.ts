// What crosses to and from the analytics threads (./analytics-pool.ts): plain data in, and the liquidation map's
// snapshots back as transferable typed arrays (one level a row), not as objects, whose structured clone on the way
// back would cost the event loop about what computing them did. Decoding gives the very objects, in their order.
import type { LiquidationLevel, LiquidationMapTrace } from '../analytics/liquidation-map.js'

/** a map's trace as columns: per snapshot its point index and where its levels start in the columns */
export interface WireTrace {
  swept: Float64Array
  keys: Int32Array
  /** snapshot k's levels are rows offsets[k] … offsets[k + 1] − 1 */
  offsets: Int32Array
  price: Float64Array
  notionalUsd: Float64Array
  /** 1: long, 0: short */
  long: Uint8Array
}

export function encodeTrace(trace: LiquidationMapTrace): WireTrace {
  const keys = [...trace.snapshots.keys()]
  const rows = keys.reduce((n, k) => n + trace.snapshots.get(k)!.length, 0)
  const wire: WireTrace = {
    swept: Float64Array.from(trace.swept),
    keys: Int32Array.from(keys),
    offsets: new Int32Array(keys.length + 1),
    price: new Float64Array(rows),
    notionalUsd: new Float64Array(rows),
    long: new Uint8Array(rows),
  }
  let r = 0
  keys.forEach((k, i) => {
    wire.offsets[i] = r
    for (const l of trace.snapshots.get(k)!) {
      wire.price[r] = l.price
      wire.notionalUsd[r] = l.notionalUsd
      wire.long[r++] = l.side === 'long' ? 1 : 0
    }
  })
  wire.offsets[keys.length] = r
  return wire
}

/** the buffers to transfer rather than copy */
export const traceBuffers = (w: WireTrace): ArrayBuffer[] => [w.swept, w.keys, w.offsets, w.price, w.notionalUsd, w.long].map((a) => a.buffer as ArrayBuffer)

export function decodeTrace(w: WireTrace): LiquidationMapTrace {
  const snapshots = new Map<number, LiquidationLevel[]>()
  for (let i = 0; i < w.keys.length; i++) {
    const levels: LiquidationLevel[] = []
    for (let r = w.offsets[i]!; r < w.offsets[i + 1]!; r++) levels.push({ price: w.price[r]!, side: w.long[r] ? 'long' : 'short', notionalUsd: w.notionalUsd[r]! })
    snapshots.set(w.keys[i]!, levels)
  }
  return { swept: Array.from(w.swept), snapshots }
}
