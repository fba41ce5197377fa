// The CRC-32 of a concatenation from its parts' (src/rest/crc32-combine.ts) equals zlib's CRC-32 of the whole.
import { crc32 } from 'node:zlib'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { crc32Combine } from '../../src/rest/crc32-combine.js'

describe('crc32Combine', () => {
  it('gives the CRC-32 of A ‖ B from those of A and B and the length of B', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ maxLength: 300 }), (a, b) => {
        expect(crc32Combine(crc32(a), crc32(b), b.length)).toBe(crc32(Buffer.concat([a, b])))
      }),
    )
    // lengths across the powers of two the combination squares through
    for (const [la, lb] of [[0, 0], [1, 65_535], [65_536, 65_537], [3, 400_001], [1_000_003, 1]] as const) {
      const a = Buffer.alloc(la).map((_, i) => (i * 7 + 3) & 255)
      const b = Buffer.alloc(lb).map((_, i) => (i * 13 + 1) & 255)
      expect(crc32Combine(crc32(a), crc32(b), lb), `${la} + ${lb}`).toBe(crc32(Buffer.concat([a, b])))
    }
  })
})
