// Gzip from pieces compressed apart (src/rest/gzip-pieces.ts): whatever the pieces, the result is one gzip member
// that a standard decoder (zlib's, which checks the CRC-32 and the length) reads back as the pieces joined; a kept
// piece is compressed once and reused; and joining costs next to nothing in size against compressing the whole.
import { constants, deflateRawSync, gunzipSync, gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { gzipPieces } from '../../src/rest/gzip-pieces.js'

const joined = (pieces: (string | Buffer)[]) => Buffer.concat(pieces.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)))

function candles(n: number, seed: number): Buffer {
  let x = seed
  const r = () => ((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
  return Buffer.from(JSON.stringify(Array.from({ length: n }, (_, i) => ({ ts: 1_700_000_000_000 + i * 60_000, open: 100 + r(), high: 101 + r(), low: 99 + r(), close: 100 + r(), volume: r() * 1e3 }))))
}

describe('gzipPieces', () => {
  it('decodes to the pieces joined, whatever they are', () => {
    const big = candles(2000, 1)
    const other = candles(50, 2)
    const cases: (string | Buffer)[][] = [
      ['{"data":{"candles":', big, '},"meta":{"request_id":"r1"}}'],
      [big],
      ['', big, ''],
      ['{"a":', big, ',"b":', other, ',"c":"ünïcödé ✓ 🚀"}'],
      ['{"a":', big, big, '}'], // two kept pieces side by side, the same one twice
      ['only text, no kept piece'],
      ['x'.repeat(70_000), big, 'y'.repeat(5000)], // text long enough to be compressed per answer
      [],
    ]
    for (const pieces of cases) {
      const gz = gzipPieces(pieces)
      expect(gz.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]))
      expect(gunzipSync(gz).equals(joined(pieces))).toBe(true)
    }
  })

  it('copies a kept piece as its own deflate, whatever surrounds it', () => {
    const big = candles(3000, 3)
    const own = deflateRawSync(big, { finishFlush: constants.Z_FULL_FLUSH })
    const a = gzipPieces(['{"data":', big, ',"meta":{"request_id":"aaa"}}'])
    const b = gzipPieces(['{"x":1,"data":', big, ',"meta":{"request_id":"bbbbbb","credits_remaining":12}}'])
    expect(gunzipSync(b).toString()).toContain('"request_id":"bbbbbb"')
    expect(a.indexOf(own)).toBeGreaterThan(10)
    expect(b.indexOf(own)).toBeGreaterThan(10)
  })

  it('is within a few per cent of gzipping the whole body in one go', () => {
    const big = candles(5000, 4)
    const pieces = ['{"data":{"candles":', big, '},"meta":{"request_id":"r"}}']
    const whole = gzipSync(joined(pieces))
    expect(gzipPieces(pieces).length).toBeLessThan(whole.length * 1.03 + 64)
  })
})
