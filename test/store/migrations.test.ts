import { PGlite } from '@electric-sql/pglite'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { openDatabase } from '../../src/store/database.js'
import { pgliteMigrationFactory, pgMigrationFactory } from '../../src/store/migration-adapters.js'
import { applyMigrations, listMigrations, pendingSchemaChanges, unappliedMigrations } from '../../src/store/migrations.js'
import { testDatabase } from '../helpers/store.js'
import { freshSchema, requirePostgresInCi } from '../helpers/postgres.js'

const TABLES = ['account', 'alert_delivery', 'alert_rule', 'api_key', 'backfill_day', 'candle_1h', 'candle_1m', 'coin', 'credit_lease', 'credit_ledger', 'exchange', 'feed_uptime', 'funding_rate', 'history_hole', 'history_progress', 'large_trade', 'limit_counter', 'liquidation_minute', 'liquidation_order', 'market_sample', 'minute_partial', 'order_book', 'payment_event', 'positioning_sample', 'service_secret', 'store_source']

/** an empty database on the test run's cluster, a client on it, and its migration adapter */
async function emptyStore(cleanups: (() => Promise<void>)[]) {
  const { url, drop } = await testDatabase({ empty: true })
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  cleanups.push(async () => {
    await client.end()
    await drop()
  })
  return { url, pg: client, factory: () => pgMigrationFactory(url) }
}

describe('migrations (WASM schema engine)', () => {
  const cleanups: (() => Promise<void>)[] = []
  afterAll(async () => Promise.all(cleanups.map((c) => c())))

  // as `npm run db:migration:create` diffs (src/cli/migrate.ts): on an in-memory PGlite, which needs no server
  it('the migration history produces exactly prisma/schema.prisma (no drift)', { timeout: 180_000 }, async () => {
    const pg = new PGlite()
    cleanups.push(() => pg.close())
    expect(await pendingSchemaChanges(await pgliteMigrationFactory(pg))).toBe('')
  })

  it('applies every migration to an empty store, then is a no-op', async () => {
    const { pg, factory: make } = await emptyStore(cleanups)
    const factory = await make()
    const names = (await listMigrations()).migrationDirectories.map((m) => m.path)
    expect(await applyMigrations(factory)).toEqual(names)
    expect(await applyMigrations(factory)).toEqual([])
    const { rows } = await pg.query<{ table_name: string }>(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name NOT LIKE '\\_%' ORDER BY 1`)
    expect(rows.map((r) => r.table_name)).toEqual(TABLES)
    const applied = await pg.query<{ migration_name: string; finished: boolean }>('SELECT migration_name, finished_at IS NOT NULL AS finished FROM _prisma_migrations ORDER BY migration_name')
    expect(applied.rows).toEqual(names.map((migration_name) => ({ migration_name, finished: true })))
  })

  it('keeps one index on each candle table: its key, led by the coin as the windowed reads are', async () => {
    const { pg, factory } = await emptyStore(cleanups)
    await applyMigrations(await factory())
    const { rows } = await pg.query<{ tablename: string; indexdef: string }>(`SELECT tablename, indexdef FROM pg_indexes WHERE tablename IN ('candle_1m', 'candle_1h') ORDER BY 1`)
    expect(rows.map((r) => [r.tablename, r.indexdef.replace(/^.* USING btree /, '')])).toEqual([
      ['candle_1h', '(coin, market_type, ts, exchange)'],
      ['candle_1m', '(coin, market_type, ts, exchange)'],
    ])
  })

  it('says which migrations a store lacks, from Prisma\'s bookkeeping (so an up-to-date store opens without the schema engine)', async () => {
    const { pg, factory } = await emptyStore(cleanups)
    const sql = { query: async <T>(text: string) => (await pg.query(text)).rows as T[] }
    const names = (await listMigrations()).migrationDirectories.map((m) => m.path)
    expect(await unappliedMigrations(sql)).toBeNull() // no bookkeeping table yet: cannot say
    await applyMigrations(await factory())
    expect(await unappliedMigrations(sql)).toEqual([])
    // a migration rolled back, or one that did not finish, is still to apply
    await pg.query(`UPDATE _prisma_migrations SET rolled_back_at = now() WHERE migration_name = $1`, [names.at(-1)])
    await pg.query(`UPDATE _prisma_migrations SET finished_at = NULL WHERE migration_name = $1`, [names[0]])
    expect(await unappliedMigrations(sql)).toEqual([names[0], names.at(-1)])
  })

  it('enforces a non-negative balance in the database itself', async () => {
    const store = await testDatabase({ empty: true })
    const db = await openDatabase({ kind: 'postgres', url: store.url })
    try {
      await db.sql.query(`INSERT INTO account (id, email, credits) VALUES ('00000000-0000-4000-8000-000000000001', 'x@example.com', 1)`)
      await expect(db.sql.query(`UPDATE account SET credits = -1`)).rejects.toThrow(/account_credits_nonnegative/)
    } finally {
      await db.close()
      await store.drop()
    }
  })

  it('applies the same history to PostgreSQL on loopback', async (ctx) => {
    if (!(await requirePostgresInCi())) return ctx.skip()
    const { url, drop } = await freshSchema('migrate')
    try {
      const factory = await pgMigrationFactory(url)
      const names = (await listMigrations()).migrationDirectories.map((m) => m.path)
      expect(await applyMigrations(factory)).toEqual(names)
      expect(await applyMigrations(await pgMigrationFactory(url))).toEqual([])
    } finally {
      await drop()
    }
  })
})
