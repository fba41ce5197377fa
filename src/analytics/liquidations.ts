// Liquidation history from the stored 1-minute long/short aggregates (docs/methodology.md#liquidations): each
// interval's long and short USD is the sum of its minutes, per venue and across venues. Nothing is estimated: an
// interval without a stored order is zero for the venues that publish a feed.

export interface LiquidationMinute {
  exchange: string
  ts: number
  longUsd: number
  shortUsd: number
  longCount: number
  shortCount: number
}

export interface LiquidationPoint {
  ts: number
  longUsd: number
  shortUsd: number
  totalUsd: number
  longCount: number
  shortCount: number
}

export interface LiquidationHistory {
  /** every venue summed, one point per slot */
  aggregate: LiquidationPoint[]
  /** per venue, one point per slot */
  exchanges: { exchange: string; points: LiquidationPoint[] }[]
  /** totals over the slots shown */
  totalLongUsd: number
  totalShortUsd: number
}

const empty = (ts: number): LiquidationPoint => ({ ts, longUsd: 0, shortUsd: 0, totalUsd: 0, longCount: 0, shortCount: 0 })

function add(p: LiquidationPoint, m: LiquidationMinute): void {
  p.longUsd += m.longUsd
  p.shortUsd += m.shortUsd
  p.totalUsd = p.longUsd + p.shortUsd
  p.longCount += m.longCount
  p.shortCount += m.shortCount
}

/**
 * Folds minute rows into the slots (interval starts, ascending, each `intervalMs` long). Minutes outside every slot
 * are ignored. `venues` are the exchanges to list (each gets a series, zero where it had nothing).
 */
export function buildLiquidationHistory(input: { slots: readonly number[]; intervalMs: number; minutes: readonly LiquidationMinute[]; venues: readonly string[] }): LiquidationHistory {
  const { slots, intervalMs } = input
  const index = new Map(slots.map((t, i) => [t, i]))
  const aggregate = slots.map(empty)
  const per = new Map(input.venues.map((e) => [e, slots.map(empty)]))
  for (const m of input.minutes) {
    const i = index.get(Math.floor(m.ts / intervalMs) * intervalMs)
    if (i === undefined) continue
    add(aggregate[i]!, m)
    const series = per.get(m.exchange)
    if (series) add(series[i]!, m)
  }
  return {
    aggregate,
    exchanges: [...per].map(([exchange, points]) => ({ exchange, points })),
    totalLongUsd: aggregate.reduce((s, p) => s + p.longUsd, 0),
    totalShortUsd: aggregate.reduce((s, p) => s + p.shortUsd, 0),
  }
}

/**
 * Σ long and short USD of minute rows (ascending by ts), added as buildLiquidationHistory adds them at 1-minute
 * intervals (each minute's rows, then minute by minute, long and short apart), so the rows of a window give exactly
 * the total of /v1/liquidations/history at interval 1m over it.
 */
export function liquidationTotalUsd(minutes: readonly LiquidationMinute[]): number {
  let [long, short, minuteLong, minuteShort] = [0, 0, 0, 0]
  let at: number | null = null
  for (const m of minutes) {
    if (m.ts !== at) {
      long += minuteLong
      short += minuteShort
      ;[minuteLong, minuteShort, at] = [0, 0, m.ts]
    }
    minuteLong += m.longUsd
    minuteShort += m.shortUsd
  }
  return long + minuteLong + (short + minuteShort)
}
