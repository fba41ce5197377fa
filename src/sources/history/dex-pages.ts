// Hyperliquid and dYdX v4 history payloads -> our klines and events (pure: tested against the recorded payloads).
//   Hyperliquid POST /info {type: candleSnapshot}: [{t (open ms), T (close ms), s, i, o, c, h, l, v (base), n (trades)}],
//     oldest first: no taker split, no quote volume
//   Hyperliquid POST /info {type: fundingHistory}: [{coin, fundingRate, premium, time}], oldest first
//   dYdX GET /v4/candles/perpetualMarkets/{ticker}: {candles: [{startedAt (ISO), ticker, resolution, low, high, open,
//     close, baseTokenVolume, usdVolume, trades, startingOpenInterest, orderbookMidPriceOpen, …}]}, newest first: no
//     taker split
//   dYdX GET /v4/historicalFunding/{ticker}: {historicalFunding: [{ticker, rate, price, effectiveAtHeight, effectiveAt}]},
//     newest first
import type { Kline } from '../../domain/minute-bars.js'
import type { OpenInterestEvent } from '../../domain/events.js'
import type { MarketRef } from '../connectors/mapping.js'
import { num } from '../../domain/numbers.js'

type Raw = Record<string, unknown>
const rowsOf = (body: unknown): Raw[] => (Array.isArray(body) ? (body as Raw[]) : [])
const listOf = (body: unknown, key: string): Raw[] => rowsOf((body as Raw | null)?.[key])
const isoMs = (v: unknown): number | null => {
  if (typeof v !== 'string') return null
  const t = Date.parse(v)
  return Number.isFinite(t) ? t : null
}

/** candleSnapshot rows as klines, oldest first: `v` in coins (Hyperliquid perps are sized in coins), `n` trades */
export function hyperliquidKlines(body: unknown): Kline[] {
  const out: Kline[] = []
  for (const r of rowsOf(body)) {
    const [ts, open, high, low, close, volume] = [r?.['t'], r?.['o'], r?.['h'], r?.['l'], r?.['c'], r?.['v']].map(num)
    if (ts == null || open == null || high == null || low == null || close == null || volume == null || volume < 0) continue
    const k: Kline = { ts, open, high, low, close, volume }
    const trades = num(r['n'])
    if (trades !== null && Number.isInteger(trades) && trades >= 0) k.trades = trades
    out.push(k)
  }
  return out.sort((a, b) => a.ts - b.ts)
}

/** fundingHistory rows as settlements, oldest first */
export function hyperliquidFundingRows(body: unknown): { ts: number; rate: number }[] {
  const out: { ts: number; rate: number }[] = []
  for (const r of rowsOf(body)) {
    const ts = num(r?.['time'])
    const rate = num(r?.['fundingRate'])
    if (ts !== null && rate !== null) out.push({ ts, rate })
  }
  return out.sort((a, b) => a.ts - b.ts)
}

/** dYdX candles as klines, oldest first: baseTokenVolume in coins, usdVolume as quote volume, trades */
export function dydxKlines(body: unknown): Kline[] {
  const out: Kline[] = []
  for (const r of listOf(body, 'candles')) {
    const ts = isoMs(r?.['startedAt'])
    const [open, high, low, close, volume, usd, trades] = [r?.['open'], r?.['high'], r?.['low'], r?.['close'], r?.['baseTokenVolume'], r?.['usdVolume'], r?.['trades']].map(num)
    if (ts == null || open == null || high == null || low == null || close == null || volume == null || volume < 0) continue
    const k: Kline = { ts, open, high, low, close, volume }
    if (usd != null && usd >= 0) k.quoteVolume = usd
    if (trades != null && Number.isInteger(trades) && trades >= 0) k.trades = trades
    out.push(k)
  }
  return out.sort((a, b) => a.ts - b.ts)
}

/**
 * dYdX candles' startingOpenInterest as open-interest samples at each candle's start, oldest first: the market's open
 * interest (one side, coins, as /v4/perpetualMarkets `openInterest`) the moment the candle opened.
 */
export function dydxOiEvents(ref: Pick<MarketRef, 'exchange' | 'coin'>, body: unknown): OpenInterestEvent[] {
  const out: OpenInterestEvent[] = []
  for (const r of listOf(body, 'candles')) {
    const ts = isoMs(r?.['startedAt'])
    const oi = num(r?.['startingOpenInterest'])
    if (ts === null || oi === null || oi < 0) continue
    out.push({ type: 'open_interest', exchange: ref.exchange, coin: ref.coin, marketType: 'perp', ts, openInterest: oi , source: 'venue_history' })
  }
  return out.sort((a, b) => a.ts - b.ts)
}

/** dYdX historical funding as settlements (the hourly rate, effectiveAt), oldest first */
export function dydxFundingRows(body: unknown): { ts: number; rate: number }[] {
  const out: { ts: number; rate: number }[] = []
  for (const r of listOf(body, 'historicalFunding')) {
    const ts = isoMs(r?.['effectiveAt'])
    const rate = num(r?.['rate'])
    if (ts !== null && rate !== null) out.push({ ts, rate })
  }
  return out.sort((a, b) => a.ts - b.ts)
}
