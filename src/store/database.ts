// The store: one Prisma client on PostgreSQL's driver adapter, plus a raw SQL channel on the same database for bulk
// writes (COPY) and hot reads (Prisma's per-row cost is too high there). The same code path for an external
// PostgreSQL (DATABASE_URL) and the embedded store, a server this process starts and owns (store/embedded/).
import fs from 'node:fs/promises'
import path from 'node:path'
import { readFileSync } from 'node:fs'
import { pipeline } from 'node:stream/promises'
import { Readable } from 'node:stream'
import type { Pool, PoolClient } from 'pg'
import { from as copyFrom, to as copyTo } from 'pg-copy-streams'
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils'
import type { Config } from '../config.js'
import { PrismaClient } from '../generated/prisma/client.js'
import { pgConfigFromUrl, pgMigrationFactory } from './migration-adapters.js'
import { applyMigrations, unappliedMigrations } from './migrations.js'
import { startEmbeddedStore, type EmbeddedStore } from './embedded/index.js'
import type { StoreLog } from './embedded/supervise.js'

export interface Sql {
  /** rows as objects; $1.. placeholders */
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>
  /**
   * the same as query(), for a statement run very often: parsed and planned once under `name` (per connection),
   * then only bound and executed. One name, one text.
   */
  prepared<T = Record<string, unknown>>(name: string, text: string, params: readonly unknown[]): Promise<T[]>
  /** run statements in one transaction on one connection */
  transaction<T>(fn: (tx: Pick<Sql, 'query'>) => Promise<T>): Promise<T>
  /** bulk-load rows in PostgreSQL's binary COPY format (CopyBinaryWriter) into a table: COPY … FROM STDIN */
  copyBinary?(table: string, columns: readonly string[], data: Uint8Array<ArrayBuffer>): Promise<void>
  /**
   * a SELECT's rows in PostgreSQL's binary COPY format (COPY (…) TO STDOUT; read with readCopyBinary, selectRows
   * does both): no per-row objects from the driver. No placeholders.
   */
  selectBinary?(select: string): Promise<Uint8Array>
  /**
   * the same calls, each given up within `ms` in all — the wait for a connection (two of their own, apart from the
   * pool's reads) and the statement, which the server cancels (statement and lock timeouts), so nothing half-done
   * commits
   */
  within?(ms: number): Pick<Sql, 'query' | 'prepared'>
}

export interface Database {
  /** embedded: a server this process started (store/embedded/); postgres: DATABASE_URL's */
  kind: 'embedded' | 'postgres'
  /** the embedded store's engine and directory (banners, /healthz); null on an external PostgreSQL */
  embedded: Pick<EmbeddedStore, 'engine' | 'dir'> | null
  prisma: PrismaClient
  sql: Sql
  /** does the store answer `SELECT 1` within timeoutMs? Never waits longer, whatever the pool is doing */
  ping(timeoutMs: number): Promise<boolean>
  /** the same probe, also saying whether the store holds the service's tables (a store re-created empty does not) */
  check(timeoutMs: number): Promise<StoreCheck>
  migrationFactory(): Promise<SqlMigrationAwareDriverAdapterFactory>
  /**
   * The embedded store's hand-off to the next process that opens it (null elsewhere): bytes a process leaves with
   * the store as it closes it, which only that next process is given — every opener takes the file away before it
   * can write, so bytes that describe the store as it was closed are never read after anything else wrote to it. A
   * crash leaves nothing. The server leaves its hot series here (src/read/series-snapshot.ts).
   */
  handoff: Handoff | null
  close(): Promise<void>
}

export interface Handoff {
  /** what the last process left, once (later calls: null) */
  take(): Uint8Array | null
  /** leave bytes for the next opener (written aside, then renamed into place) */
  leave(bytes: Uint8Array): Promise<void>
}

/**
 * The hand-off file, inside the store's directory (PostgreSQL leaves files it does not know alone): a copy of the
 * stopped store — a backup — carries the hand-off that matches it, and a store restored from an older copy never
 * meets the newer store's hand-off.
 */
export const handoffFile = (dir: string): string => path.join(dir, 'series.handoff')

function readIfThere(file: string): Uint8Array | null {
  try {
    return readFileSync(file)
  } catch {
    return null
  }
}

/** take the hand-off file away (it is read once, by the opener that holds the lock) and return its bytes */
async function takeHandoff(dir: string): Promise<Handoff> {
  const file = handoffFile(dir)
  let leaves = 0
  // one synchronous read: the process is starting and has nothing else to do, and fs.readFile would take a 25 MB file
  // in 512 KB round trips through the thread pool
  let taken: Uint8Array | null = readIfThere(file)
  await fs.rm(file, { force: true })
  return {
    take() {
      const bytes = taken
      taken = null
      return bytes
    },
    async leave(bytes) {
      // a file of its own per call: two leaves at once (a stop asked twice) each rename whole bytes, the last one wins
      const tmp = `${file}.${process.pid}.${++leaves}.tmp`
      await fs.writeFile(tmp, bytes)
      await fs.rename(tmp, file)
    },
  }
}

/** the bound on every store call when none is configured (STORE_TIMEOUT_MS) */
const DEFAULT_STORE_TIMEOUT_MS = 5000

export async function openDatabase(
  store: Config['store'],
  opts: {
    migrate?: boolean
    /** the embedded store's messages (start, crash, restart); stderr by default */
    log?: StoreLog
  } = {},
): Promise<Database> {
  const timeoutMs = store.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS
  let db: Database
  if (store.kind === 'embedded') {
    const embedded = await startEmbeddedStore({ engine: store.engine, dataDir: store.dataDir, log: opts.log })
    try {
      db = await openPostgres(embedded.url, timeoutMs, { embedded, handoff: await takeHandoff(embedded.dir) })
    } catch (e) {
      await embedded.stop()
      throw e
    }
  } else db = await openPostgres(store.url, timeoutMs)
  if (opts.migrate !== false) {
    try {
      // a store usually has every migration already: then the schema engine (a WebAssembly module that takes a
      // fifth of a second to load) is not needed to find that out
      const pending = await unappliedMigrations(db.sql)
      if (pending === null || pending.length) await applyMigrations(await db.migrationFactory())
    } catch (e) {
      await db.close()
      throw e
    }
  }
  return db
}

export interface StoreCheck {
  reachable: boolean
  /** the service's tables are there (false: re-created or emptied under the service; also false when unreachable) */
  tables: boolean
}

/** one query for both: the store answers, and holds two tables every part of the service reads */
const CHECK_SQL = "SELECT to_regclass('account') IS NOT NULL AND to_regclass('candle_1m') IS NOT NULL AS tables"

/** the answer of CHECK_SQL within ms */
async function checked(ms: number, work: Promise<{ rows: { tables: boolean }[] }>): Promise<StoreCheck> {
  let tables = false
  const reachable = await within(ms, work.then((r) => void (tables = r.rows[0]?.tables === true)))
  return { reachable, tables: reachable && tables }
}

/** true when `work` settles successfully within ms; false on failure or when the time runs out first */
async function within(ms: number, work: Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)))
  try {
    return await Promise.race([work.then(() => true, () => false), late])
  } finally {
    clearTimeout(timer)
  }
}

/** a bounded call with at least its whole bound less this left runs on the connection's own timeouts (one round trip) */
const BOUND_SLACK_MS = 25

/** a store call that ran out of its bound before it was sent (errors.ts maps the message to 503 unavailable) */
const storeTimeout = () => Object.assign(new Error('timeout exceeded when trying to connect: the call\'s bound ran out'), { code: 'ETIMEDOUT' })

/** a pooled connection within ms; one that comes later goes straight back to the pool */
function connectWithin(pool: Pool, ms: number): Promise<PoolClient> {
  return new Promise((resolve, reject) => {
    let late = false
    const timer = setTimeout(() => {
      late = true
      reject(storeTimeout())
    }, ms)
    pool.connect().then(
      (client) => {
        clearTimeout(timer)
        if (late) client.release()
        else resolve(client)
      },
      (e: unknown) => {
        clearTimeout(timer)
        reject(e)
      },
    )
  })
}

async function openPostgres(url: string, timeoutMs: number, own: { embedded?: EmbeddedStore; handoff?: Handoff } = {}): Promise<Database> {
  const { default: pg } = await import('pg')
  const { PrismaPg } = await import('@prisma/adapter-pg')
  // bigint (int8) and numeric come back as JS numbers on the raw channel: epoch ms and credits fit exactly
  pg.types.setTypeParser(20, (v) => Number(v))
  const { config, schema } = pgConfigFromUrl(url)
  // every call is bounded: waiting for a pooled connection, waiting for a lock, and running a statement each give
  // up after timeoutMs (the server cancels the statement, so nothing half-done commits); the client-side
  // query_timeout is a backstop for a server that stopped answering, later than the server's own bound
  const bounds = {
    connectionTimeoutMillis: timeoutMs,
    statement_timeout: timeoutMs,
    lock_timeout: timeoutMs,
    idle_in_transaction_session_timeout: 2 * timeoutMs,
    query_timeout: timeoutMs + 2000,
  }
  // PGlite behind its socket is one session for every connection: a statement name prepared on one connection
  // exists on all of them, so there each call is parsed again (unnamed); PostgreSQL keeps names per connection
  const named = own.embedded?.engine !== 'pglite'
  const pool = new pg.Pool({ ...config, ...bounds, max: 10 })
  // a dropped idle connection is re-made on the next query; queries report their own errors. A connection the server
  // ends while it is checked out but between statements (the store crashed or restarted) emits 'error' on the client
  // itself: without a listener that would end the process, so every client of every pool gets one
  const quietClients = (p: Pool) => p.on('error', () => {}).on('connect', (client) => void client.on('error', () => {}))
  quietClients(pool)
  // /healthz's own connection: it answers even when every pooled connection is busy
  let probe: Promise<StoreCheck> | null = null
  const check = (ms: number) => {
    // one probe at a time: a hung server must not pile up probes behind the one connection
    probe ??= checked(ms, healthPool.query<{ tables: boolean }>(CHECK_SQL)).finally(() => (probe = null))
    return probe
  }
  const healthPool = new pg.Pool({ ...config, max: 1, connectionTimeoutMillis: 1000, query_timeout: 1000, statement_timeout: 1000, idleTimeoutMillis: 30_000 })
  quietClients(healthPool)
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool, schema ? { schema } : undefined) })
  // bounded statements (the credit charges) have connections of their own: they never queue behind the pool's reads
  const boundedPool = new pg.Pool({ ...config, ...bounds, max: 2 })
  quietClients(boundedPool)
  /** one statement, the wait for its connection and the statement together within ms */
  async function bounded<T>(ms: number, q: { text: string; values?: unknown[]; name?: string }): Promise<T[]> {
    if (!named) delete q.name
    const t0 = performance.now()
    const client = await connectWithin(boundedPool, ms)
    const left = Math.floor(ms - (performance.now() - t0))
    try {
      if (left < 1) throw storeTimeout()
      // nearly the whole bound left: the connection's own timeouts (timeoutMs) hold it, in one round trip
      if (left >= timeoutMs - BOUND_SLACK_MS) return (await client.query(q)).rows as T[]
      // less: timeouts for this transaction only (SET LOCAL), so the connection goes back with its own
      await client.query(`BEGIN; SET LOCAL statement_timeout = ${left}; SET LOCAL lock_timeout = ${left}`)
      try {
        const rows = (await client.query(q)).rows as T[]
        await client.query('COMMIT')
        return rows
      } catch (e) {
        await client.query('ROLLBACK').catch(() => {})
        throw e
      }
    } finally {
      client.release()
    }
  }
  // PGlite runs a statement in one call and cannot wait for COPY FROM STDIN's data to arrive over its socket (the
  // connection breaks): there the bulk writes take the upsert path their callers have where copyBinary is absent
  const copyIn = own.embedded?.engine !== 'pglite'
  const sql: Sql = {
    query: async <T>(text: string, params?: unknown[]) => (await pool.query(text, params)).rows as T[],
    prepared: async <T>(name: string, text: string, params: readonly unknown[]) => (await pool.query(named ? { name, text, values: [...params] } : { text, values: [...params] })).rows as T[],
    async transaction(fn) {
      const client = await pool.connect()
      try {
        await client.query('BEGIN')
        const out = await fn({ query: async <T>(text: string, params?: unknown[]) => (await client.query(text, params)).rows as T[] })
        await client.query('COMMIT')
        return out
      } catch (e) {
        await client.query('ROLLBACK').catch(() => {})
        throw e
      } finally {
        client.release()
      }
    },
    ...(copyIn && {
      async copyBinary(table: string, columns: readonly string[], data: Uint8Array<ArrayBuffer>) {
        const client = await pool.connect()
        try {
          await pipeline(Readable.from([data]), client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN WITH (FORMAT binary)`)))
        } finally {
          client.release()
        }
      },
    }),
    async selectBinary(select) {
      const client = await pool.connect()
      try {
        const chunks: Buffer[] = []
        for await (const chunk of client.query(copyTo(`COPY (${select}) TO STDOUT WITH (FORMAT binary)`))) chunks.push(chunk as Buffer)
        return Buffer.concat(chunks)
      } finally {
        client.release()
      }
    },
    within: (ms) => ({
      query: <T>(text: string, params?: unknown[]) => bounded<T>(ms, { text, values: params }),
      prepared: <T>(name: string, text: string, params: readonly unknown[]) => bounded<T>(ms, { name, text, values: [...params] }),
    }),
  }
  return {
    kind: own.embedded ? 'embedded' : 'postgres',
    embedded: own.embedded ? { engine: own.embedded.engine, dir: own.embedded.dir } : null,
    prisma,
    sql,
    ping: async (ms) => (await check(ms)).reachable,
    check,
    migrationFactory: () => pgMigrationFactory(url),
    handoff: own.handoff ?? null,
    async close() {
      await prisma.$disconnect()
      await Promise.all([pool.end(), healthPool.end(), boundedPool.end()])
      await own.embedded?.stop()
    },
  }
}
