export { MinuteAggregator } from './minute-aggregator.js'
export { foldBars, rollup, rollupHour } from '../../store/market/rollup.js'
