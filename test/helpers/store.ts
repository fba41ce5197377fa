// Test stores: each a database of its own on the run's embedded PostgreSQL cluster (test/global-setup.ts), created
// from the migrated template, opened as the service opens any PostgreSQL, and dropped when closed.
import pg from 'pg'
import { inject } from 'vitest'
import { openDatabase, type Database } from '../../src/store/database.js'

let admin: Promise<pg.Pool> | undefined
let counter = 0

function adminPool(): Promise<pg.Pool> {
  admin ??= (async () => {
    const pool = new pg.Pool({ connectionString: inject('testClusterUrl'), max: 2 })
    pool.on('error', () => {})
    return pool
  })()
  return admin
}

/** a fresh database on the test cluster, from the migrated template (or `empty`: no tables); its URL and a drop() */
export async function testDatabase(opts: { empty?: boolean } = {}): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `t_${process.pid}_${++counter}_${Math.random().toString(36).slice(2, 8)}`
  const pool = await adminPool()
  await pool.query(`CREATE DATABASE ${name} TEMPLATE ${opts.empty ? 'template0' : inject('testTemplate')}`)
  const u = new URL(inject('testClusterUrl'))
  u.pathname = `/${name}`
  return { url: u.toString(), drop: async () => void (await pool.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)) }
}

/** a fresh, migrated store (kind 'postgres'); close() also drops its database */
export async function openTestStore(opts: { timeoutMs?: number } = {}): Promise<Database> {
  const { url, drop } = await testDatabase()
  const db = await openDatabase({ kind: 'postgres', url, timeoutMs: opts.timeoutMs }, { migrate: false })
  const close = db.close.bind(db)
  let closed: Promise<void> | undefined
  db.close = () => (closed ??= close().finally(drop))
  return db
}
