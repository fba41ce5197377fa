// Bybit v5 history payloads -> our klines and events (pure: tested against the recorded payloads). Every body is
// {retCode, retMsg, result: {category, symbol?, list, nextPageCursor?}, time}; lists come newest first.
//   /v5/market/kline: list [[startTime, open, high, low, close, volume (linear: base coin), turnover (quote)]]: no
//     taker split and no trade count
//   /v5/market/open-interest: list [{openInterest (both sides since 2026), singleOpenInterest (one side), timestamp}]
//   /v5/market/funding/history: list [{symbol, fundingRate, fundingRateTimestamp}]
//   /v5/market/account-ratio: list [{symbol, buyRatio, sellRatio, timestamp}] (connectors/positioning.ts)
import type { Kline } from '../../domain/minute-bars.js'
import type { OpenInterestEvent } from '../../domain/events.js'
import { bybitOneSidedOi } from '../connectors/bybit.js'
import { coinSize, type MarketRef } from '../connectors/mapping.js'
import { num } from '../../domain/numbers.js'

type Raw = Record<string, unknown>

/** result.list of a v5 body */
export function bybitList(body: unknown): unknown[] {
  const list = ((body as Raw | null)?.['result'] as Raw | undefined)?.['list']
  return Array.isArray(list) ? list : []
}

/** kline rows as klines, oldest first: volume in coins (a linear contract is one coin), turnover as quote volume */
export function bybitKlines(ref: MarketRef, body: unknown): Kline[] {
  const out: Kline[] = []
  for (const row of bybitList(body)) {
    if (!Array.isArray(row)) continue
    const [ts, open, high, low, close, volume, turnover] = row.slice(0, 7).map(num)
    if (ts == null || open == null || high == null || low == null || close == null || volume == null || volume < 0) continue
    const coins = coinSize(ref, volume, close)
    if (!Number.isFinite(coins)) continue
    const k: Kline = { ts, open, high, low, close, volume: coins }
    if (turnover != null && turnover >= 0) k.quoteVolume = turnover
    out.push(k)
  }
  return out.sort((a, b) => a.ts - b.ts)
}

/** open-interest rows as one-sided open interest in coins at their 5-minute stamps, oldest first */
export function bybitOiEvents(ref: MarketRef, body: unknown): OpenInterestEvent[] {
  const out: OpenInterestEvent[] = []
  for (const r of bybitList(body) as Raw[]) {
    const ts = num(r?.['timestamp'])
    const amount = bybitOneSidedOi(r as { openInterest?: string; singleOpenInterest?: string })
    if (ts === null || amount === null || amount < 0 || ref.inverse) continue
    out.push({ type: 'open_interest', exchange: ref.exchange, coin: ref.coin, marketType: 'perp', ts, openInterest: coinSize(ref, amount, 1) , source: 'venue_history' })
  }
  return out.sort((a, b) => a.ts - b.ts)
}

/** funding history rows as settlements, oldest first */
export function bybitFundingRows(body: unknown): { ts: number; rate: number }[] {
  const out: { ts: number; rate: number }[] = []
  for (const r of bybitList(body) as Raw[]) {
    const ts = num(r?.['fundingRateTimestamp'])
    const rate = num(r?.['fundingRate'])
    if (ts !== null && rate !== null) out.push({ ts, rate })
  }
  return out.sort((a, b) => a.ts - b.ts)
}

/** the instrument's funding interval in hours (instruments-info `fundingInterval`, minutes), when it states one */
export function bybitStatedIntervalHours(marketInfo: unknown): number | null {
  const minutes = num((marketInfo as Raw | null)?.['fundingInterval'])
  return minutes !== null && minutes > 0 ? minutes / 60 : null
}
