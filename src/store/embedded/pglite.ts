// EMBEDDED_STORE=pglite: the PGlite store in a worker thread (pglite-worker.ts) behind a loopback port. Its data
// stays where the in-process store kept it (<DATA_DIR>/pglite), so a directory of the old default opens as it was.
import { Worker } from 'node:worker_threads'
import { freePort } from './processes.js'
import type { Running } from './supervise.js'

/** connections the thread accepts: the service's pools (10 + 2 bounded + 1 probe) and a CLI */
const MAX_CONNECTIONS = 20

/** the worker from the build (.js), or from the sources through tsx (tests, tsx-run CLIs) */
function threadOf(workerData: unknown): Worker {
  const self = import.meta.url
  if (!self.endsWith('.ts')) return new Worker(new URL('./pglite-worker.js', self), { workerData })
  const url = new URL('./pglite-worker.ts', self).href
  return new Worker(`import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(url)}) })`, { eval: true, workerData })
}

export interface PgliteThread {
  url: string
  start(): Promise<Running>
}

export async function pgliteThread(dir: string): Promise<PgliteThread> {
  const port = await freePort()
  return {
    // PGlite has one user and one database; it accepts any password
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    async start() {
      const worker = threadOf({ dir, port, maxConnections: MAX_CONNECTIONS })
      const exited = new Promise<string>((resolve) => worker.once('exit', (code) => resolve(`thread exit ${code}`)))
      await new Promise<void>((resolve, reject) => {
        worker.once('message', () => resolve())
        worker.once('error', reject)
        void exited.then((why) => reject(new Error(`the PGlite thread ended before it listened (${why})`)))
      })
      worker.on('error', () => {})
      return {
        exited,
        async stop() {
          worker.postMessage('stop')
          const timer = setTimeout(() => void worker.terminate(), 30_000)
          await exited
          clearTimeout(timer)
        },
      }
    },
  }
}
