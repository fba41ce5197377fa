// The stored packing of volume at price: v2 (written now) gives back exactly what v1 gave (float32 values, every
// level, -0 kept), is smaller, and rows packed in v1 still decode.
import { describe, expect, it } from 'vitest'
import { decodeVap, encodeVap, vapAdd } from '../../src/domain/minute-vap.js'
import { vapLevel, type Vap } from '../../src/domain/volume-at-price.js'

/** the v1 packing as rows written before issue 32 hold it: int32 base, then uint16 offset, float32 buy, float32 sell */
function encodeV1(vap: Vap): Uint8Array {
  const levels = [...vap.keys()].sort((a, b) => a - b)
  const buf = new Uint8Array(4 + 10 * levels.length)
  const view = new DataView(buf.buffer)
  view.setInt32(0, levels[0]!, true)
  levels.forEach((k, j) => {
    view.setUint16(4 + 10 * j, k - levels[0]!, true)
    view.setFloat32(4 + 10 * j + 2, vap.get(k)![0], true)
    view.setFloat32(4 + 10 * j + 6, vap.get(k)![1], true)
  })
  return buf
}

/** float32 of each value, as both packings store them */
const f32 = (vap: Vap): [number, [number, number]][] => [...vap].map(([k, [b, s]]) => [k, [Math.fround(b), Math.fround(s)]] as [number, [number, number]]).sort((a, b) => a[0] - b[0])
const entries = (vap: Vap) => [...vap].sort((a, b) => a[0] - b[0])

function randomVap(seed: number, price: number, trades: number): Vap {
  let x = seed
  const rnd = () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
  const vap: Vap = new Map()
  for (let i = 0; i < trades; i++) vapAdd(vap, price * (1 + (rnd() - 0.5) * 0.01), rnd() * 3, rnd() < 0.5 ? 'buy' : 'sell')
  return vap
}

describe('volume at price packing', () => {
  it('decodes to the float32 of every value, at every level, for cheap and dear coins', () => {
    for (const [seed, price, trades] of [[1, 0.0123, 40], [2, 1.5, 200], [3, 97_000, 500], [4, 3_100, 1]] as const) {
      const vap = randomVap(seed, price, trades)
      expect(entries(decodeVap(encodeVap(vap)))).toEqual(f32(vap))
    }
  })

  it('gives the same numbers as the v1 packing, which still decodes', () => {
    const vap = randomVap(7, 64_000, 300)
    const v1 = encodeV1(vap)
    expect(entries(decodeVap(v1))).toEqual(entries(decodeVap(encodeVap(vap))))
    expect(encodeVap(vap).byteLength).toBeLessThan(v1.byteLength)
  })

  it('keeps one-sided levels, zero levels, a -0 and gaps wider than a byte', () => {
    const base = vapLevel(2_000)
    const vap: Vap = new Map([
      [base, [1.25, 0]],
      [base + 1, [0, 2.5]],
      [base + 2, [0, 0]],
      [base + 3, [-0, 0.5]],
      [base + 70, [3, 4]],
      [base + 60_000, [0.1, 0]],
    ])
    const back = decodeVap(encodeVap(vap))
    expect(entries(back)).toEqual(f32(vap))
    expect(Object.is(back.get(base + 3)![0], -0)).toBe(true)
    // levels of one side: 1 + 4 bytes each; both: 1 + 8; none: 1; a gap of 63 or more: 2 more
    expect(encodeVap(vap).byteLength).toBe(4 + 5 + 5 + 1 + 9 + (9 + 2) + (5 + 2))
  })

  it('adds into a map it is given, and reads an empty packing as nothing', () => {
    const into: Vap = new Map([[vapLevel(10), [1, 1]]])
    decodeVap(encodeVap(new Map([[vapLevel(10), [0.5, 0]]])), into)
    expect(into.get(vapLevel(10))).toEqual([1.5, 1])
    expect(encodeVap(new Map()).byteLength).toBe(0)
    expect(decodeVap(new Uint8Array(0)).size).toBe(0)
  })

  it('refuses a span of more than 65535 levels, as v1 did', () => {
    expect(() => encodeVap(new Map([[0, [1, 0]], [70_000, [1, 0]]]))).toThrow(RangeError)
  })
})
