// EMBEDDED_STORE=pglite: PGlite in a thread of its own, served over PostgreSQL's wire protocol on a loopback port
// (@electric-sql/pglite-socket), so the service reaches it through the pg driver as it reaches PostgreSQL.
// workerData: { dir, port, maxConnections }. Posts { listening: port } once it accepts connections; stops on 'stop'.
import { parentPort, workerData } from 'node:worker_threads'
import { PGlite } from '@electric-sql/pglite'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'
import { startVacuum } from '../vacuum.js'

const { dir, port, maxConnections } = workerData as { dir: string; port: number; maxConnections: number }

// small buffers and a small WAL: PostgreSQL keeps up to max_wal_size of used segments for recycling (1 GB by default,
// most of a small universe's directory; docs/performance.md, eighth round)
const db = new PGlite({ dataDir: dir, postgresqlconf: ['shared_buffers=32MB', 'work_mem=8MB', 'maintenance_work_mem=32MB', 'wal_buffers=2MB', 'max_wal_size=64MB', 'min_wal_size=32MB'] } as ConstructorParameters<typeof PGlite>[0])
await db.waitReady
// PGlite runs single-user, without autovacuum: the tables rewritten in place are vacuumed here (vacuum.ts)
const stopVacuum = startVacuum({ query: async <T>(text: string) => (await db.query<T>(text)).rows }, (e) => process.stderr.write(`the embedded store's vacuum failed: ${(e as Error).message}\n`))
const server = new PGLiteSocketServer({ db, port, host: '127.0.0.1', maxConnections })
await server.start()
parentPort!.postMessage({ listening: port })
parentPort!.on('message', (m: unknown) => {
  if (m !== 'stop') return
  void (async () => {
    await stopVacuum()
    await server.stop()
    await db.close()
    process.exit(0)
  })().catch((e: unknown) => {
    // the thread ends either way (an unhandled rejection ended it too, unexplained): saying why
    process.stderr.write(`the embedded store did not stop cleanly: ${e instanceof Error ? e.message : String(e)}\n`)
    process.exit(1)
  })
})
