// Volume at price kept per 1-minute aggregate (the grid: src/domain/volume-at-price.ts): adding, merging, and the
// stored packing (the vap column of candle_1m and candle_1h). Values are float32 in both packings; decoding either
// gives the same numbers.
//   v1 (rows written before issue 32): int32 base level, then per level uint16 offset, float32 buy, float32 sell
//     (10 bytes a level).
//   v2 (written now): int32 base level + V2 (|base| < 2^18 for any price, so the two never meet), then per level one
//     byte, its low two bits saying which sides follow (1 buy, 2 sell; a side left out is 0) and its high six the
//     gap from the previous level (63: a uint16 gap follows), then the float32s of the sides present (a level is
//     1 + 4 or 1 + 8 bytes: most levels of a minute are one side's, and neighbours; 5.9 bytes a level on the
//     simulator's minutes against 10, docs/performance.md, eighth round).
import { vapLevel, type Vap } from './volume-at-price.js'

const HEADER = 4
const ENTRY = 10
/** added to a v2 packing's base level */
const V2 = 2 ** 29
/** a v1 header is a level: below this (2^28) in magnitude, as every price's level is */
const V1_LIMIT = 2 ** 28
const GAP_ESCAPE = 63

export function vapAdd(vap: Vap, price: number, size: number, side: 'buy' | 'sell'): void {
  const k = vapLevel(price)
  let cell = vap.get(k)
  if (!cell) vap.set(k, (cell = [0, 0]))
  cell[side === 'buy' ? 0 : 1] += size
}

export function vapMerge(into: Vap, from: Vap): Vap {
  for (const [k, [b, s]] of from) {
    const cell = into.get(k)
    if (cell) {
      cell[0] += b
      cell[1] += s
    } else into.set(k, [b, s])
  }
  return into
}

const EMPTY = new Uint8Array(0)

/** the levels of `vap` in ascending order */
function sortedLevels(vap: Vap): number[] {
  const levels = new Array<number>(vap.size)
  let i = 0
  let sorted = true
  for (const k of vap.keys()) {
    if (i > 0 && k < levels[i - 1]!) sorted = false
    levels[i++] = k
  }
  if (!sorted) levels.sort((a, b) => a - b)
  return levels
}

/** a side is left out when its float32 is +0 (a -0 is kept, so decoding gives back exactly what v1 did) */
const stored = (v: number): boolean => !Object.is(Math.fround(v), 0)

export function encodeVap(vap: Vap): Uint8Array {
  const n = vap.size
  if (n === 0) return EMPTY
  // levels in ascending order (maps filled from a path or trades in time order often are already)
  const levels = sortedLevels(vap)
  const base = levels[0]!
  if (levels[n - 1]! - base > 0xffff) throw new RangeError('volume-at-price spans more than 65535 levels in one aggregate')
  // the size first: one pass to count, one to write
  let size = HEADER
  for (let j = 0, prev = base; j < n; j++) {
    const k = levels[j]!
    const cell = vap.get(k)!
    size += 1 + (k - prev >= GAP_ESCAPE ? 2 : 0) + (stored(cell[0]) ? 4 : 0) + (stored(cell[1]) ? 4 : 0)
    prev = k
  }
  const buf = new Uint8Array(size)
  const view = new DataView(buf.buffer)
  view.setInt32(0, base + V2, true)
  let o = HEADER
  for (let j = 0, prev = base; j < n; j++) {
    const k = levels[j]!
    const [b, s] = vap.get(k)!
    const gap = k - prev
    const sides = (stored(b) ? 1 : 0) | (stored(s) ? 2 : 0)
    buf[o++] = (Math.min(gap, GAP_ESCAPE) << 2) | sides
    if (gap >= GAP_ESCAPE) {
      view.setUint16(o, gap, true)
      o += 2
    }
    if (sides & 1) {
      view.setFloat32(o, b, true)
      o += 4
    }
    if (sides & 2) {
      view.setFloat32(o, s, true)
      o += 4
    }
    prev = k
  }
  return buf
}

function addCell(into: Vap, k: number, b: number, s: number): void {
  const cell = into.get(k)
  if (cell) {
    cell[0] += b
    cell[1] += s
  } else into.set(k, [b, s])
}

export function decodeVap(buf: Uint8Array, into: Vap = new Map()): Vap {
  if (buf.byteLength < HEADER) return into
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength)
  const head = view.getInt32(0, true)
  if (head < V1_LIMIT) {
    for (let o = HEADER; o + ENTRY <= buf.byteLength; o += ENTRY) addCell(into, head + view.getUint16(o, true), view.getFloat32(o + 2, true), view.getFloat32(o + 6, true))
    return into
  }
  let k = head - V2
  for (let o = HEADER; o < buf.byteLength; ) {
    const tag = buf[o]!
    o += 1
    let gap = tag >> 2
    if (gap === GAP_ESCAPE) {
      gap = view.getUint16(o, true)
      o += 2
    }
    k += gap
    let b = 0
    let s = 0
    if (tag & 1) {
      b = view.getFloat32(o, true)
      o += 4
    }
    if (tag & 2) {
      s = view.getFloat32(o, true)
      o += 4
    }
    addCell(into, k, b, s)
  }
  return into
}
