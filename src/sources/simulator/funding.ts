// Funding of the simulated perps: the premium sampled at every minute boundary, averaged over the funding interval;
// a settlement uses the mean of its interval's samples and tickers carry the same formula over the samples so far.
import { MINUTE_MS, floorTo } from '../../domain/time.js'
import type { FundingEvent } from '../../domain/events.js'
import { MODEL } from './params.js'
import { ORIGIN_TS } from './slow-path.js'
import type { SimMarket } from './markets.js'
import type { PricePath } from './price-path.js'

/** per perp market: premium samples at minute boundaries in (start, now] */
export interface FundingAcc {
  start: Float64Array
  sum: Float64Array
  n: Float64Array
  last: Float64Array
}

/** an accumulator holding, per perp, the samples of the running interval before minute m0 */
export function newFundingAcc(markets: readonly SimMarket[], path: PricePath, m0: number): FundingAcc {
  const n = markets.length
  const acc: FundingAcc = { start: new Float64Array(n), sum: new Float64Array(n), n: new Float64Array(n), last: new Float64Array(n) }
  for (const mk of markets) {
    if (!mk.isPerp) continue
    const start = floorTo(m0 - 1, mk.fundingMs)
    acc.start[mk.index] = start
    let s = 0
    let c = 0
    let last = 0
    for (let b = Math.max(start + MINUTE_MS, ORIGIN_TS); b < m0; b += MINUTE_MS) {
      last = path.premiumSample(mk, b)
      s += last
      c++
    }
    acc.sum[mk.index] = s
    acc.n[mk.index] = c
    acc.last[mk.index] = last
  }
  return acc
}

/** rate per interval = clamp(mean premium + interest), both on an 8-hour basis, scaled to the interval */
function fundingRate(mk: SimMarket, meanPremium: number): number {
  const cap = MODEL.fundingCap8h
  const r8 = Math.min(cap, Math.max(-cap, meanPremium + MODEL.fundingInterest8h))
  return Math.round(((r8 * mk.fundingHours) / 8) * 1e8) / 1e8
}

/** the predicted rate of the running interval (what a ticker carries) */
export function predictedRate(mk: SimMarket, acc: FundingAcc): number {
  const k = mk.index
  const n = acc.n[k]!
  return fundingRate(mk, n > 0 ? acc.sum[k]! / n : acc.last[k]!)
}

/** add the premium sample at boundary m; at a settlement, return the FundingEvent and restart the interval */
export function fundingBoundary(mk: SimMarket, acc: FundingAcc, m: number, sample: number): FundingEvent | null {
  const k = mk.index
  if (m <= acc.start[k]!) return null
  acc.sum[k] = acc.sum[k]! + sample
  acc.n[k] = acc.n[k]! + 1
  acc.last[k] = sample
  if (m % mk.fundingMs !== 0) return null
  const rate = fundingRate(mk, acc.sum[k]! / acc.n[k]!)
  acc.start[k] = m
  acc.sum[k] = 0
  acc.n[k] = 0
  return { type: 'funding', exchange: mk.exchange, coin: mk.coin, marketType: mk.marketType, ts: m, rate, intervalHours: mk.fundingHours }
}
