// What one more coin costs (issue 30, item 4; docs/performance.md#what-a-coin-costs), the step BENCH_ONLY=coins:
// - memory and CPU: the service on the simulator (live feed, ingest, aggregation, series, store writes, with
//   BENCH_COIN_DAYS of history loaded) with the 12 default coins and with 12 more (small alts, as most of a universe
//   is), each on its own store; the difference per added coin;
// - requests per minute per venue: the connectors' REST polls at their documented rates (src/market/connectors/
//   poll-cost.ts, whose per-poll counts test/market/connectors/poll-cost.test.ts takes from the real connectors), the
//   limit each one binds against, and the most coins that fit in the live share of every limit.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { ChildProcess } from 'node:child_process'
import { DEFAULT_COINS } from '../src/market/coins.js'
import { EXCHANGE_IDS } from '../src/domain/exchanges.js'
import { DEFAULT_POLL_INTERVALS } from '../src/market/connectors/connector-options.js'
import { LIVE_POLL_SHARE, maxCoins, plannedIntervals, requestsPerMinute, restUse } from '../src/market/connectors/poll-cost.js'
import type { Row } from './report.js'

/** coins beyond the defaults: perps on at least two venues in the recorded lists, simulated with small-alt parameters */
const MORE = ['ATOM', 'MATIC', 'DYDX', 'CRV', 'FTM', 'SNX', 'BCH', 'INJ', 'APT', 'ARB', 'OP', 'LDO']

interface Started {
  proc: ChildProcess
  info: { port: number }
  backfilled: Promise<number>
}

export interface CoinBenchDeps {
  start(env: Record<string, string>): Promise<Started>
  cpuSeconds(pid: number | undefined): number
  rss(port: number): Promise<number>
}

const fmt = (n: number, d = 1) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d })
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function heapUsed(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
  return Number(/^nodejs_heap_size_used_bytes(?:\{[^}]*\})? (\S+)/m.exec(text)?.[1] ?? NaN)
}

/** one service on its own store with `coins`: resident memory, heap and CPU share once its history is loaded */
async function measure(deps: CoinBenchDeps, coins: string[], days: number, seconds: number): Promise<{ rss: number; heap: number; cpu: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-coins-'))
  const svc = await deps.start({ DATABASE_URL: `pglite:${path.join(dir, 'pglite')}`, BENCH_COINS: coins.join(','), BENCH_DAYS: String(days) })
  try {
    await svc.backfilled
    // the backfill's garbage collected and the live feed in its steady state before measuring
    await sleep(5_000)
    const c0 = deps.cpuSeconds(svc.proc.pid)
    const t0 = performance.now()
    await sleep(seconds * 1000)
    const cpu = (deps.cpuSeconds(svc.proc.pid) - c0) / ((performance.now() - t0) / 1000)
    return { rss: await deps.rss(svc.info.port), heap: await heapUsed(svc.info.port), cpu }
  } finally {
    svc.proc.kill('SIGTERM')
    await new Promise((r) => svc.proc.once('exit', r))
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

export async function benchCoins(deps: CoinBenchDeps, opts: { seconds: number }): Promise<Row[]> {
  const days = Number(process.env.BENCH_COIN_DAYS ?? 30)
  const universe = Number(process.env.BENCH_UNIVERSE ?? 200)
  const rows: Row[] = []
  const base = [...DEFAULT_COINS]
  const more = [...base, ...MORE]
  console.log(`coins: ${base.length} and ${more.length} simulated coins, ${days} days each…`)
  const a = await measure(deps, base, days, opts.seconds * 2)
  const b = await measure(deps, more, days, opts.seconds * 2)
  const added = more.length - base.length
  const mb = (x: number) => x / 2 ** 20
  const rssPer = (b.rss - a.rss) / added
  const heapPer = (b.heap - a.heap) / added
  const cpuPer = (b.cpu - a.cpu) / added
  const projected = a.rss + rssPer * (universe - base.length)
  rows.push({
    bench: `memory per added coin (simulator, ${days} d of history loaded, live feed)`,
    measured: `${fmt(mb(rssPer))} MB resident, ${fmt(mb(heapPer))} MB heap per coin`,
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
