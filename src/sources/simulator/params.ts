// Simulator assumptions: reference prices, volatilities, volumes, open interest, venue shares and trade sizes.
// Round numbers calibrated against the venues' own recorded figures (docs/simulator.md, "Calibration", lists
// the references); they are model inputs, not market data.

import type { ExchangeId } from '../../domain/exchanges.js'
import { hashString } from './rng.js'

export interface CoinParams {
  coin: string
  /** the level the (log) price mean-reverts to, USD */
  refPrice: number
  /** hourly log-return volatility in the "normal" regime */
  hourVol: number
  /** correlation of the coin's shocks with the market factor */
  beta: number
  /** perp volume per day over all five venues, USD */
  perpVolumeUsd: number
  /** spot volume per day over the three CEXes, USD */
  spotVolumeUsd: number
  /** perp open interest over all five venues, USD at refPrice */
  openInterestUsd: number
}

const c = (
  coin: string,
  refPrice: number,
  hourVol: number,
  beta: number,
  perpVolumeUsd: number,
  spotVolumeUsd: number,
  openInterestUsd: number,
): CoinParams => ({ coin, refPrice, hourVol, beta, perpVolumeUsd, spotVolumeUsd, openInterestUsd })

const B = 1e9
const M = 1e6

const COIN_PARAMS: Readonly<Record<string, CoinParams>> = Object.fromEntries(
  [
    c('BTC', 95_000, 0.0045, 0.85, 40 * B, 5 * B, 18 * B),
    c('ETH', 3_400, 0.006, 0.8, 25 * B, 4 * B, 8.4 * B),
    c('SOL', 180, 0.0085, 0.75, 6 * B, 1.2 * B, 2.4 * B),
    c('XRP', 2.3, 0.009, 0.65, 5 * B, 1.5 * B, 1.8 * B),
    c('BNB', 650, 0.005, 0.7, 1.2 * B, 0.6 * B, 480 * M),
    c('DOGE', 0.33, 0.01, 0.7, 3 * B, 0.7 * B, 1.2 * B),
    c('ADA', 0.95, 0.0095, 0.7, 1 * B, 0.3 * B, 480 * M),
    c('AVAX', 35, 0.0095, 0.72, 600 * M, 150 * M, 300 * M),
    c('LINK', 20, 0.009, 0.72, 800 * M, 200 * M, 360 * M),
    c('LTC', 105, 0.008, 0.68, 500 * M, 150 * M, 240 * M),
    c('DOT', 6.5, 0.009, 0.7, 300 * M, 80 * M, 180 * M),
    c('SUI', 4.2, 0.012, 0.6, 1.5 * B, 0.3 * B, 720 * M),
  ].map((p) => [p.coin, p]),
)

/** parameters for a coin outside the default list: derived from a hash of its name (a small alt) */
export function coinParams(coin: string): CoinParams {
  const known = COIN_PARAMS[coin]
  if (known) return known
  const h = hashString(coin)
  const u = (h >>> 0) / 4294967296
  return c(coin, Math.round(10 ** (-1 + 3 * u) * 1e4) / 1e4, 0.01 + 0.004 * (((h >>> 8) & 255) / 255), 0.65, 200 * M, 50 * M, 90 * M)
}

export interface VenueParams {
  /** share of the coin's perp volume, spot volume (CEX only) and perp open interest */
  perpVolumeShare: number
  spotVolumeShare: number
  oiShare: number
  /** average notional per trade on the venue's BTC perp / BTC spot market, USD (smaller coins: see TRADE_SIZE_EXPONENT) */
  perpTradeUsd: number
  spotTradeUsd: number
  /** sd of the venue's mean-reverting basis to the fair price */
  basisSd: number
  /** half spread multiplier (DEX books are a bit wider) */
  spreadMult: number
}

// dYdX and Hyperliquid carry a few percent of the CEX volume and dYdX a fraction of a percent of the open interest
// (their recorded 24 h figures); average trade sizes from recorded daily trade counts where the venue publishes them.
export const VENUE_PARAMS: Readonly<Record<ExchangeId, VenueParams>> = {
  binance: { perpVolumeShare: 0.45, spotVolumeShare: 0.6, oiShare: 0.448, perpTradeUsd: 4_800, spotTradeUsd: 400, basisSd: 1.5e-4, spreadMult: 1 },
  bybit: { perpVolumeShare: 0.25, spotVolumeShare: 0.2, oiShare: 0.25, perpTradeUsd: 8_000, spotTradeUsd: 600, basisSd: 1.8e-4, spreadMult: 1.1 },
  okx: { perpVolumeShare: 0.239, spotVolumeShare: 0.2, oiShare: 0.13, perpTradeUsd: 5_000, spotTradeUsd: 600, basisSd: 1.8e-4, spreadMult: 1.1 },
  hyperliquid: { perpVolumeShare: 0.055, spotVolumeShare: 0, oiShare: 0.17, perpTradeUsd: 3_500, spotTradeUsd: 0, basisSd: 2.5e-4, spreadMult: 1.5 },
  dydx: { perpVolumeShare: 0.006, spotVolumeShare: 0, oiShare: 0.002, perpTradeUsd: 3_900, spotTradeUsd: 0, basisSd: 4e-4, spreadMult: 2.5 },
}

/**
 * Average trade notional scales with the market's size: a coin whose total volume is x times BTC's trades
 * x^0.3 times BTC's average size on the same venue (dYdX's recorded ETH and SOL against BTC give 0.29 and 0.32).
 */
export const TRADE_SIZE_EXPONENT = 0.3

// ---- market-wide regime (hourly Markov chain) -----------------------------------------------------------------

/** volatility multiplier per regime */
export const REGIME_VOL = [0.6, 1.0, 2.3] as const
/** trading-activity multiplier per regime */
export const REGIME_ACTIVITY = [0.75, 1.0, 1.9] as const
/** per-hour transition probabilities, rows = from: mean stays ≈ 2 days calm, 3 days normal, 8 hours stressed */
export const REGIME_TRANSITIONS: readonly (readonly [number, number, number])[] = [
  [1 - 1 / 48, 1 / 48, 0],
  [0.6 / 72, 1 - 1 / 72, 0.4 / 72],
  [0, 1 / 8, 1 - 1 / 8],
]

// ---- model constants --------------------------------------------------------------------------------------------

export const MODEL = {
  /** log-price mean reversion to refPrice: half-life in hours (20 days) */
  refHalfLifeHours: 20 * 24,
  /** probability per hour that a ranging coin starts a trend (one every ~4 days) */
  trendStartPerHour: 1 / 96,
  /** mean trend duration, hours */
  trendMeanHours: 36,
  /** trend drift per hour as a multiple of hourVol: uniform in [min, max] */
  trendDriftMin: 0.2,
  trendDriftMax: 0.4,
  /** mean reversion to the range centre while ranging, per hour */
  rangeReversionPerHour: 1 / 48,
  /** crowd positioning (net long bias in [-1, 1]) follows momentum: B <- decay B + gain tanh(r / hourVol) */
  biasDecay: 0.93,
  biasGain: 0.09,
  /** liquidation cascade when the hourly move against the crowd exceeds this many hourVols (and |B| > minBias) */
  cascadeThreshold: 2.2,
  cascadeMinBias: 0.15,
  /** open interest: log mean reversion per hour to the baseline, growth with |bias| and while trending */
  oiReversionPerHour: 1 / (24 * 10),
  oiBiasGrowthPerHour: 0.006,
  oiTrendGrowthPerHour: 0.004,
  oiNoisePerHour: 0.003,
  /** perp premium over the index (fraction): mean, per unit of crowd bias, slow noise, fast noise */
  premiumMean: 0.6e-4,
  premiumPerBias: 3e-4,
  premiumSlowSd: 1.2e-4,
  premiumFastSd: 0.6e-4,
  /** interest component of funding per 8 hours (0.01 %), funding caps per 8h-equivalent */
  fundingInterest8h: 1e-4,
  fundingCap8h: 0.0075,
  /** half spread in bps for the most liquid market (BTC on binance), scaled up for smaller markets and venues */
  minHalfSpreadBps: 0.05,
  /** total book depth per side within ±5 %, in minutes of the market's average volume */
  bookDepthMinutes: 25,
  /** mean of the raw minute activity (time of day × regime × move × noise), so that activity averages 1 */
  activityMean: 0.82,
} as const

/** price tick: about 6 significant digits, as power-of-ten inverse (multiply, round, divide) */
export function tickInverse(price: number): number {
  const e = Math.floor(Math.log10(price))
  return 10 ** Math.max(0, 5 - e)
}
