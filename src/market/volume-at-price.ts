// Volume at price kept per 1-minute aggregate (the grid: src/domain/volume-at-price.ts): adding, merging, and the
// stored packing: int32 base level, then per level int16 offset, float32 buy, float32 sell (10 bytes).
import { vapLevel, type Vap } from '../domain/volume-at-price.js'

const HEADER = 4
const ENTRY = 10

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

export function encodeVap(vap: Vap): Uint8Array {
  const n = vap.size
  if (n === 0) return EMPTY
  // levels in ascending order (maps filled from a path or trades in time order often are already)
  const levels = new Array<number>(n)
  let i = 0
  let sorted = true
  for (const k of vap.keys()) {
    if (i > 0 && k < levels[i - 1]!) sorted = false
    levels[i++] = k
  }
  if (!sorted) levels.sort((a, b) => a - b)
  const base = levels[0]!
  if (levels[n - 1]! - base > 0xffff) throw new RangeError('volume-at-price spans more than 65535 levels in one aggregate')
  const buf = new Uint8Array(HEADER + ENTRY * n)
  const view = new DataView(buf.buffer)
  view.setInt32(0, base, true)
  for (let j = 0, o = HEADER; j < n; j++, o += ENTRY) {
    const k = levels[j]!
    const cell = vap.get(k)!
    view.setUint16(o, k - base, true)
    view.setFloat32(o + 2, cell[0], true)
    view.setFloat32(o + 6, cell[1], true)
  }
  return buf
}

export function decodeVap(buf: Uint8Array, into: Vap = new Map()): Vap {
  if (buf.byteLength < HEADER) return into
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength)
  const base = view.getInt32(0, true)
  for (let o = HEADER; o + ENTRY <= buf.byteLength; o += ENTRY) {
    const k = base + view.getUint16(o, true)
    const b = view.getFloat32(o + 2, true)
    const s = view.getFloat32(o + 6, true)
    const cell = into.get(k)
    if (cell) {
      cell[0] += b
      cell[1] += s
    } else into.set(k, [b, s])
  }
  return into
}
