// An analytics thread's work (./analytics-pool.ts): the pure analytics over plain data, answered in the wire format
// (./analytics-wire.ts) with its buffers moved, not copied, back to the event loop's thread.
import { Piscina } from 'piscina'
import type { PositionClass } from '../analytics/leverage-tiers.js'
import { estimateLiquidationMap, type OiBuildUpPoint } from '../analytics/liquidation-map.js'
import { encodeTrace, traceBuffers } from './analytics-wire.js'

export interface LiquidationMapTask {
  kind: 'liquidation-map'
  series: OiBuildUpPoint[]
  classes: PositionClass[]
  horizonMs: number
  /** the point indexes whose levels are wanted */
  snapshotAt: number[]
}

export default function run(task: LiquidationMapTask): unknown {
  const map = estimateLiquidationMap(task.series, { classes: task.classes, horizonMs: task.horizonMs, snapshotAt: new Set(task.snapshotAt) })
  const wire = encodeTrace(map.trace)
  // piscina moves every buffer listed under its transferable symbol (a list is concatenated into the transfer list)
  const movable = { [Piscina.transferableSymbol]: traceBuffers(wire), [Piscina.valueSymbol]: wire }
  return Piscina.move(movable as unknown as Parameters<typeof Piscina.move>[0])
}
