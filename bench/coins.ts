// What one more coin costs (issue 30, item 4; docs/performance.md#what-a-coin-costs), the step BENCH_ONLY=coins:
// - memory and CPU: the service on the simulator (live feed, ingest, aggregation, series, store writes, with
//   BENCH_COIN_DAYS (2) of history loaded) with the 12 default coins and with 12 more (small alts, as most of a universe
//   is), each on its own store; the difference per added coin;
// - requests per minute per venue: the connectors' REST polls at their documented rates (src/sources/connectors/
//   poll-cost.ts, whose per-poll counts test/sources/connectors/poll-cost.test.ts takes from the real connectors), the
//   limit each one binds against, and the most coins that fit in the live share of every limit.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawn, type ChildProcess } from 'node:child_process'
import { NODE_FLAGS } from '../scripts/build.mjs'
import { DEFAULT_COINS } from '../src/domain/coins.js'
import { EXCHANGE_IDS } from '../src/domain/exchanges.js'
import { DEFAULT_POLL_INTERVALS } from '../src/sources/connectors/connector-options.js'
import { LIVE_POLL_SHARE, maxCoins, plannedIntervals, requestsPerMinute, restUse } from '../src/sources/connectors/poll-cost.js'
import type { Row } from './report.js'

/** coins beyond the defaults: perps on at least two venues in the recorded lists, simulated with small-alt parameters */
const ROOT = path.resolve(import.meta.dirname, '..')

export const MORE = ['ATOM', 'MATIC', 'DYDX', 'CRV', 'FTM', 'SNX', 'BCH', 'INJ', 'APT', 'ARB', 'OP', 'LDO']

export interface CoinBenchDeps {
  cpuSeconds(pid: number | undefined): number
  rss(port: number): Promise<number>
}

const fmt = (n: number, d = 1) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d })
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export async function heapUsed(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
  return Number(/^nodejs_heap_size_used_bytes(?:\{[^}]*\})? (\S+)/m.exec(text)?.[1] ?? NaN)
}

/** `npm start` as a user runs it (scripts/start.mjs, the package's V8 flags) on its own store, simulating `coins` */
async function startService(coins: string[], days: number, dir: string): Promise<{ proc: ChildProcess; port: number; backfilled: Promise<void> }> {
  const env = { ...process.env, MARKET_SOURCE: 'simulator', SIM_COINS: coins.join(','), BACKFILL_DAYS: String(days), DATA_DIR: dir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', NATS_URL: '', REDIS_URL: '', ROLE: 'all', DATABASE_URL: '' }
  // started in its own data directory: nothing of the service depends on the working directory
  const proc = spawn(process.execPath, [...NODE_FLAGS, path.join(ROOT, 'scripts', 'start.mjs')], { cwd: dir, env, stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  let done = () => {}
  const backfilled = new Promise<void>((r) => (done = r))
  const port = await new Promise<number>((resolve, reject) => {
    proc.stdout!.on('data', (d: Buffer) => {
      out = (out + d.toString()).slice(-4096)
      const m = /running at http:\/\/127\.0\.0\.1:(\d+)/.exec(out)
      if (m) resolve(Number(m[1]))
      if (/backfill done/.test(out)) done()
    })
    proc.once('exit', (code) => reject(new Error(`npm start exited with ${code}:\n${out}`)))
  })
  return { proc, port, backfilled }
}

/**
 * One service with `coins`, its history loaded: its CPU share over `seconds`, and its memory sampled every second
 * meanwhile: the median resident size, and the least heap in use (the live set after a collection: a single reading
 * lands anywhere in the garbage collector's cycle).
 */
async function measure(deps: CoinBenchDeps, coins: string[], days: number, seconds: number): Promise<{ rss: number; heap: number; cpu: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coin-cost-'))
  const svc = await startService(coins, days, dir)
  try {
    await svc.backfilled
    // the backfill's garbage collected and the live feed in its steady state before measuring
    await sleep(5_000)
    const c0 = deps.cpuSeconds(svc.proc.pid)
    const t0 = performance.now()
    const rss: number[] = []
    const heap: number[] = []
    while (performance.now() - t0 < seconds * 1000) {
      await sleep(1_000)
      rss.push(await deps.rss(svc.port))
      heap.push(await heapUsed(svc.port))
    }
    const cpu = (deps.cpuSeconds(svc.proc.pid) - c0) / ((performance.now() - t0) / 1000)
    rss.sort((a, b) => a - b)
    return { rss: rss[Math.floor(rss.length / 2)]!, heap: Math.min(...heap), cpu }
  } finally {
    svc.proc.kill('SIGTERM')
    await new Promise((r) => svc.proc.once('exit', r))
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

export async function benchCoins(deps: CoinBenchDeps): Promise<Row[]> {
  // the hot series' rings are allocated for their whole retention (31 days of hours, a day of minutes) when a market's
  // first row arrives (src/read/series-ring.ts), so what a coin holds in memory does not grow with the days loaded:
  // two days load each coin's every ring, in a fraction of a 30-day backfill's time
  const days = Number(process.env.BENCH_COIN_DAYS ?? 2)
  const universe = Number(process.env.BENCH_UNIVERSE ?? 200)
  const rows: Row[] = []
  const base = [...DEFAULT_COINS]
  const more = [...base, ...MORE]
  console.log(`coins: ${base.length} and ${more.length} simulated coins, ${days} days each…`)
  const seconds = Number(process.env.BENCH_COIN_SECONDS ?? 60)
  const a = await measure(deps, base, days, seconds)
  const b = await measure(deps, more, days, seconds)
  const added = more.length - base.length
  const mb = (x: number) => x / 2 ** 20
  const rssPer = (b.rss - a.rss) / added
  const heapPer = (b.heap - a.heap) / added
  const cpuPer = (b.cpu - a.cpu) / added
  const projected = a.rss + rssPer * (universe - base.length)
  rows.push({
    bench: `memory per added coin (simulator, ${days} d of history loaded, live feed)`,
    measured: `${fmt(mb(rssPer))} MB resident (median), ${fmt(mb(heapPer))} MB heap (least in use) per coin`,
    baseline: `${base.length} coins: ${fmt(mb(a.rss), 0)} MB (heap ${fmt(mb(a.heap), 0)}); ${more.length}: ${fmt(mb(b.rss), 0)} MB (heap ${fmt(mb(b.heap), 0)})`,
    ratio: projected / (1024 * 2 ** 20),
    target: `informational: ${universe} coins ≈ ${fmt(mb(projected), 0)} MB resident (ratio to 1 GiB)`,
    pass: true,
  })
  rows.push({
    bench: `CPU per added coin (simulator live feed, ingest, aggregation, series, writes; idle API)`,
    measured: `${fmt(cpuPer * 100, 2)} % of a core per coin`,
    baseline: `${base.length} coins: ${fmt(a.cpu * 100)} %; ${more.length}: ${fmt(b.cpu * 100)} %`,
    ratio: a.cpu + cpuPer * (universe - base.length),
    target: `informational: ${universe} coins ≈ ${fmt((a.cpu + cpuPer * (universe - base.length)) * 100, 0)} % of a core (ratio: cores)`,
    pass: true,
  })
  for (const v of EXCHANGE_IDS) {
    const use = restUse(v, base.length)
    const binding = use.reduce((x, g) => ((g.fixed + g.perCoins) / g.limit > (x.fixed + x.perCoins) / x.limit ? g : x))
    const share = (binding.fixed + binding.perCoins) / binding.limit
    const per = requestsPerMinute(v, base.length + 1) - requestsPerMinute(v, base.length)
    const plan = plannedIntervals(v, universe)
    const slowed = (Object.keys(plan) as (keyof typeof plan)[]).filter((k) => plan[k] > DEFAULT_POLL_INTERVALS[k]).map((k) => `${k.replace(/Ms$/, '')} every ${fmt(plan[k] / 1000, 0)} s`)
    rows.push({
      bench: `${v}: REST polls per minute (documented poll rates)`,
      measured: `${fmt(requestsPerMinute(v, base.length))} req/min for ${base.length} coins, +${fmt(per, 2)} per coin; most coins within ${LIVE_POLL_SHARE * 100} % of every limit: ${maxCoins(v)}`,
      baseline: `binding limit: ${binding.group} ${fmt(binding.fixed + binding.perCoins)} of ${binding.limit} ${binding.unit}/min at ${base.length} coins`,
      ratio: share / LIVE_POLL_SHARE,
      target: `≤ ${LIVE_POLL_SHARE * 100} % of each limit (ratio ≤ 1); COINS=all at ${universe} coins: ${slowed.length ? slowed.join(', ') : 'no poll slowed'}`,
      pass: share <= LIVE_POLL_SHARE,
    })
  }
  return rows
}
