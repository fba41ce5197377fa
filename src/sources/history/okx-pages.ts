// OKX v5 history payloads -> our klines and events (pure: tested against the recorded payloads). Every body is
// {code, msg, data}; rows come newest first.
//   /api/v5/market/history-candles: data [[ts, o, h, l, c, vol, volCcy, volCcyQuote, confirm]]: vol is contracts for a
//     SWAP (base coins for SPOT), volCcy base coins for a SWAP (quote for SPOT), volCcyQuote the quote volume; no taker
//     split, no trade count; confirm "0" for the candle still open
//   /api/v5/rubik/stat/contracts/open-interest-history: data [[ts, oi (contracts), oiCcy (coins), oiUsd]]
//   /api/v5/public/funding-rate-history: data [{instId, fundingRate (predicted), realizedRate (settled), fundingTime, …}]
//   /api/v5/rubik/stat/contracts/long-short-account-ratio-contract: data [[ts, ratio]] (connectors/positioning.ts)
import type { Kline } from '../../domain/minute-bars.js'
import type { OpenInterestEvent } from '../../domain/events.js'
import type { MarketRef } from '../connectors/mapping.js'
import { num } from '../../domain/numbers.js'

type Raw = Record<string, unknown>

const dataOf = (body: unknown): unknown[] => {
  const data = (body as Raw | null)?.['data']
  return Array.isArray(data) ? data : []
}

/** candle rows as klines, oldest first (the open candle left out): volume in base coins, volCcyQuote as quote volume */
export function okxKlines(ref: Pick<MarketRef, 'marketType' | 'contractSize'>, body: unknown): Kline[] {
  const out: Kline[] = []
  for (const row of dataOf(body)) {
    if (!Array.isArray(row) || row[8] === '0') continue
    const [ts, open, high, low, close, vol, volCcy, volCcyQuote] = row.slice(0, 8).map(num)
    if (ts == null || open == null || high == null || low == null || close == null) continue
    const volume = ref.marketType === 'spot' ? vol : (volCcy ?? (vol == null ? null : vol * ref.contractSize))
    if (volume == null || volume < 0) continue
    const k: Kline = { ts, open, high, low, close, volume }
    if (volCcyQuote != null && volCcyQuote >= 0) k.quoteVolume = volCcyQuote
    out.push(k)
  }
  return out.sort((a, b) => a.ts - b.ts)
}

/** open-interest history rows as open interest in coins (OKX counts one side) at their stamps, oldest first */
export function okxOiEvents(ref: MarketRef, body: unknown): OpenInterestEvent[] {
  const out: OpenInterestEvent[] = []
  for (const row of dataOf(body)) {
    if (!Array.isArray(row)) continue
    const ts = num(row[0])
    const contracts = num(row[1])
    const coins = num(row[2]) ?? (contracts === null ? null : contracts * ref.contractSize)
    if (ts === null || coins === null || coins < 0) continue
    out.push({ type: 'open_interest', exchange: ref.exchange, coin: ref.coin, marketType: 'perp', ts, openInterest: coins , source: 'venue_history' })
  }
  return out.sort((a, b) => a.ts - b.ts)
}

/** funding history rows as settlements at their realized (actual) rate, oldest first; `fundingRate` is the prediction */
export function okxFundingRows(body: unknown): { ts: number; rate: number }[] {
  const out: { ts: number; rate: number }[] = []
  for (const r of dataOf(body) as Raw[]) {
    const ts = num(r?.['fundingTime'])
    const rate = num(r?.['realizedRate'])
    if (ts !== null && rate !== null) out.push({ ts, rate })
  }
  return out.sort((a, b) => a.ts - b.ts)
}
