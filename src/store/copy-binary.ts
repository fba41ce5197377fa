// PostgreSQL's binary COPY format (https://www.postgresql.org/docs/current/sql-copy.html#id-1.9.3.55.9.4):
// an 11-byte signature, flags and header-extension words, then per row an int16 field count and per field
// an int32 byte length (-1 for NULL) followed by the value in its type's binary send format (big-endian).
// The server takes binary values as they are, so a bulk load skips parsing text floats, which on the
// embedded store (PostgreSQL compiled to WebAssembly) is most of a COPY's cost. Written here rather than
// taken from npm: the one package for it (pg-copy-streams-binary) is a stream pipeline built on old stream
// helpers, and the format is a short, fixed part of PostgreSQL's protocol documentation.

const SIGNATURE = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1')
const TWO_32 = 2 ** 32

/** a COPY ... WITH (FORMAT binary) payload, one field at a time; the value's type must match the column's exactly */
export class CopyBinaryWriter {
  private buf: Buffer<ArrayBuffer>
  private at = 0

  constructor(expectedBytes = 1 << 16) {
    this.buf = Buffer.allocUnsafe(Math.max(64, expectedBytes))
    SIGNATURE.copy(this.buf, 0)
    this.buf.writeInt32BE(0, 11) // flags: no OIDs
    this.buf.writeInt32BE(0, 15) // header extension length
    this.at = 19
  }

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n))
    this.buf.copy(next, 0, 0, this.at)
    this.buf = next
  }

  /** start a row of `fields` fields */
  row(fields: number): this {
    this.room(2)
    this.buf.writeInt16BE(fields, this.at)
    this.at += 2
    return this
  }

  null(): this {
    this.room(4)
    this.buf.writeInt32BE(-1, this.at)
    this.at += 4
    return this
  }

  /** text / varchar, UTF-8 */
  text(s: string): this {
    const max = Buffer.byteLength(s, 'utf8')
    this.room(4 + max)
    const n = this.buf.write(s, this.at + 4, 'utf8')
    this.buf.writeInt32BE(n, this.at)
    this.at += 4 + n
    return this
  }

  /** bigint, from a safe integer */
  int8(n: number): this {
    if (!Number.isSafeInteger(n)) throw new RangeError(`COPY int8: ${n} is not a safe integer`)
    this.room(12)
    const hi = Math.floor(n / TWO_32)
    this.buf.writeInt32BE(8, this.at)
    this.buf.writeInt32BE(hi, this.at + 4)
    this.buf.writeUInt32BE(n - hi * TWO_32, this.at + 8)
    this.at += 12
    return this
  }

  /** integer */
  int4(n: number): this {
    this.room(8)
    this.buf.writeInt32BE(4, this.at)
    this.buf.writeInt32BE(n, this.at + 4)
    this.at += 8
    return this
  }

  /** double precision; null for a missing value */
  float8(n: number | null): this {
    if (n === null) return this.null()
    this.room(12)
    this.buf.writeInt32BE(8, this.at)
    this.buf.writeDoubleBE(n, this.at + 4)
    this.at += 12
    return this
  }

  bytea(b: Uint8Array): this {
    this.room(4 + b.byteLength)
    this.buf.writeInt32BE(b.byteLength, this.at)
    this.buf.set(b, this.at + 4)
    this.at += 4 + b.byteLength
    return this
  }

  /** the payload with its trailer; the writer is spent */
  finish(): Uint8Array<ArrayBuffer> {
    this.room(2)
    this.buf.writeInt16BE(-1, this.at)
    this.at += 2
    return this.buf.subarray(0, this.at)
  }
}

/** the column types readCopyBinary decodes (their binary send formats) */
export type CopyColumnType = 'text' | 'int8' | 'int4' | 'float8'

/**
 * The rows of a COPY ... TO ... WITH (FORMAT binary) payload as objects keyed by `columns` (in the COPY's column
 * order); NULL is null, int8 a number (it must be a safe integer). A wrong column count or type length throws.
 */
export function readCopyBinary<T>(data: Uint8Array, columns: readonly (readonly [name: string, type: CopyColumnType])[]): T[] {
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength)
  if (buf.length < 19 || !buf.subarray(0, 11).equals(SIGNATURE)) throw new Error('COPY binary: not a binary COPY payload (signature)')
  let at = 19 + buf.readInt32BE(15) // past the header extension
  const rows: T[] = []
  for (;;) {
    const fields = buf.readInt16BE(at)
    at += 2
    if (fields === -1) return rows
    if (fields !== columns.length) throw new Error(`COPY binary: a row of ${fields} fields, expected ${columns.length}`)
    const row: Record<string, unknown> = {}
    for (const [name, type] of columns) {
      const len = buf.readInt32BE(at)
      at += 4
      if (len === -1) {
        row[name] = null
        continue
      }
      const need = type === 'int8' || type === 'float8' ? 8 : type === 'int4' ? 4 : len
      if (len !== need) throw new Error(`COPY binary: column ${name} (${type}) has ${len} bytes`)
      if (type === 'text') row[name] = buf.toString('utf8', at, at + len)
      else if (type === 'float8') row[name] = buf.readDoubleBE(at)
      else if (type === 'int4') row[name] = buf.readInt32BE(at)
      else {
        const n = buf.readInt32BE(at) * TWO_32 + buf.readUInt32BE(at + 4)
        if (!Number.isSafeInteger(n)) throw new RangeError(`COPY binary: column ${name} holds ${n}, beyond a safe integer`)
        row[name] = n
      }
      at += len
    }
    rows.push(row as T)
  }
}
