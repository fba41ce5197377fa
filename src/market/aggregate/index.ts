export { MinuteAggregator, type AggregatorOptions } from './minute-aggregator.js'
export type { AggregatorStats, FoldResult } from './stats.js'
export { foldBars, rollup, rollupHour } from './rollup.js'
