// CPU-heavy analytics on worker threads (docs/operations.md#heavy-calls): the liquidation map of a long window holds
// a core for seconds (a year's heatmap ~3 s), which on the event loop would stop every other caller for as long.
// A piscina pool of ANALYTICS_THREADS threads runs them (./analytics-worker.ts), inputs as plain data and answers as
// transferred typed arrays (./analytics-wire.ts). With 0 threads, or once the pool fails to start, they run here.
import { Piscina } from 'piscina'
import type { LiquidationMapTrace } from '../analytics/liquidation-map.js'
import { estimateLiquidationMap } from '../analytics/liquidation-map.js'
import { decodeTrace, type WireTrace } from './analytics-wire.js'
import type { LiquidationMapTask } from './analytics-worker.js'

/** the worker's module: the built .js next to this one, or the .ts source through tsx's loader (tests, tsx) */
function workerOptions(): { filename: string; execArgv?: string[] } {
  const self = import.meta.url
  if (!self.endsWith('.ts')) return { filename: new URL('./analytics-worker.js', self).href }
  return { filename: new URL('./analytics-worker.ts', self).href, execArgv: ['--import', 'tsx'] }
}

export class AnalyticsPool {
  private pool: Piscina | null
  /** tasks run on the pool so far (for tests and metrics) */
  ran = 0

  constructor(threads: number) {
    this.pool = threads > 0 ? new Piscina({ ...workerOptions(), minThreads: 0, maxThreads: threads, idleTimeout: 60_000 }) : null
  }

  /** the liquidation map's trace (per point its swept USD, the levels at the points asked for), off the event loop */
  async liquidationMap(task: Omit<LiquidationMapTask, 'kind'>): Promise<LiquidationMapTrace> {
    if (this.pool) {
      try {
        const wire = (await this.pool.run({ kind: 'liquidation-map', ...task } satisfies LiquidationMapTask)) as WireTrace
        this.ran++
        return decodeTrace(wire)
      } catch (e) {
        // a thread that cannot start (or a pool being closed) is not the caller's fault: computed here instead
        if (!(e instanceof Error) || !/worker|thread|terminat|destroy/i.test(e.message)) throw e
      }
    }
    return estimateLiquidationMap(task.series, { classes: task.classes, horizonMs: task.horizonMs, snapshotAt: new Set(task.snapshotAt) }).trace
  }

  async close(): Promise<void> {
    const pool = this.pool
    this.pool = null
    await pool?.destroy()
  }
}
