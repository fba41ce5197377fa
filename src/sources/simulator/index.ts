export { MarketSimulator, ORIGIN_TS } from './simulator.js'
export { type HistorySink } from './history.js'
export { simulatedMarkets } from './markets.js'
