// The binary COPY writer and reader (src/store/copy-binary.ts): every value it writes reads back unchanged from a real
// PostgreSQL (the embedded one), including the awkward ones a CSV or text format gets wrong.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CopyBinaryWriter, readCopyBinary } from '../../src/store/copy-binary.js'
import type { Database } from '../../src/store/database.js'
import { selectRows } from '../../src/store/select-rows.js'
import { openTestStore } from '../helpers/store.js'

const COLUMNS = ['t', 'i8', 'i4', 'f8', 'b']
const ROWS: [string | null, number | null, number | null, number | null, Uint8Array | null][] = [
  ['plain', 0, 0, 0, new Uint8Array(0)],
  ['comma, "quotes", back\\slash\nnewline', Number.MAX_SAFE_INTEGER, 2147483647, 1e-300, Uint8Array.from([0, 255, 10, 13, 92])],
  ['ünïcødé ✓ 𝄞', -(2 ** 40) - 7, -2147483648, -0.1, Uint8Array.from({ length: 300 }, (_, i) => i % 256)],
  ['', Number.MIN_SAFE_INTEGER, -1, 65432.123456789, Uint8Array.from([1])],
  [null, null, null, null, null],
  ['nan and infinities', 1_700_000_000_000, 7, Number.POSITIVE_INFINITY, Uint8Array.from([2])],
  ['-inf', 2 ** 32, 1, Number.NEGATIVE_INFINITY, Uint8Array.from([3])],
  ['nan', 2 ** 32 - 1, 2, Number.NaN, Uint8Array.from([4])],
]

function encode(rows: typeof ROWS, expectedBytes?: number): Uint8Array<ArrayBuffer> {
  const w = new CopyBinaryWriter(expectedBytes)
  for (const [t, i8, i4, f8, b] of rows) {
    w.row(5)
    t === null ? w.null() : w.text(t)
    i8 === null ? w.null() : w.int8(i8)
    i4 === null ? w.null() : w.int4(i4)
    w.float8(f8)
    b === null ? w.null() : w.bytea(b)
  }
  return w.finish()
}

describe('CopyBinaryWriter', () => {
  let db: Database
  beforeAll(async () => {
    db = await openTestStore()
    await db.sql.query('CREATE TABLE copy_probe (n serial, t text, i8 bigint, i4 integer, f8 double precision, b bytea)')
  })
  afterAll(() => db.close())

  it.each([['a roomy buffer', 1 << 16], ['a buffer that has to grow many times', 1]])('round-trips every value through COPY (%s)', async (_name, expected) => {
    await db.sql.query('TRUNCATE copy_probe RESTART IDENTITY')
    await db.sql.copyBinary!('copy_probe', COLUMNS, encode(ROWS, expected))
    const rows = await db.sql.query<{ t: string | null; i8: string | number | null; i4: number | null; f8: number | null; b: Uint8Array | null }>('SELECT t, i8::text AS i8, i4, f8, b FROM copy_probe ORDER BY n')
    expect(rows.map((r) => [r.t, r.i8 === null ? null : Number(r.i8), r.i4, r.f8, r.b === null ? null : Uint8Array.from(r.b)])).toEqual(ROWS)
    expect(Object.is(rows[0]!.f8, 0)).toBe(true)
  })

  it('writes the format the server expects, byte for byte', () => {
    const w = new CopyBinaryWriter()
    const out = Buffer.from(w.row(2).int4(258).null().finish())
    expect(out.toString('hex')).toBe(
      Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1').toString('hex') + '00000000' + '00000000' + '0002' + '00000004' + '00000102' + 'ffffffff' + 'ffff',
    )
  })

  it('refuses a bigint it cannot write exactly, and the server refuses a wrong type', async () => {
    expect(() => new CopyBinaryWriter().row(1).int8(2 ** 53)).toThrow(RangeError)
    expect(() => new CopyBinaryWriter().row(1).int8(1.5)).toThrow(RangeError)
    const wrong = new CopyBinaryWriter().row(5).text('x').int4(1).int4(1).float8(1).bytea(new Uint8Array(0)).finish()
    await expect(db.sql.copyBinary!('copy_probe', COLUMNS, wrong)).rejects.toThrow()
    // the failed COPY left nothing behind and the connection usable
    expect(await db.sql.query('SELECT 1 AS one')).toEqual([{ one: 1 }])
  })
})

describe('readCopyBinary and selectRows (COPY ... TO, the embedded store\'s bulk read)', () => {
  let db: Database
  const READ = [['t', 'text'], ['i8', 'int8'], ['i4', 'int4'], ['f8', 'float8']] as const
  beforeAll(async () => {
    db = await openTestStore()
    await db.sql.query('CREATE TABLE copy_out (n serial, t text, i8 bigint, i4 integer, f8 double precision, b bytea)')
    await db.sql.copyBinary!('copy_out', COLUMNS, encode(ROWS))
  })
  afterAll(() => db.close())

  it('reads back every value the server holds, NULLs, extremes, NaN and infinities included', async () => {
    const rows = await selectRows<Record<string, unknown>>(db.sql, 'SELECT t, i8, i4, f8 FROM copy_out WHERE n >= $1 ORDER BY n', [1], READ)
    expect(rows.map((r) => [r.t, r.i8, r.i4, r.f8])).toEqual(ROWS.map(([t, i8, i4, f8]) => [t, i8, i4, f8]))
  })

  it('gives the rows query() gives, parameters bound the same way', async () => {
    const text = 'SELECT t, i8, i4, f8 FROM copy_out WHERE i4 >= $1 AND i4 < $2 ORDER BY n'
    const viaCopy = await selectRows<Record<string, unknown>>(db.sql, text, [0, 10], READ)
    const viaQuery = await selectRows<Record<string, unknown>>({ ...db.sql, selectBinary: undefined }, text, [0, 10], READ)
    expect(viaCopy.length).toBe(ROWS.filter(([, , i4]) => i4 !== null && i4 >= 0 && i4 < 10).length)
    expect(viaCopy).toEqual(viaQuery.map((r) => ({ ...r, i8: r.i8 === null ? null : Number(r.i8) })))
  })

  it('refuses a payload that is not what the caller said it is', async () => {
    const data = await db.sql.selectBinary!('SELECT t, i8 FROM copy_out')
    expect(() => readCopyBinary(data, READ)).toThrow(/2 fields, expected 4/)
    expect(() => readCopyBinary(data, [['t', 'text'], ['i8', 'int4']])).toThrow(/i8 \(int4\) has 8 bytes/)
    expect(() => readCopyBinary(new Uint8Array(32), READ)).toThrow(/signature/)
    await expect(selectRows(db.sql, 'SELECT t FROM copy_out WHERE n = $1', [Number.NaN], [['t', 'text']])).rejects.toThrow(RangeError)
  })
})
