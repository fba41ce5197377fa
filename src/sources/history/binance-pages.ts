// Binance's history payloads -> our bars and events (pure: tested against the recorded payloads).
//   /fapi/v1/klines, /api/v3/klines: [openTime, open, high, low, close, volume, closeTime, quoteVolume, trades,
//     takerBuyBase, takerBuyQuote, ignore], ascending; volume and takerBuyBase in coins (USDT-margined)
//   /futures/data/openInterestHist: [{symbol, sumOpenInterest (coins, one side), sumOpenInterestValue, timestamp}]
//   /fapi/v1/fundingRate: [{symbol, fundingRate, fundingTime, markPrice}], ascending
//   /futures/data/globalLongShortAccountRatio, topLongShortPositionRatio: [{symbol, longShortRatio, longAccount, shortAccount, timestamp}]
import { klineMinuteBar, type MinuteBar } from '../../domain/minute-bars.js'
import { MINUTE_MS } from '../../domain/time.js'
import type { FundingEvent, OpenInterestEvent, PositioningEvent, PositioningKind } from '../../domain/events.js'
import type { MarketRef } from '../connectors/mapping.js'
import { binanceKline } from '../connectors/klines.js'
import { binancePositioningRows } from '../connectors/positioning.js'

type Raw = Record<string, unknown>
const num = (v: unknown): number | null => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN
  return Number.isFinite(n) ? n : null
}
const rowsOf = (body: unknown): unknown[] => (Array.isArray(body) ? body : [])

/**
 * Klines as 1-minute bars (source 'venue_kline'): the taker-buy base volume (column 9) is the buy volume, the rest of
 * the volume the sell volume; quote volume and trade count as Binance gives them. No volume at price (klines have none).
 */
export function binanceKlineBars(ref: Pick<MarketRef, 'exchange' | 'coin' | 'marketType'>, body: unknown): MinuteBar[] {
  const out: MinuteBar[] = []
  for (const row of rowsOf(body)) {
    if (!Array.isArray(row)) continue
    const k = binanceKline(row)
    if (!k || k.ts % MINUTE_MS !== 0) continue
    out.push(klineMinuteBar(ref, k))
  }
  return out
}

/** openInterestHist rows as open-interest events at their 5-minute stamps: sumOpenInterest is one side, in coins */
export function binanceOiEvents(ref: Pick<MarketRef, 'exchange' | 'coin'>, body: unknown): OpenInterestEvent[] {
  const out: OpenInterestEvent[] = []
  for (const r of rowsOf(body) as Raw[]) {
    const ts = num(r?.['timestamp'])
    const oi = num(r?.['sumOpenInterest'])
    if (ts === null || oi === null || oi < 0) continue
    out.push({ type: 'open_interest', exchange: ref.exchange, coin: ref.coin, marketType: 'perp', ts, openInterest: oi, source: 'venue_history' })
  }
  return out
}

/** fundingRate rows as settled funding, each with the interval Binance states for the symbol */
export function binanceFundingEvents(ref: Pick<MarketRef, 'exchange' | 'coin'>, body: unknown, intervalHours: number): FundingEvent[] {
  const out: FundingEvent[] = []
  for (const r of rowsOf(body) as Raw[]) {
    const ts = num(r?.['fundingTime'])
    const rate = num(r?.['fundingRate'])
    if (ts === null || rate === null) continue
    out.push({ type: 'funding', exchange: ref.exchange, coin: ref.coin, marketType: 'perp', ts, rate, intervalHours, source: 'venue_history' })
  }
  return out
}

/** a long/short ratio endpoint's rows, every one (the live poll keeps only the newest) */
export function binancePositioningEvents(ref: MarketRef, kind: PositioningKind, body: unknown): PositioningEvent[] {
  return binancePositioningRows(ref, kind, body).map((e) => ({ ...e, source: 'venue_history' as const }))
}

/** fundingInfo rows: symbol -> fundingIntervalHours (the symbols Binance lists; every other one settles every 8 h) */
export function binanceFundingInfo(body: unknown): Map<string, number> {
  const out = new Map<string, number>()
  for (const r of rowsOf(body) as Raw[]) {
    const h = num(r?.['fundingIntervalHours'])
    if (typeof r?.['symbol'] === 'string' && h !== null && h > 0) out.set(r['symbol'], h)
  }
  return out
}
