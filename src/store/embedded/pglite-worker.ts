// EMBEDDED_STORE=pglite: PGlite in a thread of its own, served over PostgreSQL's wire protocol on a loopback port
// (@electric-sql/pglite-socket), so the service reaches it through the pg driver as it reaches PostgreSQL.
// workerData: { dir, port, maxConnections }. Posts { listening: port } once it accepts connections; stops on 'stop'.
import { parentPort, workerData } from 'node:worker_threads'
import { PGlite } from '@electric-sql/pglite'
import { PGLiteSocketServer } from '@electric-sql/pglite-socket'

const { dir, port, maxConnections } = workerData as { dir: string; port: number; maxConnections: number }

const db = new PGlite({ dataDir: dir, postgresqlconf: ['shared_buffers=32MB', 'work_mem=8MB', 'maintenance_work_mem=32MB', 'wal_buffers=2MB'] } as ConstructorParameters<typeof PGlite>[0])
await db.waitReady
const server = new PGLiteSocketServer({ db, port, host: '127.0.0.1', maxConnections })
await server.start()
parentPort!.postMessage({ listening: port })
parentPort!.on('message', (m: unknown) => {
  if (m !== 'stop') return
  void (async () => {
    await server.stop()
    await db.close()
    process.exit(0)
  })()
})
