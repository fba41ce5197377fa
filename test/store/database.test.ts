// The store as the service opens it: the embedded store (a PostgreSQL this process starts, in DATA_DIR/pg) and an
// external PostgreSQL on one code path. The hand-off (Database.handoff): bytes left as a process closes the
// embedded store reach the next process that opens it and no later one. COPY in and out on the pg driver.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { CopyBinaryWriter, readCopyBinary } from '../../src/store/copy-binary.js'
import { handoffFile, openDatabase } from '../../src/store/database.js'
import { selectRows } from '../../src/store/select-rows.js'
import { openTestStore } from '../helpers/store.js'

const quiet = { info: () => {}, warn: () => {}, error: () => {} }

describe('Database.handoff', () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'handoff-'))
  fs.chmodSync(root, 0o755) // reachable by the OS user postgres the cluster runs as under root
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

  it('gives what the last process left to the next opener only, once; a second start reuses the data', { timeout: 120_000 }, async () => {
    const dataDir = path.join(root, 'data')
    const open = () => openDatabase({ kind: 'embedded', engine: 'postgres', dataDir }, { migrate: false, log: quiet })
    const left = Uint8Array.from({ length: 70_000 }, (_, i) => (i * 31) % 251)

    let db = await open()
    expect(db.kind).toBe('embedded')
    expect(db.embedded).toEqual({ engine: 'postgres', dir: path.join(dataDir, 'pg') })
    expect(db.handoff!.take()).toBeNull()
    await db.sql.query('CREATE TABLE kept (v int)')
    await db.sql.query('INSERT INTO kept VALUES (42)')
    await db.handoff!.leave(left)
    await db.close()
    const file = handoffFile(path.join(dataDir, 'pg'))
    expect(fs.existsSync(file)).toBe(true)

    db = await open()
    // taken away as the store opened: nothing another opener could read while this one writes
    expect(fs.existsSync(file)).toBe(false)
    expect(Buffer.from(db.handoff!.take()!).equals(Buffer.from(left))).toBe(true)
    expect(db.handoff!.take()).toBeNull()
    // the same cluster: what the first start wrote is there
    expect(await db.sql.query('SELECT v FROM kept')).toEqual([{ v: 42 }])
    await db.close() // leaves nothing: a crash, or a command-line tool that wrote to the store

    db = await open()
    expect(db.handoff!.take()).toBeNull()
    await db.close()
  })

  it('travels with a copy of the stopped store: a restored backup gets the bytes left with it, not newer ones', { timeout: 120_000 }, async () => {
    const dataDir = path.join(root, 'restored')
    const backup = path.join(root, 'backup')
    const open = () => openDatabase({ kind: 'embedded', engine: 'postgres', dataDir }, { migrate: false, log: quiet })
    let db = await open()
    await db.handoff!.leave(Buffer.from('as backed up'))
    await db.close()
    fs.cpSync(dataDir, backup, { recursive: true })
    db = await open()
    db.handoff!.take()
    await db.handoff!.leave(Buffer.from('newer'))
    await db.close()
    fs.rmSync(dataDir, { recursive: true })
    fs.cpSync(backup, dataDir, { recursive: true })
    db = await open()
    expect(Buffer.from(db.handoff!.take()!).toString()).toBe('as backed up')
    await db.close()
  })

  it('is absent on an external PostgreSQL', async () => {
    const db = await openTestStore()
    expect(db.kind).toBe('postgres')
    expect(db.handoff).toBeNull()
    await db.close()
  })
})

describe('COPY on the pg driver', () => {
  it('copyBinary loads rows that selectBinary (and selectRows) read back as they were', async () => {
    const db = await openTestStore()
    try {
      await db.sql.query('CREATE TABLE copied (name text, ts bigint, price double precision)')
      const rows = Array.from({ length: 5000 }, (_, i) => ({ name: `c${i % 7}`, ts: 1_700_000_000_000 + i * 60_000, price: i % 11 === 0 ? null : i / 8 }))
      const w = new CopyBinaryWriter(rows.length * 40)
      for (const r of rows) w.row(3).text(r.name).int8(r.ts).float8(r.price)
      await db.sql.copyBinary!('copied', ['name', 'ts', 'price'], w.finish())
      expect(await db.sql.query('SELECT count(*)::int AS n FROM copied')).toEqual([{ n: 5000 }])
      const cols = [['name', 'text'], ['ts', 'int8'], ['price', 'float8']] as const
      const back = readCopyBinary(await db.sql.selectBinary!('SELECT name, ts, price FROM copied ORDER BY ts'), cols)
      expect(back).toEqual(rows)
      // placeholders inlined as numbers
      const some = await selectRows(db.sql, 'SELECT name, ts, price FROM copied WHERE ts >= $1 AND ts < $2 ORDER BY ts', [rows[10]!.ts, rows[13]!.ts], cols)
      expect(some).toEqual(rows.slice(10, 13))
      // a malformed copy fails as a statement does, and the connection goes on serving
      await expect(db.sql.copyBinary!('copied', ['name'], new Uint8Array([1, 2, 3]))).rejects.toThrow()
      expect(await db.sql.query('SELECT count(*)::int AS n FROM copied')).toEqual([{ n: 5000 }])
    } finally {
      await db.close()
    }
  })
})
