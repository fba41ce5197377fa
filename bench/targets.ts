// Issue 32's first table, gathered at the end of the run: each figure as the step that measures it recorded it, with
// its baseline from the same run, the ratio to that baseline, the target and whether it is met. A figure whose step
// did not run (BENCH_ONLY) is shown as "not run".
import fs from 'node:fs'
import { DAY_MS, MINUTE_MS } from '../src/domain/time.js'
import { MarketSimulator } from '../src/sources/simulator/index.js'

/** the rows, in the order */
const TARGETS = {
  tickerThroughput: { figure: 'ticker with auth + credits, 50 connections, throughput as a ratio to bare Express serving the same bytes', target: '≥ 0.85' },
  tickerP99: { figure: 'ticker p99 at 50 connections', target: '≤ 1.5× bare Express p99' },
  snapshot: { figure: 'snapshot, worst call right after data ticks (views step)', target: '< 100 ms' },
  backfill: { figure: 'simulated backfill behind the listening server', target: '< 90 s' },
  backfillP99: { figure: 'ticker p99 during that backfill (100 req/s, 10 connections)', target: '≤ 1.5× idle' },
  memory: { figure: 'resident memory of the service process after the backfill', target: '< 350 MB' },
} as const

export type TargetKey = keyof typeof TARGETS

interface Figure {
  measured: string
  baseline: string
  /** measured / baseline */
  ratio: number
  met: boolean
}

const figures = new Map<TargetKey, Figure>()

/** a step's figure for one of the rows (the last one recorded counts) */
export function recordTarget(key: TargetKey, figure: Figure): void {
  figures.set(key, figure)
}

const fmt = (n: number, d = 2) => (Number.isFinite(n) ? n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d }) : '—')

/** the table as markdown: every row of the issue, measured or "not run" */
export function targetsTable(): string {
  const rows = (Object.keys(TARGETS) as TargetKey[]).map((key) => {
    const { figure, target } = TARGETS[key]
    const f = figures.get(key)
    return f ? `| ${figure} | ${f.measured} | ${f.baseline} | ${fmt(f.ratio)} | ${target} | ${f.met ? 'met' : 'not met'} |` : `| ${figure} | not run | — | — | ${target} | not run |`
  })
  return ['Issue 32 targets', '', '| figure | measured | baseline (same run) | ratio to baseline | target | met |', '|---|---|---|---|---|---|', ...rows].join('\n')
}

/** resident memory of a process, bytes, from /proc (Linux): for a process without /metrics (the bare Express baseline) */
export function processRss(pid: number | undefined): number {
  try {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
    return kb ? Number(kb) * 1024 : NaN
  } catch {
    return NaN
  }
}

/**
 * The simulator by itself over `days` to now into a sink that only counts, day by day as the backfill simulates: the
 * least a simulated backfill can take on this machine (the backfill row's baseline; bench/backfill-time.ts prints it too)
 */
export function simulatorAlone(days: number, coins: readonly string[]): { ms: number; cpuMs: number; events: number } {
  const now = Math.floor(Date.now() / MINUTE_MS) * MINUTE_MS
  let events = 0
  const count = { emit: () => void events++, emitBar: () => void events++ }
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  const sim = new MarketSimulator({ seed: 42, coins: [...coins] })
  for (let to = now; to > now - days * DAY_MS; to -= DAY_MS) sim.simulateRange(Math.max(to - DAY_MS, now - days * DAY_MS), to, count as never)
  const cpu = process.cpuUsage(cpu0)
  return { ms: performance.now() - t0, cpuMs: (cpu.user + cpu.system) / 1000, events }
}
