// Polls two CEX connectors share: CCXT's unified open interest per market, and spot tickers in one call.
import type { Exchange } from 'ccxt'
import type { OpenInterestEvent, TickerEvent } from '../../domain/events.js'
import { mergeParts, openInterestEvent, partsFromTicker, tickerEvent, type MarketRef } from './mapping.js'

/** one fetchOpenInterest per perp market (one-sided, coin units after mapping), settled by the connector's `settle` */
export async function openInterestPerMarket(ex: Exchange, refs: MarketRef[], now: () => number, settle: (calls: Promise<unknown>[]) => Promise<void>): Promise<OpenInterestEvent[]> {
  const out: OpenInterestEvent[] = []
  await settle(
    refs.map(async (ref) => {
      const e = openInterestEvent(ref, await ex.fetchOpenInterest(ref.symbol), { now: now() })
      if (e) out.push(e)
    }),
  )
  return out
}

/** spot tickers (last price) of several markets in one fetchTickers call */
export async function spotTickerEvents(ex: Exchange, spots: MarketRef[], now: number): Promise<TickerEvent[]> {
  if (spots.length === 0) return []
  const tickers = await ex.fetchTickers(spots.map((r) => r.symbol))
  return spots.flatMap((ref) => {
    const t = tickers[ref.symbol]
    return t ? [tickerEvent(ref, mergeParts(partsFromTicker(t)), now)] : []
  })
}
