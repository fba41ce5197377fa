// CRC-32 of a concatenation from the CRC-32s of its parts (zlib's crc32_combine, which Node does not expose): what
// lets a gzip answer that copies a kept piece (gzip-pieces.ts) compute its checksum without reading the piece again.
// Appending n zero bytes to the first part is a linear map over GF(2) on its CRC register; the maps for 2^k zero
// bytes are built once by squaring the one-zero-bit operator (as zlib does), and n's set bits pick which to apply;
// then the second part's CRC is XORed in.

const POLY = 0xedb88320

/** the 32×32 bit matrix `mat` (one column per word) times the vector `vec` */
function times(mat: Uint32Array, vec: number): number {
  let sum = 0
  for (let i = 0; vec; i++, vec >>>= 1) if (vec & 1) sum ^= mat[i]!
  return sum >>> 0
}

const square = (mat: Uint32Array): Uint32Array => mat.map((col) => times(mat, col))

/** ZEROS[k]: the operator appending 2^k zero bytes (k < 53: every safe integer length) */
const ZEROS: Uint32Array[] = (() => {
  let op: Uint32Array = new Uint32Array(32)
  op[0] = POLY // one zero bit
  for (let n = 1; n < 32; n++) op[n] = (1 << (n - 1)) >>> 0
  for (let i = 0; i < 3; i++) op = square(op) // eight zero bits: one zero byte
  const out: Uint32Array[] = [op]
  for (let k = 1; k < 53; k++) out.push(square(out[k - 1]!))
  return out
})()

/** crc32(A ‖ B) from crc32(A), crc32(B) and B's length in bytes */
export function crc32Combine(crc1: number, crc2: number, len2: number): number {
  let crc = crc1 >>> 0
  for (let k = 0, n = len2; n >= 1; k++, n = Math.floor(n / 2)) if (n % 2 === 1) crc = times(ZEROS[k]!, crc)
  return (crc ^ crc2) >>> 0
}
