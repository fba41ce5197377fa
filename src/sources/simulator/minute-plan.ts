// What happens in one market-minute, decided once for history and live alike from hash(seed, market, minute):
// the mids at the minute's boundaries (the price path), the trade count, the taker-buy probability and the size of
// a typical trade. History turns a plan into a minute aggregate, live into individual trades, so both see the same
// path, the same number of trades and the same flow.
import { MINUTE_MS } from '../../domain/time.js'
import { Rng, hash2, vnoise } from './rng.js'
import { MODEL, REGIME_ACTIVITY } from './params.js'
import { SIZE_MEAN } from './trade-size.js'
import type { SimMarket } from './markets.js'
import type { CoinHour, PricePath } from './price-path.js'

export interface MinutePlan {
  /** minute start, Unix ms */
  m: number
  /** trades in the minute */
  n: number
  /** probability that a trade's taker buys */
  pb: number
  /** mids at the minute's start and end, and the log return between them */
  m0: number
  m1: number
  lr: number
  /** volatility of the minute's log path */
  sig: number
  /** half spread of the minute (wider in the stressed regime) */
  hs: number
  /** coin size of a trade of weight 1 (trade-size.ts) */
  unit: number
}

export const newPlan = (): MinutePlan => ({ m: 0, n: 0, pb: 0.5, m0: 0, m1: 0, lr: 0, sig: 0, hs: 0, unit: 0 })

/** the expected activity of minute i (its trades over the market's mean, before the normalisation), z its return / σ */
export function minuteActivity(ch: CoinHour, mk: SimMarket, m: number, i: number, z: number): number {
  const az = Math.abs(z)
  let act = ch.season * REGIME_ACTIVITY[ch.regime]! * (0.55 + 0.45 * (az < 6 ? az : 6)) * Math.exp(0.35 * vnoise(mk.actKey, m, 30 * MINUTE_MS) - 0.06)
  if (i === ch.cascadeMinute) act *= 4 + 40 * ch.cascadeF
  return act
}

/** the taker-buy probability of a minute whose return is z σ, before its ±0.04 noise */
export const meanTakerBuy = (z: number): number => 0.5 + 0.3 * Math.tanh(0.9 * z)

/** the taker-buy probability in a liquidation cascade's minute: sells into a drop, buys into a spike */
export const cascadeTakerBuy = (ch: CoinHour): number => (ch.cascadeJump < 0 ? 0.12 : 0.88)

/**
 * Fill `plan` for market mk and minute m. Activity = time of day × regime × (0.55 + 0.45·|minute return / σ|) × a slow
 * random factor (× the cascade burst), normalized to mean 1; trades ~ Poisson(trades per minute × activity);
 * taker buys with probability 0.5 + 0.3·tanh(0.9·return/σ) ± 0.04 (≈ 0.12 / 0.88 in a liquidation cascade).
 */
export function planMinute(path: PricePath, mk: SimMarket, m: number, rng: Rng, plan: MinutePlan): MinutePlan {
  const i = path.prepare(m, mk)
  const ch = path.hours[mk.coinIndex]!
  rng.reseed(hash2(mk.planKey, m / MINUTE_MS))
  const m0 = ch.fair[i]! * mk.rel[i]!
  const m1 = ch.fair[i + 1]! * mk.rel[i + 1]!
  const lr = Math.log(m1 / m0)
  const sig = ch.sigmaMin
  const z = lr / sig
  const act = minuteActivity(ch, mk, m, i, z)
  let pb = meanTakerBuy(z) + 0.08 * (rng.next() - 0.5)
  if (i === ch.cascadeMinute) pb = cascadeTakerBuy(ch)
  plan.m = m
  plan.n = rng.poisson((mk.tradesPerMin * act) / MODEL.activityMean)
  plan.pb = pb
  plan.m0 = m0
  plan.m1 = m1
  plan.lr = lr
  plan.sig = sig
  plan.hs = mk.halfSpread * (ch.regime === 2 ? 1.5 : 1)
  plan.unit = mk.notionalPerMin / (mk.tradesPerMin * m0 * SIZE_MEAN)
  return plan
}
