// Gzip for an answer made of pieces, some of them kept from earlier answers (long lists, src/graphql/list-fragments.ts):
// a kept piece is compressed once — raw deflate ending in a full flush, which empties the compressor's window, so what
// follows never refers back into it — and the same bytes are copied into every answer that holds the piece, its
// CRC-32 kept beside them and combined in (crc32-combine.ts); the short pieces around it (the envelope's head, its
// per-request meta) go in as stored blocks, longer ones are compressed per answer. The result is one gzip member
// (RFC 1952) over one deflate stream (RFC 1951), built as zlib's gzjoin example joins streams, so every gzip decoder
// reads it; its CRC-32 and length cover the whole body.
import { constants, crc32, deflateRawSync } from 'node:zlib'
import { crc32Combine } from './crc32-combine.js'

/** a kept piece → its deflate and CRC-32, for as long as the piece itself is kept */
const kept = new WeakMap<Buffer, { deflated: Buffer; crc: number }>()

/** gzip header: deflate, no flags, no time, no extra flags, OS unknown */
const HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff])
/** the stream's last block: final, fixed Huffman, no symbols */
const LAST_BLOCK = deflateRawSync(Buffer.alloc(0))
/** text pieces up to this long go in stored, as they are (compressing a few hundred bytes saves less than it costs) */
const STORED_UP_TO = 4096

const flushed = (bytes: Buffer): Buffer => deflateRawSync(bytes, { finishFlush: constants.Z_FULL_FLUSH })

/** a non-final stored block (every block here starts on a byte boundary: each piece before ends in a full flush) */
function stored(bytes: Buffer): Buffer {
  const block = Buffer.allocUnsafe(5 + bytes.length)
  block[0] = 0 // BFINAL 0, BTYPE 00, the rest of the byte padding
  block.writeUInt16LE(bytes.length, 1)
  block.writeUInt16LE(~bytes.length & 0xffff, 3)
  bytes.copy(block, 5)
  return block
}

/** `pieces` in order: strings are written now, Buffers are kept pieces (compressed once, then reused) */
export function gzipPieces(pieces: readonly (string | Buffer)[]): Buffer {
  const out: Buffer[] = [HEADER]
  let crc = 0
  let length = 0
  for (const piece of pieces) {
    if (typeof piece === 'string') {
      const bytes = Buffer.from(piece)
      if (!bytes.length) continue
      crc = crc32(bytes, crc)
      out.push(bytes.length <= STORED_UP_TO ? stored(bytes) : flushed(bytes))
      length += bytes.length
    } else if (piece.length) {
      let k = kept.get(piece)
      if (!k) kept.set(piece, (k = { deflated: flushed(piece), crc: crc32(piece) }))
      crc = crc32Combine(crc, k.crc, piece.length)
      out.push(k.deflated)
      length += piece.length
    }
  }
  const trailer = Buffer.alloc(8)
  trailer.writeUInt32LE(crc >>> 0, 0)
  trailer.writeUInt32LE(length % 2 ** 32, 4)
  out.push(LAST_BLOCK, trailer)
  return Buffer.concat(out)
}
