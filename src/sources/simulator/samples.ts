// The sampled state of a simulated market: tickers (mark, index, last price, predicted funding) and open interest
// (the coin's total split over venues by a slowly drifting share), shared by history and live.
import { HOUR_MS, MINUTE_MS, floorTo } from '../../domain/time.js'
import type { OpenInterestEvent, TickerEvent } from '../../domain/events.js'
import { vnoise } from './rng.js'
import { predictedRate, type FundingAcc } from './funding.js'
import type { SimMarket } from './markets.js'
import { publishesMark } from '../../domain/venue-prices.js'

export const roundTo = (x: number, inv: number) => Math.round(x * inv) / inv

export function ticker(mk: SimMarket, acc: FundingAcc, ts: number, mid: number, index: number, last: number): TickerEvent {
  if (!mk.isPerp)
    return {
      type: 'ticker',
      exchange: mk.exchange,
      coin: mk.coin,
      marketType: mk.marketType,
      ts,
      markPrice: null,
      indexPrice: null,
      lastPrice: last,
      fundingRate: null,
      fundingIntervalHours: null,
      nextFundingTime: null,
    }
  return {
    type: 'ticker',
    exchange: mk.exchange,
    coin: mk.coin,
    marketType: mk.marketType,
    ts,
    // dYdX publishes no mark apart from its oracle (the index here), as its connector reads it
    markPrice: roundTo(publishesMark(mk.exchange) ? mid : index, mk.tickInv),
    indexPrice: roundTo(index, mk.tickInv),
    lastPrice: last,
    fundingRate: predictedRate(mk, acc),
    fundingIntervalHours: mk.fundingHours,
    nextFundingTime: floorTo(ts, mk.fundingMs) + mk.fundingMs,
  }
}

/** the venue's one-sided open interest at ts in coin units, unrounded: its drifting share of the coin's total */
export function venueOpenInterest(mk: SimMarket, ts: number, logOi: number): number {
  const share = mk.oiShare * Math.exp(0.1 * vnoise(mk.oiKey, ts, 3 * 24 * HOUR_MS) + 0.002 * vnoise(mk.oiKey ^ 1, ts, 10 * MINUTE_MS))
  return share * Math.exp(logOi)
}

/** one-sided open interest in coin units: the venue's share (drifting ±10 % over days) of the coin's total */
export function openInterest(mk: SimMarket, ts: number, logOi: number): OpenInterestEvent {
  const oi = Math.max(1 / mk.lotInv, roundTo(venueOpenInterest(mk, ts, logOi), mk.lotInv))
  return { type: 'open_interest', exchange: mk.exchange, coin: mk.coin, marketType: mk.marketType, ts, openInterest: oi }
}
