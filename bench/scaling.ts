// What a universe of coins costs as it grows (issue 32, item 4), the step BENCH_ONLY=scaling: for each universe of
// BENCH_SCALING_COINS (12, 48, 100) simulated coins, the service as `npm start` runs it (bench/server.ts: startRole
// with the backfill behind the listening server, on a fresh embedded store) with BENCH_SCALING_DAYS (30) of history:
// - backfill seconds (to the server's "backfill done");
// - resident memory (median over the live window: the Node process RSS plus the embedded PostgreSQL processes PSS) and
//   the least V8 heap in use, with the history loaded;
// - ingest CPU: the process's CPU seconds per coin-minute of the live feed over BENCH_SCALING_LIVE_SECONDS (60), API
//   idle;
// - the all-coins views' worst call, cold after a data tick (bench/views.ts, BENCH_SCALING_VIEW_ROUNDS rounds);
// - disk per coin-day: the data directory's bytes after a clean stop (the store and the hot series it is left) over
//   coins × days, with the largest relations and the WAL named.
// Each row's baseline is the first (smallest) universe of the same run, per coin. The last row extrapolates linearly
// from the two largest universes to the largest universe within every target on one machine (BENCH_SCALING_RAM_GB 24,
// BENCH_SCALING_DISK_GB 64).
import fs from 'node:fs'
import path from 'node:path'
import type { ChildProcess } from 'node:child_process'
import { DEFAULT_COINS } from '../src/domain/coins.js'
import { openDatabase } from '../src/store/database.js'
import { engineDir } from '../src/store/embedded/index.js'
import { postgresPids, procKb } from './store-engines.js'
import { MORE, heapUsed } from './coins.js'
import { storeSizes } from './store-sizes.js'
import { coldViewCalls, worstView } from './views.js'
import type { Row } from './report.js'

type Start = (env: Record<string, string>) => Promise<{ proc: ChildProcess; info: { port: number; key?: string }; backfilled: Promise<number> }>

export interface ScalingDeps {
  start: Start
  cpuSeconds(pid: number | undefined): number
  rss(port: number): Promise<number>
}

/** the targets of issue 32, item 4 */
const DISK_PER_COIN_DAY = 2 * 2 ** 20
const MEMORY_PER_COIN = 5 * 2 ** 20
const VIEW_MS = 100

interface Point {
  coins: number
  days: number
  backfillS: number
  rss: number
  heap: number
  /** memory outside the V8 heap held by JavaScript objects: the hot series' typed arrays and the embedded store's WebAssembly memory */
  external: number
  cpuPerCoinMinute: number
  worst: { ms: number; view: string }
  dirBytes: number
  walBytes: number
  largest: string
}

const MB = 2 ** 20
const fmt = (n: number, d = 1) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d })
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** `n` coin symbols: the defaults, the small alts of bench/coins.ts, then made-up ones (the simulator derives a small alt's parameters from a name) */
function universe(n: number): string[] {
  const known = [...DEFAULT_COINS, ...MORE]
  return Array.from({ length: n }, (_, i) => known[i] ?? `ALT${String(i).padStart(3, '0')}`)
}

async function externalMemory(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
  return Number(/^nodejs_external_memory_bytes(?:\{[^}]*\})? (\S+)/m.exec(text)?.[1] ?? NaN)
}

/** bytes of the files under `dir` */
function dirBytes(dir: string): number {
  let n = 0
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name)
    n += e.isDirectory() ? dirBytes(p) : e.isFile() ? fs.statSync(p).size : 0
  }
  return n
}

async function measure(deps: ScalingDeps, coins: number, days: number, dir: string): Promise<Point> {
  const storeDir = path.join(dir, `scaling-${coins}`)
  fs.rmSync(storeDir, { recursive: true, force: true })
  fs.mkdirSync(storeDir, { recursive: true, mode: 0o755 }) // as root the embedded PostgreSQL runs as the OS user postgres
  const svc = await deps.start({ DATA_DIR: storeDir, BENCH_COINS: universe(coins).join(','), BENCH_DAYS: String(days) })
  let stopped = false
  const stop = async () => {
    if (stopped) return
    stopped = true
    svc.proc.kill('SIGTERM')
    await new Promise((r) => svc.proc.once('exit', r))
  }
  try {
    const backfillMs = await svc.backfilled
    // the backfill's garbage collected and the live feed in its steady state before measuring
    await sleep(5_000)
    const seconds = Number(process.env.BENCH_SCALING_LIVE_SECONDS ?? 60)
    const c0 = deps.cpuSeconds(svc.proc.pid)
    const t0 = performance.now()
    const rss: number[] = []
    const heap: number[] = []
    const external: number[] = []
    while (performance.now() - t0 < seconds * 1000) {
      await sleep(1_000)
      // the service's memory: the Node process and the store's processes (PSS: their shared buffers counted once)
      rss.push((await deps.rss(svc.info.port)) + postgresPids(storeDir).reduce((n, pid) => n + procKb(pid, 'smaps_rollup', 'Pss'), 0))
      heap.push(await heapUsed(svc.info.port))
      external.push(await externalMemory(svc.info.port))
    }
    const cpu = deps.cpuSeconds(svc.proc.pid) - c0
    const minutes = (performance.now() - t0) / 60_000
    rss.sort((a, b) => a - b)
    external.sort((a, b) => a - b)
    const { cold } = await coldViewCalls(`http://127.0.0.1:${svc.info.port}`, svc.info.key!, Number(process.env.BENCH_SCALING_VIEW_ROUNDS ?? 10))
    // a clean stop leaves the hot series with the store, as npm start does: part of the directory a user keeps
    await stop()
    const bytes = dirBytes(storeDir)
    const walBytes = dirBytes(path.join(engineDir(storeDir, 'postgres'), 'cluster', 'pg_wal'))
    const db = await openDatabase({ kind: 'embedded', engine: 'postgres', dataDir: storeDir }, { migrate: false })
    const sizes = await storeSizes(db.sql).finally(() => db.close())
    const largest = sizes.slice(0, 3).map((s) => `${s.relation} ${fmt(s.totalMB, 0)} MB (${s.bytesPerRow} B/row)`).join(', ')
    console.log(`scaling: ${coins} coins × ${days} d: ${fmt(bytes / MB, 0)} MB in the data directory, WAL ${fmt(walBytes / MB, 0)} MB`)
    console.table(sizes.filter((s) => s.totalMB >= 0.1))
    const point = { coins, days, backfillS: backfillMs / 1000, rss: rss[rss.length >> 1]!, heap: Math.min(...heap), external: external[external.length >> 1]!, cpuPerCoinMinute: cpu / (coins * minutes), worst: worstView(cold), dirBytes: bytes, walBytes, largest }
    // each universe's figures as soon as they are measured (the table comes at the end)
    console.log(`scaling: ${JSON.stringify(point)}`)
    return point
  } finally {
    await stop()
    fs.rmSync(storeDir, { recursive: true, force: true })
  }
}

const perCoinDay = (p: Point) => p.dirBytes / p.coins / p.days

/** the figures of a universe of `n` coins, on the line through two measured ones */
function extrapolate(a: Point, b: Point, n: number) {
  const at = (fa: number, fb: number) => fa + ((fb - fa) * (n - a.coins)) / (b.coins - a.coins)
  return { rss: at(a.rss, b.rss), rssPerCoin: (b.rss - a.rss) / (b.coins - a.coins), diskPerCoinDay: at(perCoinDay(a), perCoinDay(b)), viewMs: at(a.worst.ms, b.worst.ms), cpuPerCoinMinute: at(a.cpuPerCoinMinute, b.cpuPerCoinMinute) }
}

/**
 * The largest universe within every target on one machine of `cores`, `ramBytes` and `diskBytes`, 30 days kept:
 * disk per coin-day ≤ 2 MB and the whole store within the disk; memory per added coin ≤ 5 MB and all of it within
 * the RAM; the views' worst call < 100 ms; live ingest within half the cores (the rest serves the API).
 */
function largestUniverse(a: Point, b: Point, machine: { ramBytes: number; diskBytes: number; cores: number }): { coins: number; bound: string } {
  let last = { coins: 0, bound: 'the smallest universe measured misses a target' }
  for (let n = a.coins; n <= 100_000; n += 1) {
    const x = extrapolate(a, b, n)
    const misses = [
      x.diskPerCoinDay > DISK_PER_COIN_DAY && 'disk per coin-day',
      x.diskPerCoinDay * n * 30 > machine.diskBytes && 'disk',
      x.rssPerCoin > MEMORY_PER_COIN && 'memory per coin added',
      x.rss > machine.ramBytes && 'memory',
      x.viewMs >= VIEW_MS && 'views worst call',
      (x.cpuPerCoinMinute * n) / 60 > machine.cores / 2 && 'ingest CPU',
    ].filter(Boolean)
    if (misses.length) return { coins: last.coins, bound: `${n} coins miss: ${misses.join(', ')}` }
    last = { coins: n, bound: '' }
  }
  return { coins: last.coins, bound: 'none within 100,000 coins' }
}

export async function benchScaling(deps: ScalingDeps, dir: string): Promise<Row[]> {
  const sizes = (process.env.BENCH_SCALING_COINS ?? '12,48,100').split(',').map(Number).sort((a, b) => a - b)
  const days = Number(process.env.BENCH_SCALING_DAYS ?? 30)
  const points: Point[] = []
  for (const n of sizes) {
    console.log(`scaling: ${n} simulated coins, ${days} days of history…`)
    points.push(await measure(deps, n, days, dir))
  }
  const base = points[0]!
  const rows: Row[] = []
  for (const p of points) {
    const label = `scaling, ${p.coins} coins × ${fmt(p.days, Number.isInteger(p.days) ? 0 : 1)} d`
    const memPerCoin = p.rss / p.coins
    const added = p === base ? null : (p.rss - base.rss) / (p.coins - base.coins)
    rows.push(
      {
        bench: `${label}: disk per coin-day (data directory after a clean stop / coins / days)`,
        measured: `${fmt(perCoinDay(p) / MB, 2)} MB (directory ${fmt(p.dirBytes / MB, 0)} MB: WAL ${fmt(p.walBytes / MB, 0)} MB, ${p.largest})`,
        baseline: `${base.coins} coins: ${fmt(perCoinDay(base) / MB, 2)} MB per coin-day (ratio ${fmt(perCoinDay(p) / perCoinDay(base), 2)})`,
        ratio: perCoinDay(p) / DISK_PER_COIN_DAY,
        target: '≤ 2 MB per coin-day (ratio ≤ 1)',
        pass: perCoinDay(p) <= DISK_PER_COIN_DAY,
      },
      {
        // what a coin costs is what each coin adds (the service holds a few hundred MB with none): judged on the slope
        bench: `${label}: resident memory of the service (median over the live window: the Node process RSS plus the embedded PostgreSQL processes PSS)`,
        measured: `${fmt(p.rss / MB, 0)} MB (${fmt(memPerCoin / MB, 1)} MB over coins)${added === null ? '' : `, ${fmt(added / MB, 1)} MB per coin added to ${base.coins}`}; V8 heap ${fmt(p.heap / MB, 0)} MB, external ${fmt(p.external / MB, 0)} MB`,
        baseline: `${base.coins} coins: ${fmt(base.rss / MB, 0)} MB, V8 heap ${fmt(base.heap / MB, 0)} MB, external ${fmt(base.external / MB, 0)} MB`,
        ratio: added === null ? memPerCoin / MEMORY_PER_COIN : added / MEMORY_PER_COIN,
        target: added === null ? 'informational (the baseline: no slope of its own)' : '≤ 5 MB per coin added (ratio ≤ 1)',
        pass: added === null || added <= MEMORY_PER_COIN,
      },
      {
        bench: `${label}: backfill behind the listening server`,
        measured: `${fmt(p.backfillS, 0)} s (${fmt((p.backfillS / p.coins / p.days) * 1000, 0)} ms per coin-day)`,
        baseline: `${base.coins} coins: ${fmt(base.backfillS, 0)} s (${fmt((base.backfillS / base.coins / base.days) * 1000, 0)} ms per coin-day)`,
        ratio: p.backfillS / p.coins / (base.backfillS / base.coins),
        target: 'informational: time per coin against the baseline\'s',
        pass: true,
      },
      {
        bench: `${label}: live ingest CPU (process CPU seconds per coin-minute, API idle)`,
        measured: `${fmt(p.cpuPerCoinMinute * 1000, 1)} ms per coin-minute (${fmt((p.cpuPerCoinMinute * p.coins * 100) / 60, 1)} % of a core)`,
        baseline: `${base.coins} coins: ${fmt(base.cpuPerCoinMinute * 1000, 1)} ms per coin-minute`,
        ratio: p.cpuPerCoinMinute / base.cpuPerCoinMinute,
        target: 'informational: per coin against the baseline\'s',
        pass: true,
      },
      {
        bench: `${label}: all-coins views, worst call cold after a data tick`,
        measured: `${fmt(p.worst.ms, 1)} ms (${p.worst.view})`,
        baseline: `${base.coins} coins: ${fmt(base.worst.ms, 1)} ms (${base.worst.view})`,
        ratio: p.worst.ms / VIEW_MS,
        target: '< 100 ms (ratio < 1)',
        pass: p.worst.ms < VIEW_MS,
      },
    )
  }
  if (points.length >= 2) {
    const [a, b] = points.slice(-2) as [Point, Point]
    const machine = { ramBytes: Number(process.env.BENCH_SCALING_RAM_GB ?? 24) * 2 ** 30, diskBytes: Number(process.env.BENCH_SCALING_DISK_GB ?? 64) * 2 ** 30, cores: 2 }
    const top = largestUniverse(a, b, machine)
    rows.push({
      bench: `scaling: largest universe within every target on ${machine.cores} cores, ${fmt(machine.ramBytes / 2 ** 30, 0)} GiB, ${fmt(machine.diskBytes / 2 ** 30, 0)} GiB disk, 30 days kept`,
      measured: `${top.coins} coins (extrapolated linearly from ${a.coins} and ${b.coins})`,
      baseline: top.bound,
      ratio: top.coins / b.coins,
      target: 'informational: ratio to the largest universe measured',
      pass: true,
    })
  }
  return rows
}
