// Inputs of the signature models, built from the hot per-coin series (src/market/series.ts), and results
// memoized per series version: a model over weeks of history runs once per data refresh, not per request.
import { computeDivergence, divergenceLookbackMinutes, type CoinDivergence, type DivergenceMinute } from '../analytics/divergence.js'
import type { OiBuildUpPoint } from '../analytics/liquidation-cascade.js'
import { classifyRegime, REGIME_HISTORY_HOURS, REGIME_WINDOW_HOURS, type RegimeResult } from '../analytics/regime.js'
import { DAY_MS, HOUR_MS, MINUTE_MS, floorTo } from '../market/bars.js'
import type { ExchangeId } from '../market/events.js'
import type { MarketState } from '../market/state.js'
import { liveSamples } from './market-data.js'

/** minutes of the divergence grid taken from minute cells; older windows come from hourly cells */
export const DIVERGENCE_MINUTE_TAIL_MS = 6 * HOUR_MS
/** hours of open-interest build-up the liquidation map is estimated from */
export const CASCADE_OI_HOURS = 7 * 24

const memo = new WeakMap<MarketState, Map<string, { version: number; stamp: number; value: unknown }>>()

/** one result per key, reused while the series version and the stamp (e.g. the current minute) stay the same */
export function memoized<T>(market: MarketState, key: string, stamp: number, compute: () => T): T {
  let m = memo.get(market)
  if (!m) memo.set(market, (m = new Map()))
  const hit = m.get(key)
  if (hit && hit.version === market.series.version && hit.stamp === stamp) return hit.value as T
  const value = compute()
  m.set(key, { version: market.series.version, stamp, value })
  return value
}

/** the coin's divergence grid: hourly points (placed at each hour's last minute) then minutes for the tail */
export function divergenceMinutes(market: MarketState, coin: string, now: number): DivergenceMinute[] {
  const end = floorTo(now, MINUTE_MS)
  const tailStart = floorTo(end - DIVERGENCE_MINUTE_TAIL_MS, HOUR_MS)
  const from = end - divergenceLookbackMinutes('4h') * MINUTE_MS
  const toMinute = (p: ReturnType<typeof market.series.hours.points>[number], ts: number): DivergenceMinute => ({
    ts,
    price: p.close,
    openInterest: p.openInterest,
    fundingRate: p.funding8h,
    perpBuyVolume: p.perpBuy,
    perpSellVolume: p.perpSell,
    spotBuyVolume: p.spotBuy,
    spotSellVolume: p.spotSell,
  })
  const hours = market.series.hours.points(coin, from, tailStart).map((p) => toMinute(p, p.ts + HOUR_MS - MINUTE_MS))
  const minutes = market.series.minutes.points(coin, tailStart, end).map((p) => toMinute(p, p.ts))
  return [...hours, ...minutes]
}

export function coinDivergence(market: MarketState, coin: string, now: number): CoinDivergence {
  return memoized(market, `divergence:${coin}`, floorTo(now, MINUTE_MS), () => computeDivergence(coin, divergenceMinutes(market, coin, now)))
}

export function coinRegime(market: MarketState, coin: string, now: number): RegimeResult {
  return memoized(market, `regime:${coin}`, floorTo(now, HOUR_MS), () => {
    const to = floorTo(now, HOUR_MS)
    const hours = market.series.hours
      .points(coin, to - (REGIME_HISTORY_HOURS + REGIME_WINDOW_HOURS + 1) * HOUR_MS, to)
      .filter((p) => p.close !== null)
      .map((p) => ({ ts: p.ts, close: p.close!, openInterest: p.openInterest }))
    return classifyRegime(coin, hours)
  })
}

/** hourly OI build-up of the last week: where positions were opened, for the liquidation map */
export function oiBuildUp(market: MarketState, coin: string, now: number, exchange?: ExchangeId): OiBuildUpPoint[] {
  const to = floorTo(now, HOUR_MS) + HOUR_MS
  const points = market.series.hours.points(coin, to - (CASCADE_OI_HOURS + 1) * HOUR_MS, to, exchange)
  const out: OiBuildUpPoint[] = []
  for (let i = 1; i < points.length; i++) {
    const p = points[i]!
    const prev = points[i - 1]!
    const price = p.vwap ?? p.close
    if (price === null || p.openInterest === null || prev.openInterest === null) continue
    out.push({ price, oiChangeCoins: p.openInterest - prev.openInterest, buyVolume: p.perpBuy, sellVolume: p.perpSell, low: p.low ?? price, high: p.high ?? price })
  }
  return out
}

/** the latest composite perp close and its change from the close 24 h before that one (same minute of day) */
export function priceChange24h(market: MarketState, coin: string, now: number): { price: number | null; changePct: number | null } {
  const to = floorTo(now, MINUTE_MS)
  const latest = market.series.minutes.points(coin, to - 30 * MINUTE_MS, to + MINUTE_MS).filter((p) => p.close !== null).at(-1)
  if (!latest) return { price: null, changePct: null }
  const ref = market.series.minutes
    .points(coin, latest.ts - 24 * HOUR_MS - 30 * MINUTE_MS, latest.ts - 24 * HOUR_MS + MINUTE_MS)
    .filter((p) => p.close !== null)
    .at(-1)?.close
  return { price: latest.close, changePct: ref ? ((latest.close! - ref) / ref) * 100 : null }
}

/**
 * The same inputs the spread, weighted-funding and OI-change endpoints read from the store, taken from the hot
 * series instead (samples of the last day, the latest sample of each hour for a week), plus the live values: what
 * the snapshot feeds its models with (the spread's history is the marks of the last day's samples).
 */
export function seriesHistory(market: MarketState, coin: string, now: number) {
  const only = new Set([coin])
  const live = liveSamples(market, only).filter((s) => s.ts <= now)
  const asSample = (c: ReturnType<typeof market.series.minutes.perpSamples>[number]) => ({
    exchange: c.exchange,
    ts: c.ts,
    fundingRate: c.rate,
    fundingIntervalHours: c.interval,
    markPrice: c.mark,
    openInterest: c.oi,
  })
  const fundingSamples = [...market.series.hours.perpSamples(coin, now - 7 * DAY_MS - HOUR_MS, now).map(asSample), ...live]
  const oiSamples = [...market.series.minutes.perpSamples(coin, now - DAY_MS - 10 * MINUTE_MS, now).map(asSample), ...live]
  return { fundingSamples, oiSamples }
}
