export { MinuteAggregator, type AggregatorOptions, type AggregatorStats, type FoldResult } from './minute-aggregator.js'
export { foldBars, rollup, rollupHour } from './rollup.js'
