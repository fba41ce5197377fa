export { MarketSimulator, simulatedMarkets, ORIGIN_TS, type SimulatorOptions, type LiveOptions, type RangeResult } from './simulator.js'
export { COIN_PARAMS, VENUE_PARAMS, MODEL, REGIME_NAMES, REGIME_VOL, coinParams, type CoinParams, type VenueParams } from './params.js'
export { Rng, hash2, hashString, seedToU32, vnoise } from './rng.js'
