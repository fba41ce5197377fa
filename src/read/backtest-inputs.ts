// The hourly history the signal backtest reads (docs/methodology.md#signal-backtest): closes, and each published
// signal re-evaluated at every hour of the window from the stored hours before it (no look-ahead: the signal of
// hour H uses data through H's close, and its forward returns start from that close).
import type { SignalHistory, SignalHour } from '../analytics/backtest.js'
import { chainLink } from '../analytics/chain-link.js'
import { computeDivergence, divergenceLookbackMinutes, type DivergenceMinute, type DivergenceTimeframe } from '../analytics/divergence.js'
import { FUNDING_STATS_WINDOW } from '../analytics/funding.js'
import { REGIME_HISTORY_HOURS, REGIME_WINDOW_HOURS } from '../analytics/regime.js'
import { HOUR_MS, MINUTE_MS } from '../domain/time.js'
import { timeSlices } from './time-slices.js'
import type { MarketState } from './state.js'
import { closeOutliersOf, regimeHistory, type CloseOutliers } from './signal-inputs.js'

/** |z| of the OI-weighted 8 h funding against its previous week at or above which funding is extreme */
const FUNDING_EXTREME_Z = 2

/**
 * Hours before an hour H that each signal's computation reads in full: divergence on timeframe W its 120 history
 * windows and the current one (121 W, the hourly grid from H − 121 W to H); the regime the 744 hours before its
 * classification's end H + 1 h (720 h of volatility history, the 24 h window); funding its previous week.
 */
const historyHours = {
  divergence: (tf: DivergenceTimeframe) => (divergenceLookbackMinutes(tf) - 1) / 60,
  regime: REGIME_HISTORY_HOURS + REGIME_WINDOW_HOURS,
  funding: FUNDING_STATS_WINDOW.lookbackMs / HOUR_MS,
}

export interface BacktestInputs {
  closes: Map<number, number>
  /** per signal name, its state at each hour of the window, ascending */
  signals: Map<string, SignalHour[]>
  /** per signal name, the history it reads and where the stored hours start */
  history: Map<string, SignalHistory>
  /** the venues that traded each hour of the window (coverage) */
  venueHours: { exchange: string; ts: number }[]
  /** the venues left out of the hourly closes read as outliers (coverage) */
  closeOutliers: CloseOutliers
}

/** a window's hours re-evaluated one by one: the loops give the event loop a turn every 20 ms (90 days are ~1 s of CPU) */
export async function backtestInputs(market: MarketState, coin: string, from: number, to: number, now: number): Promise<BacktestInputs> {
  const slice = timeSlices()
  const lookback = divergenceLookbackMinutes('4h') * MINUTE_MS
  // back as far as the longest history any signal reads, to know where the stored hours start (the hot series holds 31 days)
  const points = market.series.hours.points(coin, from - Math.max(lookback, historyHours.regime * HOUR_MS), to + 25 * HOUR_MS)
  const linked = chainLink(points.map((p) => p.venues))
  const closes = new Map<number, number>()
  for (const p of points) if (p.close !== null) closes.set(p.ts, p.close)
  const dataFrom = points.find((p) => p.close !== null)?.ts ?? null
  const signals = new Map<string, SignalHour[]>()
  const history = new Map<string, SignalHistory>()
  const push = (name: string, h: SignalHour, hours: number) => {
    const list = signals.get(name)
    if (list) list.push(h)
    else {
      signals.set(name, [h])
      history.set(name, { hours, dataFrom })
    }
  }

  // divergence: every pair and timeframe, computed on the hourly grid (each hour placed at its last minute)
  const grid: DivergenceMinute[] = points.map((p, i) => ({
    ts: p.ts + HOUR_MS - MINUTE_MS,
    price: p.close,
    openInterest: linked[i]!.oi,
    fundingRate: linked[i]!.funding8h,
    perpBuyVolume: p.perpBuy,
    perpSellVolume: p.perpSell,
    spotBuyVolume: p.spotBuy,
    spotSellVolume: p.spotSell,
  }))
  let lo = 0
  for (let i = 0; i < points.length; i++) {
    const ts = points[i]!.ts
    if (ts < from || ts >= to) continue
    while (grid[lo]!.ts < grid[i]!.ts - lookback) lo++
    await slice()
    for (const s of computeDivergence(coin, grid.slice(lo, i + 1)).pairs)
      push(`divergence_${s.pair}_${s.timeframe}`, { ts, active: s.active, direction: s.active ? s.direction : 'none' }, historyHours.divergence(s.timeframe))
  }

  // regime: the hour's classification; trending regimes carry their direction
  const slots: number[] = []
  for (let ts = Math.ceil(from / HOUR_MS) * HOUR_MS; ts < to; ts += HOUR_MS) slots.push(ts)
  for (const r of regimeHistory(market, coin, slots, HOUR_MS, now))
    for (const name of ['trending_up', 'trending_down', 'ranging', 'high_volatility', 'squeeze'] as const)
      push(`regime_${name}`, { ts: r.ts, active: r.regime === name, direction: name === 'trending_up' ? 'bullish' : name === 'trending_down' ? 'bearish' : 'none' }, historyHours.regime)

  // funding extremes: z of the hour's OI-weighted 8 h funding against the week before (at least 72 hours);
  // crowded longs (high funding) read bearish, crowded shorts bullish
  const hist = FUNDING_STATS_WINDOW.lookbackMs / HOUR_MS
  for (let i = 0; i < points.length; i++) {
    const ts = points[i]!.ts
    if (ts < from || ts >= to) continue
    await slice()
    const f = linked[i]!.funding8h
    const prev = linked.slice(Math.max(0, i - hist), i).map((l) => l.funding8h).filter((x): x is number => x !== null)
    let z: number | null = null
    if (f !== null && prev.length >= FUNDING_STATS_WINDOW.minPoints) {
      const m = prev.reduce((s, x) => s + x, 0) / prev.length
      const sd = Math.sqrt(prev.reduce((s, x) => s + (x - m) ** 2, 0) / (prev.length - 1))
      z = sd > 0 ? (f - m) / sd : null
    }
    const active = z !== null && Math.abs(z) >= FUNDING_EXTREME_Z
    push('funding_extreme', { ts, active, direction: active ? (z! > 0 ? 'bearish' : 'bullish') : 'none' }, historyHours.funding)
  }
  const venueHours = points.filter((p) => p.ts >= from && p.ts < to).flatMap((p) => p.perpExchanges.map((exchange) => ({ exchange, ts: p.ts })))
  return { closes, signals, history, venueHours, closeOutliers: closeOutliersOf(points) }
}
