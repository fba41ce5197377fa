// Market regime of a coin over the last 24 h: trend efficiency, realized volatility against its own month, OI build-up.
// Methodology and limits: docs/methodology.md#regime.

import { EXCHANGE_IDS, type ExchangeId } from '../domain/exchanges.js'
import { percentileRank, stdev } from './stats.js'

export const REGIMES = ['trending_up', 'trending_down', 'ranging', 'high_volatility', 'squeeze'] as const
export type Regime = (typeof REGIMES)[number]

/** the classified window: 24 hourly returns */
export const REGIME_WINDOW_HOURS = 24
/** realized-vol history: rolling 24 h windows over the previous 30 days, excluding windows overlapping the current */
export const REGIME_HISTORY_HOURS = 720
/** fewest history windows for a vol percentile (two days of hourly-rolled windows) */
const REGIME_MIN_POINTS = 48
/** efficiency ratio at or above which the window trends: ~5 % false positives for a 24-step Gaussian random walk */
const REGIME_TREND_ER = 0.5
/** and the net move must be at least 1 % (log) so micro-drifts on a quiet day are not trends */
const REGIME_MIN_TREND_MOVE = 0.01
/** realized-vol percentile at or above which the coin is high_volatility */
const REGIME_HIGH_VOL_PCT = 90
/** realized-vol percentile at or below which volatility is compressed (squeeze when OI builds as well) */
const REGIME_LOW_VOL_PCT = 10
/** 24 h OI log change at or above which OI is building */
const REGIME_OI_BUILD = 0.03

/** the rules' thresholds, as answered with a regime (docs/methodology.md#regime) */
export const REGIME_THRESHOLDS = {
  trendEfficiencyRatio: REGIME_TREND_ER,
  minTrendMove: REGIME_MIN_TREND_MOVE,
  highVolPercentile: REGIME_HIGH_VOL_PCT,
  lowVolPercentile: REGIME_LOW_VOL_PCT,
  oiBuild: REGIME_OI_BUILD,
  windowHours: REGIME_WINDOW_HOURS,
  minHistoryWindows: REGIME_MIN_POINTS,
} as const

/** one hour of a coin's perp market, oldest first, one per hour without gaps */
export interface RegimeHour {
  /** hour open, Unix ms */
  ts: number
  close: number
  /** aggregate one-sided OI at the hour's close, coins: chain-linked, so only its changes mean something */
  openInterest: number | null
  /** venues whose perp bars entered the close */
  exchanges?: readonly string[]
  /** venues the OI step into this hour was measured over */
  oiExchanges?: readonly string[]
}

export interface RegimeResult {
  coin: string
  /** null when there are fewer than 25 hourly closes */
  regime: Regime | null
  /** |net move| / sum of |hourly moves| over the window, 0..1 */
  efficiencyRatio: number | null
  /** log change of the close over the window */
  netMove: number | null
  /** sample stdev of hourly log returns over the window */
  realizedVol: number | null
  /** percentile (0..100) of realizedVol among the history windows */
  volPercentile: number | null
  /** log change of OI over the window */
  oiChange: number | null
  /** venues whose closes entered the window (canonical order) */
  exchanges: ExchangeId[]
  /** venues the window's OI change was measured over */
  oiExchanges: ExchangeId[]
  reason: string | null
}

/** classify a coin's last 24 h from hourly closes and OI (up to 30 days + 24 h of history is used) */
export function classifyRegime(coin: string, hours: readonly RegimeHour[]): RegimeResult {
  const h = hours.filter((x) => x.close > 0 && Number.isFinite(x.close))
  const out: RegimeResult = {
    coin,
    regime: null,
    efficiencyRatio: null,
    netMove: null,
    realizedVol: null,
    volPercentile: null,
    oiChange: null,
    exchanges: [],
    oiExchanges: [],
    reason: null,
  }
  const W = REGIME_WINDOW_HOURS
  if (h.length < W + 1) return { ...out, reason: `insufficient history: ${h.length} of ${W + 1} hourly closes` }

  // r[i] is the return into hour i (r[0] unused).
  const r = h.map((x, i) => (i === 0 ? 0 : Math.log(x.close / h[i - 1]!.close)))
  const last = h.length - 1
  const win = r.slice(last - W + 1, last + 1)
  // net as the sum of the same log returns as the path, so ER stays within [0, 1] in floating point
  let net = 0
  let path = 0
  for (const x of win) {
    net += x
    path += Math.abs(x)
  }
  const er = path > 0 ? Math.min(1, Math.abs(net) / path) : 0
  const rv = stdev(win)

  const history: number[] = []
  for (let e = Math.max(W, last - REGIME_HISTORY_HOURS); e <= last - W; e++) history.push(stdev(r.slice(e - W + 1, e + 1)))
  const pct = percentileRank(rv, history, REGIME_MIN_POINTS)

  const oi = forwardFill(h.map((x) => x.openInterest))
  const oiNow = oi[last]
  const oiThen = oi[last - W]
  const oiChange = oiNow != null && oiThen != null && oiNow > 0 && oiThen > 0 ? Math.log(oiNow / oiThen) : null

  let regime: Regime
  if (er >= REGIME_TREND_ER && Math.abs(net) >= REGIME_MIN_TREND_MOVE) regime = net > 0 ? 'trending_up' : 'trending_down'
  else if (pct.value != null && pct.value >= REGIME_HIGH_VOL_PCT) regime = 'high_volatility'
  else if (pct.value != null && pct.value <= REGIME_LOW_VOL_PCT && oiChange != null && oiChange >= REGIME_OI_BUILD)
    regime = 'squeeze'
  else regime = 'ranging'

  return {
    coin,
    regime,
    efficiencyRatio: er,
    netMove: net,
    realizedVol: rv,
    volPercentile: pct.value,
    oiChange,
    exchanges: venuesOf(h.slice(last - W, last + 1).map((x) => x.exchanges)),
    oiExchanges: oiChange === null ? [] : venuesOf(h.slice(last - W + 1, last + 1).map((x) => x.oiExchanges)),
    reason: pct.value == null ? `volatility regimes not assessed: ${pct.reason}` : null,
  }
}

function forwardFill(xs: readonly (number | null)[]): (number | null)[] {
  let prev: number | null = null
  return xs.map((x) => (prev = x != null && Number.isFinite(x) ? x : prev))
}

const venuesOf = (sets: readonly (readonly string[] | undefined)[]): ExchangeId[] => EXCHANGE_IDS.filter((e) => sets.some((s) => s?.includes(e)))
