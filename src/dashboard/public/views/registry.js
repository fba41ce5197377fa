// Every analytics view, in page order. A new endpoint adds one module in this folder (path, title, period,
// render) and one line here; the page builds its panel, parameters, costs and refresh from that.
import basis from './basis.js'
import cvd from './cvd.js'
import divergence from './divergence.js'
import exchanges from './exchanges.js'
import fundingHistory from './funding-history.js'
import fundingArbitrage from './funding-arbitrage.js'
import imbalance from './imbalance.js'
import largeTrades from './large-trades.js'
import liquidationCascade from './liquidation-cascade.js'
import liquidationHeatmap from './liquidation-heatmap.js'
import liquidationHistory from './liquidation-history.js'
import marketsOverview from './markets-overview.js'
import ohlc from './ohlc.js'
import oiChanges from './oi-changes.js'
import oiHistory from './oi-history.js'
import positioning from './positioning.js'
import regime from './regime.js'
import snapshot from './snapshot.js'
import spread from './spread.js'
import takerVolume from './taker-volume.js'
import ticker from './ticker.js'
import volumeProfile from './volume-profile.js'
import weightedFunding from './weighted-funding.js'

export const VIEWS = [
  marketsOverview, ticker, ohlc, exchanges, spread, basis, imbalance, largeTrades, weightedFunding, fundingHistory, fundingArbitrage,
  oiChanges, oiHistory, cvd, takerVolume, volumeProfile, divergence, regime, liquidationHistory, liquidationHeatmap, positioning, liquidationCascade, snapshot,
]
