// Named prepared statements (src/store/prepared.ts): the same rows as query() for the same statement and
// parameters, on the embedded store and on PostgreSQL; text-format parameters that survive every awkward string;
// errors that surface and leave the statement usable; never running inside another caller's transaction.
import { afterAll, beforeAll, describe, expect, it, it as itAll } from 'vitest'
import { openDatabase, type Database } from '../../src/store/database.js'
import { textParam } from '../../src/store/prepared.js'
import { freshSchema, requirePostgresInCi } from '../helpers/postgres.js'
import { openTestStore } from '../helpers/store.js'

const AWKWARD = ['plain', 'with "quotes"', 'back\\slash', 'comma, and {braces}', 'NULL', '', '  spaced  ', 'ünïcødé ✓', "it's"]

describe('textParam', () => {
  it('writes scalars in PostgreSQL text input format', () => {
    expect(textParam(null)).toBeNull()
    expect(textParam(undefined)).toBeNull()
    expect(textParam(42)).toBe('42')
    expect(textParam(-1.5)).toBe('-1.5')
    expect(textParam(true)).toBe('t')
    expect(textParam(false)).toBe('f')
    expect(textParam('x')).toBe('x')
    expect(textParam(new Date(0))).toBe('1970-01-01T00:00:00.000Z')
  })

  it('writes arrays as literals with every element quoted and escaped', () => {
    expect(textParam([1, 2, 3])).toBe('{"1","2","3"}')
    expect(textParam(['a"b', 'c\\d', null])).toBe('{"a\\"b","c\\\\d",NULL}')
    expect(textParam([])).toBe('{}')
    expect(textParam([[1, 2], [3, 4]])).toBe('{{"1","2"},{"3","4"}}')
  })

  it('refuses what it cannot write faithfully', () => {
    expect(() => textParam('nul\u0000byte')).toThrow(RangeError)
    expect(() => textParam({ a: 1 })).toThrow(TypeError)
  })
})

function sharedCases(open: () => Promise<Database | null>) {
  let db: Database
  let ready = false
  const it = (name: string, fn: () => Promise<void>) => itAll(name, async (ctx) => (ready ? fn() : ctx.skip()))
  beforeAll(async () => {
    const opened = await open()
    if (!opened) return
    db = opened
    ready = true
    await db.sql.query('CREATE TABLE IF NOT EXISTS prep_t (id int PRIMARY KEY, name text NOT NULL)')
  })
  afterAll(async () => {
    await db?.sql.query('DROP TABLE IF EXISTS prep_t')
    await db?.close()
  })

  const arraysSql = `SELECT i, t, n FROM unnest($1::int[], $2::text[], $3::int[]) AS u(i, t, n) ORDER BY i`

  it('returns the same rows as query() for arrays of awkward strings and nulls', async () => {
    const params = [AWKWARD.map((_, i) => i), AWKWARD, AWKWARD.map((_, i) => (i % 3 === 0 ? null : i * 10))]
    const viaQuery = await db.sql.query(arraysSql, params)
    const viaPrepared = await db.sql.prepared('prep_arrays', arraysSql, params)
    expect(viaPrepared).toEqual(viaQuery)
    expect(viaPrepared.map((r) => r.t)).toEqual(AWKWARD)
    // and again: the second call runs the already-prepared statement
    expect(await db.sql.prepared('prep_arrays', arraysSql, params)).toEqual(viaQuery)
  })

  it('parses result types as query() does (int, bigint, boolean, null, text)', async () => {
    const text = 'SELECT $1::int AS i, $2::bigint AS b, $3::boolean AS ok, $4::text AS t, NULL::int AS z'
    const params = [7, 1_700_000_000_000, true, 'x']
    expect(await db.sql.prepared('prep_types', text, params)).toEqual(await db.sql.query(text, params))
  })

  it('reports a failing statement and stays usable afterwards', async () => {
    const insert = 'INSERT INTO prep_t (id, name) VALUES ($1, $2) RETURNING id'
    expect(await db.sql.prepared('prep_insert', insert, [1, 'one'])).toEqual([{ id: 1 }])
    await expect(db.sql.prepared('prep_insert', insert, [1, 'again'])).rejects.toThrow(/duplicate key|unique/i)
    await expect(db.sql.prepared('prep_insert', insert, [2, null])).rejects.toThrow(/null/i)
    expect(await db.sql.prepared('prep_insert', insert, [3, 'three'])).toEqual([{ id: 3 }])
    expect(await db.sql.query('SELECT id FROM prep_t ORDER BY id')).toEqual([{ id: 1 }, { id: 3 }])
  })

  it('never runs inside another caller\'s open transaction', async () => {
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    let inserted!: () => void
    const open = new Promise<void>((r) => (inserted = r))
    const tx = db.sql.transaction(async (t) => {
      await t.query("INSERT INTO prep_t (id, name) VALUES (10, 'in tx')")
      inserted()
      await gate
      throw new Error('roll back')
    })
    await open
    // issued while the transaction is open: it must not see (or commit) the transaction's row
    const during = db.sql.prepared<{ n: number }>('prep_count', 'SELECT count(*)::int AS n FROM prep_t WHERE id = $1', [10])
    // one event-loop turn: on the embedded store (one connection, in this process) a statement that was not held
    // back until the transaction ends would have run inside it by now
    await new Promise((r) => setImmediate(r))
    release()
    await expect(tx).rejects.toThrow('roll back')
    expect(await during).toEqual([{ n: 0 }])
    expect(await db.sql.query('SELECT id FROM prep_t WHERE id = 10')).toEqual([])
  })
}

describe('prepared statements on the embedded store', () => {
  sharedCases(() => openTestStore())

  it('a name re-prepared with a new text runs the new text', async () => {
    const db = await openTestStore()
    try {
      expect(await db.sql.prepared('same_name', 'SELECT $1::int + 1 AS v', [1])).toEqual([{ v: 2 }])
      expect(await db.sql.prepared('same_name', 'SELECT $1::int * 10 AS v', [2])).toEqual([{ v: 20 }])
    } finally {
      await db.close()
    }
  })
})

describe('prepared statements on PostgreSQL', () => {
  let schema: Awaited<ReturnType<typeof freshSchema>> | undefined
  let up = false
  beforeAll(async () => {
    up = await requirePostgresInCi()
    if (up) schema = await freshSchema('prepared')
  })
  afterAll(async () => {
    await schema?.drop()
  })
  sharedCases(async () => (up ? openDatabase({ kind: 'postgres', url: schema!.url }, { migrate: false }) : null))
})
