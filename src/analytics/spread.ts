// Cross-exchange price spread for /v1/structure/spread: (max - min) in bps of the min/max mid, cheapest and dearest
// venue, each price's quote currency and source, outliers set aside, and a z-score against its own 1-minute history.
import { DAY_MS, MINUTE_MS, floorTo } from '../domain/time.js'
import { EXCHANGE_IDS, exchangeById, type ExchangeId, type QuoteCurrency } from '../domain/exchanges.js'
import type { PriceSource } from '../domain/venue-prices.js'
import { outlierReason, splitOutliers, type PriceOutlier } from './price-outliers.js'
import { zScore, type Stat } from './stats.js'
import { latestPerExchange } from './ticker.js'

/**
 * one exchange's tradable price at ts, the venue's own time for it (the receive time where the payload has none): its
 * mark, or its last trade where it has no mark of its own (ts = the trade's minute)
 */
export interface PriceRow {
  exchange: ExchangeId
  ts: number
  price: number | null
  source: PriceSource
}

/**
 * a venue whose latest price is older than this is treated as missing, so a dead feed cannot fake a spread;
 * the same age at which the exchange's status turns `down` (src/read/feed-status.ts)
 */
export const SPREAD_MAX_PRICE_AGE_MS = 2 * MINUTE_MS
/** a spread needs at least this many venues with a price */
const SPREAD_MIN_EXCHANGES = 2
/** z-score history: 1-minute spreads of the 24 h before the current minute; at least 720 of them (12 h) */
export const SPREAD_Z_WINDOW = { lookbackMs: DAY_MS, stepMs: MINUTE_MS, minPoints: 720 } as const

export interface Spread {
  /** (max - min) / ((max + min) / 2) × 10 000 */
  spreadBps: number | null
  reason: string | null
  cheapest: ExchangeId | null
  dearest: ExchangeId | null
  /** venues whose price is in the spread (usable, not an outlier) */
  exchanges: ExchangeId[]
  /** venues whose price was set aside as an outlier, with the median it was measured against */
  outliers: PriceOutlier[]
  median: number | null
}

const usablePrice = (p: number | null | undefined): p is number => p != null && Number.isFinite(p) && p > 0
const rank = (e: ExchangeId) => EXCHANGE_IDS.indexOf(e)

/**
 * spread across venues (one price each; a repeated venue keeps its last price), outliers set aside first; ties go to
 * the first venue in canonical order
 */
export function computeSpread(prices: readonly { exchange: ExchangeId; price: number | null }[]): Spread {
  const usable = new Map<ExchangeId, number>()
  for (const p of prices) if (usablePrice(p.price)) usable.set(p.exchange, p.price)
  const split = splitOutliers([...usable].map(([exchange, price]) => ({ exchange, price })))
  const byExchange = new Map(split.kept.map((r) => [r.exchange, r.price]))
  const venues = [...byExchange.keys()].sort((a, b) => rank(a) - rank(b))
  const outliers = split.outliers.sort((a, b) => rank(a.exchange) - rank(b.exchange))
  if (venues.length < SPREAD_MIN_EXCHANGES) {
    const aside = outliers.length ? `; ${outliers.map((o) => o.exchange).join(', ')} set aside as outliers (more than 5 % from the venues' median)` : ''
    return { spreadBps: null, reason: `fewer than ${SPREAD_MIN_EXCHANGES} exchanges with a price (${venues.length})${aside}`, cheapest: null, dearest: null, exchanges: venues, outliers, median: split.median }
  }
  let cheapest = venues[0]!
  let dearest = venues[0]!
  for (const e of venues) {
    if (byExchange.get(e)! < byExchange.get(cheapest)!) cheapest = e
    if (byExchange.get(e)! > byExchange.get(dearest)!) dearest = e
  }
  const min = byExchange.get(cheapest)!
  const max = byExchange.get(dearest)!
  return { spreadBps: ((max - min) / ((max + min) / 2)) * 10_000, reason: null, cheapest, dearest, exchanges: venues, outliers, median: split.median }
}

export interface SpreadPoint {
  /** minute open time */
  ts: number
  spreadBps: number
}

/** per-minute spread series: in each minute, each venue's last price; minutes with fewer than 2 venues are skipped */
export function spreadHistory(rows: readonly PriceRow[]): SpreadPoint[] {
  const minutes = new Map<number, PriceRow[]>()
  for (const r of rows) {
    if (!Number.isFinite(r.ts) || !usablePrice(r.price)) continue
    const m = floorTo(r.ts, MINUTE_MS)
    let list = minutes.get(m)
    if (!list) minutes.set(m, (list = []))
    list.push(r)
  }
  const out: SpreadPoint[] = []
  for (const m of [...minutes.keys()].sort((a, b) => a - b)) {
    const s = computeSpread(latestPerExchange(minutes.get(m)!))
    if (s.spreadBps !== null) out.push({ ts: m, spreadBps: s.spreadBps })
  }
  return out
}

/** z-score of the current spread against the SPREAD_Z_WINDOW minutes before the current minute (current minute excluded) */
export function spreadZScore(current: number | null, history: readonly SpreadPoint[], now: number): Stat {
  const to = floorTo(now, MINUTE_MS)
  const from = to - SPREAD_Z_WINDOW.lookbackMs
  const values = history.filter((p) => p.ts >= from && p.ts < to).map((p) => p.spreadBps)
  return zScore(current, values, SPREAD_Z_WINDOW.minPoints)
}

export interface ExchangePrice {
  exchange: ExchangeId
  /** tradable price (mark, or last trade where the venue has no mark); null when none within SPREAD_MAX_PRICE_AGE_MS */
  price: number | null
  /** which price it is; null without one */
  priceSource: PriceSource | null
  /** set aside: further than PRICE_OUTLIER_MAX_DEVIATION from the venues' median */
  outlier: boolean
  /** why it was set aside, else null */
  outlierReason: string | null
  /** the currency the price is in (USDT for the CEX perps, USDC for Hyperliquid and dYdX) */
  quote: QuoteCurrency
  /** ts of the price used, or of the stale one that was set aside */
  ts: number | null
}

/** one coin's entry of the /v1/structure/spread payload */
export interface CoinSpread {
  coin: string
  ts: number
  /** all five exchanges, canonical order */
  prices: ExchangePrice[]
  spreadBps: number | null
  reason: string | null
  cheapest: ExchangeId | null
  dearest: ExchangeId | null
  /** quote currencies of the compared prices (the venues in the spread), in canonical exchange order, distinct */
  quotes: QuoteCurrency[]
  /** the spread compares prices in different quote currencies: part of it is the USDT/USDC rate */
  mixedQuotes: boolean
  /** venues whose current price was set aside as an outlier, canonical order */
  outliers: ExchangeId[]
  zScore: Stat
}

const quoteOf = (exchange: ExchangeId): QuoteCurrency => exchangeById.get(exchange)!.quote

/**
 * current: each venue's latest tradable price with its exchange time (a venue's latest row no older than
 * SPREAD_MAX_PRICE_AGE_MS at now is used); history: per-minute prices of the same sources covering the z-score window
 * (any order), so the z-score ranks the current figure against the same quantity.
 */
export function buildSpread(input: { coin: string; current: readonly PriceRow[]; history: readonly PriceRow[]; now: number }): CoinSpread {
  const { coin, now } = input
  // a last trade is known to its minute: it is current as of that minute's end (the store holds closed minutes)
  const valid = input.current.map((r) => (r.source === 'last_trade' ? { ...r, ts: r.ts + MINUTE_MS } : r)).filter((r) => usablePrice(r.price) && r.ts <= now)
  const fresh = latestPerExchange(valid, { at: now, maxAgeMs: SPREAD_MAX_PRICE_AGE_MS })
  const any = latestPerExchange(valid, { at: now })
  const found: ExchangePrice[] = EXCHANGE_IDS.map((exchange) => {
    const f = fresh.find((r) => r.exchange === exchange)
    if (f) return { exchange, price: f.price, priceSource: f.source, outlier: false, outlierReason: null, quote: quoteOf(exchange), ts: f.ts }
    return { exchange, price: null, priceSource: null, outlier: false, outlierReason: null, quote: quoteOf(exchange), ts: any.find((r) => r.exchange === exchange)?.ts ?? null }
  })
  const s = computeSpread(found)
  const prices = found.map((p) => {
    const o = s.outliers.find((x) => x.exchange === p.exchange)
    return o ? { ...p, outlier: true, outlierReason: outlierReason(o, s.median!) } : p
  })
  const quotes = [...new Set(s.exchanges.map(quoteOf))]
  const history = spreadHistory(input.history.filter((r) => usablePrice(r.price) && r.ts <= now))
  return {
    coin, ts: now, prices, spreadBps: s.spreadBps, reason: s.reason, cheapest: s.cheapest, dearest: s.dearest,
    quotes, mixedQuotes: s.spreadBps !== null && quotes.length > 1, outliers: s.outliers.map((o) => o.exchange), zScore: spreadZScore(s.spreadBps, history, now),
  }
}
