// A process that owns an embedded store and does nothing else (test/store/embedded/index.test.ts kills it with -9):
// prints the store's URL and the postmaster's pid, then waits.
import fs from 'node:fs'
import path from 'node:path'
import { startEmbeddedStore } from '../../src/store/embedded/index.js'

const dataDir = process.argv[2]!
const store = await startEmbeddedStore({ engine: 'postgres', dataDir, log: { info: () => {}, warn: () => {}, error: () => {} } })
const pid = Number(fs.readFileSync(path.join(store.dir, 'cluster', 'postmaster.pid'), 'utf8').split('\n')[0])
process.stdout.write(`${JSON.stringify({ url: store.url, pid })}\n`)
setInterval(() => {}, 1 << 30)
