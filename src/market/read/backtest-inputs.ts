// The hourly history the signal backtest reads (docs/methodology.md#signal-backtest): closes, and each published
// signal re-evaluated at every hour of the window from the stored hours before it (no look-ahead: the signal of
// hour H uses data through H's close, and its forward returns start from that close).
import type { SignalHour } from '../../analytics/backtest.js'
import { chainLink } from '../../analytics/chain-link.js'
import { computeDivergence, divergenceLookbackMinutes, type DivergenceMinute } from '../../analytics/divergence.js'
import { FUNDING_STATS_WINDOW } from '../../analytics/funding.js'
import { HOUR_MS, MINUTE_MS } from '../../domain/time.js'
import type { MarketState } from '../state.js'
import { closeOutliersOf, regimeHistory, type CloseOutliers } from './signal-inputs.js'

/** |z| of the OI-weighted 8 h funding against its previous week at or above which funding is extreme */
const FUNDING_EXTREME_Z = 2

export interface BacktestInputs {
  closes: Map<number, number>
  /** per signal name, its state at each hour of the window, ascending */
  signals: Map<string, SignalHour[]>
  /** the venues that traded each hour of the window (coverage) */
  venueHours: { exchange: string; ts: number }[]
  /** the venues left out of the hourly closes read as outliers (coverage) */
  closeOutliers: CloseOutliers
}

export function backtestInputs(market: MarketState, coin: string, from: number, to: number, now: number): BacktestInputs {
  const lookback = divergenceLookbackMinutes('4h') * MINUTE_MS
  const points = market.series.hours.points(coin, from - lookback, to + 25 * HOUR_MS)
  const linked = chainLink(points.map((p) => p.venues))
  const closes = new Map<number, number>()
  for (const p of points) if (p.close !== null) closes.set(p.ts, p.close)
  const signals = new Map<string, SignalHour[]>()
  const push = (name: string, h: SignalHour) => {
    const list = signals.get(name)
    if (list) list.push(h)
    else signals.set(name, [h])
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
    for (const s of computeDivergence(coin, grid.slice(lo, i + 1)).pairs)
      push(`divergence_${s.pair}_${s.timeframe}`, { ts, active: s.active, direction: s.active ? s.direction : 'none' })
  }

  // regime: the hour's classification; trending regimes carry their direction
  const slots: number[] = []
  for (let ts = Math.ceil(from / HOUR_MS) * HOUR_MS; ts < to; ts += HOUR_MS) slots.push(ts)
  for (const r of regimeHistory(market, coin, slots, HOUR_MS, now))
    for (const name of ['trending_up', 'trending_down', 'ranging', 'high_volatility', 'squeeze'] as const)
      push(`regime_${name}`, { ts: r.ts, active: r.regime === name, direction: name === 'trending_up' ? 'bullish' : name === 'trending_down' ? 'bearish' : 'none' })

  // funding extremes: z of the hour's OI-weighted 8 h funding against the week before (at least 72 hours);
  // crowded longs (high funding) read bearish, crowded shorts bullish
  const hist = FUNDING_STATS_WINDOW.lookbackMs / HOUR_MS
  for (let i = 0; i < points.length; i++) {
    const ts = points[i]!.ts
    if (ts < from || ts >= to) continue
    const f = linked[i]!.funding8h
    const prev = linked.slice(Math.max(0, i - hist), i).map((l) => l.funding8h).filter((x): x is number => x !== null)
    let z: number | null = null
    if (f !== null && prev.length >= FUNDING_STATS_WINDOW.minPoints) {
      const m = prev.reduce((s, x) => s + x, 0) / prev.length
      const sd = Math.sqrt(prev.reduce((s, x) => s + (x - m) ** 2, 0) / (prev.length - 1))
      z = sd > 0 ? (f - m) / sd : null
    }
    const active = z !== null && Math.abs(z) >= FUNDING_EXTREME_Z
    push('funding_extreme', { ts, active, direction: active ? (z! > 0 ? 'bearish' : 'bullish') : 'none' })
  }
  const venueHours = points.filter((p) => p.ts >= from && p.ts < to).flatMap((p) => p.perpExchanges.map((exchange) => ({ exchange, ts: p.ts })))
  return { closes, signals, venueHours, closeOutliers: closeOutliersOf(points) }
}
