// Every analytics view, in page order. A new endpoint adds one module in this folder (path, title, period,
// render) and one line here; the page builds its panel, parameters, costs and refresh from that.
import divergence from './divergence.js'
import exchanges from './exchanges.js'
import imbalance from './imbalance.js'
import liquidationCascade from './liquidation-cascade.js'
import ohlc from './ohlc.js'
import oiChanges from './oi-changes.js'
import snapshot from './snapshot.js'
import spread from './spread.js'
import ticker from './ticker.js'
import volumeProfile from './volume-profile.js'
import weightedFunding from './weighted-funding.js'

export const VIEWS = [ticker, ohlc, exchanges, spread, imbalance, weightedFunding, oiChanges, volumeProfile, divergence, liquidationCascade, snapshot]
