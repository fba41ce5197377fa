// The PGlite engine's vacuum (src/store/vacuum.ts, run by its thread: src/store/embedded/pglite-worker.ts): PGlite
// runs no autovacuum, so a wide row rewritten in place leaves dead TOAST behind until something vacuums; with the
// vacuum the table stays near one version's size. PGlite in process here: the same engine the thread runs.
import { PGlite } from '@electric-sql/pglite'
import { afterAll, describe, expect, it } from 'vitest'
import { pgliteMigrationFactory } from '../../src/store/migration-adapters.js'
import { applyMigrations } from '../../src/store/migrations.js'
import { CHURNED_TABLES, startVacuum, vacuumChurned } from '../../src/store/vacuum.js'

/** a book of `n` levels a side with prices that do not repeat (so TOAST's compression cannot fold the versions away) */
const book = (n: number, seed: number) => JSON.stringify(Array.from({ length: n }, (_, i) => [64_000 + i * 0.1 + seed * 1e-4 + Math.sin(i * seed) * 1e-3, (seed * 7919 + i * 104_729) % 10_007 / 997]))

interface Db {
  sql: { query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]> }
  close(): Promise<void>
}

/** an in-memory PGlite, migrated unless `migrate` is false */
async function pglite(migrate = true): Promise<Db> {
  const pg = new PGlite()
  if (migrate) await applyMigrations(await pgliteMigrationFactory(pg))
  return { sql: { query: async <T>(text: string, params?: unknown[]) => (await pg.query<T>(text, params)).rows }, close: () => pg.close() }
}

async function rewrite(db: Db, times: number, vacuumEvery: number | null): Promise<number> {
  for (let i = 0; i < times; i++) {
    await db.sql.query(
      `INSERT INTO order_book (exchange, coin, market_type, ts, bids, asks) VALUES ('binance', 'BTC', 'perp', $1, $2::jsonb, $3::jsonb)
       ON CONFLICT (exchange, coin, market_type) DO UPDATE SET ts = excluded.ts, bids = excluded.bids, asks = excluded.asks`,
      [i, book(1000, i + 1), book(1000, i + 2)],
    )
    if (vacuumEvery && (i + 1) % vacuumEvery === 0) await vacuumChurned(db.sql)
  }
  const [{ n }] = (await db.sql.query<{ n: string }>(`SELECT pg_total_relation_size('order_book')::text AS n`)) as [{ n: string }]
  return Number(n)
}

describe('the embedded store vacuum', () => {
  const dbs: Db[] = []
  afterAll(async () => Promise.all(dbs.map((d) => d.close())))
  const open = async (migrate = true) => {
    const db = await pglite(migrate)
    dbs.push(db)
    return db
  }

  it('keeps a book rewritten 120 times near its own size; without it, every version stays', async () => {
    const bare = await rewrite(await open(), 120, null)
    const vacuumed = await rewrite(await open(), 120, 10)
    // each version is ~40 KB of TOAST: 120 of them stay without the vacuum, about 10 with it
    expect(bare).toBeGreaterThan(3 * 1024 * 1024)
    expect(vacuumed).toBeLessThan(bare / 4)
  }, 120_000)

  it('vacuums the churned tables on its timer, and stop waits for a run under way', async () => {
    const db = await open()
    const runs: string[] = []
    const sql = { query: async <T>(text: string, params?: unknown[]) => (text.startsWith('VACUUM') && runs.push(text), db.sql.query<T>(text, params)) }
    const stop = startVacuum(sql, (e) => { throw e }, 20)
    await new Promise((r) => setTimeout(r, 200))
    await stop()
    const after = runs.length
    expect(after).toBeGreaterThan(0)
    expect(runs[0]).toBe(`VACUUM ${CHURNED_TABLES.join(', ')}`)
    await new Promise((r) => setTimeout(r, 100))
    expect(runs.length).toBe(after)
  })

  it('leaves a store without the tables (not migrated yet) alone', async () => {
    const db = await open(false)
    await expect(vacuumChurned(db.sql)).resolves.toBeUndefined()
  })
})
