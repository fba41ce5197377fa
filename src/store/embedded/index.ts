// The embedded store: a database server this service starts, owns and stops, reached through the same pg driver,
// Prisma adapter, timeouts and errors as an external PostgreSQL (store/database.ts openPostgres). Its statements
// run in another process (EMBEDDED_STORE=postgres, the default) or thread (=pglite), never on the event loop.
// One service per data directory (data-dir-lock.ts); a crash of the store is reported (onCrash) and the store is
// started again with backoff (supervise.ts); stop() stops it.
import fs from 'node:fs'
import path from 'node:path'
import { lockDataDir } from '../data-dir-lock.js'
import { nativeCluster } from './postgres.js'
import { pgliteThread } from './pglite.js'
import { supervise, type StoreLog } from './supervise.js'

export type EmbeddedEngine = 'postgres' | 'pglite'

export interface EmbeddedStore {
  /** postgres://… on 127.0.0.1 */
  url: string
  engine: EmbeddedEngine
  /** the engine's own directory inside DATA_DIR (pg or pglite): the lock and the hand-off file are kept here */
  dir: string
  stop(): Promise<void>
  /** cb(reason) each time the store ended without being asked to (it is being started again) */
  onCrash(cb: (reason: string) => void): void
}

/** where each engine keeps its data inside DATA_DIR */
export const engineDir = (dataDir: string, engine: EmbeddedEngine): string => path.join(dataDir, engine === 'postgres' ? 'pg' : 'pglite')

const stderrLog: StoreLog = {
  info: (m) => process.stderr.write(`${m}\n`),
  warn: (m) => process.stderr.write(`${m}\n`),
  error: (m) => process.stderr.write(`${m}\n`),
}

export async function startEmbeddedStore(opts: {
  engine: EmbeddedEngine
  dataDir: string
  log?: StoreLog
  /** engine postgres: server settings over SERVER_SETTINGS (the test suite's cluster: more connections, no fsync) */
  settings?: Record<string, string>
}): Promise<EmbeddedStore> {
  const log = opts.log ?? stderrLog
  const dir = engineDir(opts.dataDir, opts.engine)
  fs.mkdirSync(dir, { recursive: true })
  // one process per data directory: a second one stops here, naming the holder
  const unlock = await lockDataDir(dir, (err) => log.error(`the embedded store's lock was lost: ${err.message}`))
  try {
    if (opts.engine === 'postgres') warnAboutOldPglite(opts.dataDir, log)
    const engine = opts.engine === 'postgres' ? await nativeCluster(dir, log, opts.settings) : await pgliteThread(dir)
    const name = opts.engine === 'postgres' ? 'the embedded PostgreSQL' : 'the PGlite thread'
    const supervisor = await supervise(name, () => engine.start(), log)
    return {
      url: engine.url,
      engine: opts.engine,
      dir,
      onCrash: supervisor.onCrash,
      async stop() {
        try {
          await supervisor.stop()
        } finally {
          await unlock()
        }
      },
    }
  } catch (e) {
    await unlock()
    throw e
  }
}

/** a store left by the in-process PGlite of earlier versions is not read by this engine: say so once, at start */
function warnAboutOldPglite(dataDir: string, log: StoreLog): void {
  const old = engineDir(dataDir, 'pglite')
  if (fs.existsSync(path.join(old, 'PG_VERSION')))
    log.warn(
      `note: ${old} holds a store of the earlier in-process PGlite; it is not read (the store is now ${engineDir(dataDir, 'postgres')}). ` +
        'Delete it to free the disk, or start with EMBEDDED_STORE=pglite to keep using it.',
    )
}
