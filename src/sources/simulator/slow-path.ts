// The slow (hourly) layer of the simulator: everything with long memory, walked hour by hour from a fixed origin
// (ORIGIN_TS) so that the state at any hour is a function of (seed, coin, hour) only — not of where a caller starts.
//   - a market-wide volatility regime (Markov chain: calm / normal / stressed) and an hourly market shock;
//   - per coin: the log fair price at each hour start (market factor + coin factor, Student-t shocks, regime vol,
//     trends vs ranges, weak reversion to the reference price), the crowd's net positioning ("bias"), open interest
//     (log, coin units), the slow part of the perp premium, and liquidation cascades (a jump at one minute of the
//     hour with an open-interest drop).
// Walking ~35k hours × 12 coins from the origin takes a few tens of milliseconds; results are cached (typed arrays).

import { HOUR_MS } from '../../domain/time.js'
import { Rng, hash2, hashString } from './rng.js'
import { MODEL, REGIME_TRANSITIONS, REGIME_VOL, type CoinParams } from './params.js'

/** hour 0 of every path: 2022-01-01T00:00Z. Simulated time must not be earlier. */
export const ORIGIN_TS = Date.UTC(2022, 0, 1)

export function hourIndex(ts: number): number {
  return Math.floor((ts - ORIGIN_TS) / HOUR_MS)
}

const MARKET_SALT = 0x6d61726b // 'mark'

function grow<T extends Float64Array | Float32Array | Uint8Array | Int8Array>(a: T, n: number): T {
  if (a.length >= n) return a
  let len = a.length || 1024
  while (len < n) len *= 2
  const b = new (a.constructor as new (n: number) => T)(len)
  b.set(a)
  return b
}

/** market-wide regime and hourly market shock (unit variance, fat-tailed) */
export class MarketPath {
  regime = new Uint8Array(0)
  shock = new Float64Array(0)
  /** hours computed: regime/shock valid for [0, length) */
  length = 0
  private readonly rng: Rng
  private state = 1

  constructor(seed: number) {
    this.rng = new Rng(hash2(seed, MARKET_SALT))
  }

  ensure(hours: number): void {
    if (hours <= this.length) return
    this.regime = grow(this.regime, hours)
    this.shock = grow(this.shock, hours)
    const rng = this.rng
    for (let h = this.length; h < hours; h++) {
      this.regime[h] = this.state
      this.shock[h] = rng.t4()
      const row = REGIME_TRANSITIONS[this.state]!
      const u = rng.next()
      this.state = u < row[0] ? 0 : u < row[0] + row[1] ? 1 : 2
    }
    this.length = hours
  }
}

export class CoinPath {
  readonly params: CoinParams
  readonly key: number
  readonly logRef: number
  readonly logOiBase: number
  /** values at hour starts, index = hour (valid for [0, length]) */
  x = new Float64Array(0)
  oi = new Float64Array(0)
  bias = new Float32Array(0)
  premium = new Float32Array(0)
  /** 1 while the coin trends during the hour */
  trending = new Uint8Array(0)
  /** per hour [0, length): the minute of a liquidation cascade (-1 none), its price jump (log) and OI drop (log) */
  cascadeMinute = new Int8Array(0)
  cascadeJump = new Float32Array(0)
  cascadeOiDrop = new Float32Array(0)
  /** hours walked: the arrays above hold hour starts 0..length */
  length = 0

  private readonly rng: Rng
  private trendLeft = 0
  private trendDrift = 0
  private center: number

  constructor(seed: number, params: CoinParams) {
    this.params = params
    this.key = hash2(seed, hashString(params.coin))
    this.rng = new Rng(this.key)
    this.logRef = Math.log(params.refPrice)
    this.logOiBase = Math.log(params.openInterestUsd / params.refPrice)
    this.center = this.logRef
    this.x = grow(this.x, 1)
    this.oi = grow(this.oi, 1)
    this.bias = grow(this.bias, 1)
    this.premium = grow(this.premium, 1)
    this.x[0] = this.logRef
    this.oi[0] = this.logOiBase
    this.bias[0] = 0
    this.premium[0] = MODEL.premiumMean
  }

  /** walk until hour starts 0..hours are known (and hourly data for [0, hours)) */
  ensure(hours: number, market: MarketPath): void {
    if (hours <= this.length) return
    market.ensure(hours)
    const n = hours + 1
    this.x = grow(this.x, n)
    this.oi = grow(this.oi, n)
    this.bias = grow(this.bias, n)
    this.premium = grow(this.premium, n)
    this.trending = grow(this.trending, n)
    this.cascadeMinute = grow(this.cascadeMinute, n)
    this.cascadeJump = grow(this.cascadeJump, n)
    this.cascadeOiDrop = grow(this.cascadeOiDrop, n)
    const p = this.params
    const rng = this.rng
    const sv = p.hourVol
    const idio = Math.sqrt(1 - p.beta * p.beta)
    const kRef = Math.LN2 / MODEL.refHalfLifeHours
    const kPrem = 1 / 6
    const premNoise = MODEL.premiumSlowSd * Math.sqrt(2 * kPrem)
    for (let h = this.length; h < hours; h++) {
      const x = this.x[h]!
      const b = this.bias[h]!
      const vm = REGIME_VOL[market.regime[h]!]!
      // trend / range state
      let drift: number
      if (this.trendLeft > 0) {
        drift = this.trendDrift
        this.trending[h] = 1
        if (--this.trendLeft === 0) this.center = x
      } else {
        this.trending[h] = 0
        drift = -MODEL.rangeReversionPerHour * (x - this.center)
        if (rng.next() < MODEL.trendStartPerHour) {
          // trends lean (weakly) back toward the reference level, so paths stay plausible
          const up = rng.next() < 0.5 - 0.5 * Math.tanh(2 * (x - this.logRef))
          this.trendDrift = (up ? 1 : -1) * sv * (MODEL.trendDriftMin + (MODEL.trendDriftMax - MODEL.trendDriftMin) * rng.next())
          this.trendLeft = Math.max(6, Math.round(MODEL.trendMeanHours * rng.exp()))
        }
      }
      drift -= kRef * (x - this.logRef)
      let r = drift + sv * vm * (p.beta * market.shock[h]! + idio * rng.t4())
      // liquidation cascade: a sharp move against the crowd's positioning
      const against = b > 0 ? -r : r
      let jump = 0
      let oiDrop = 0
      let minute = -1
      const cascadeDraw = rng.next()
      if (Math.abs(b) > MODEL.cascadeMinBias && against > MODEL.cascadeThreshold * sv) {
        const severity = against / sv - MODEL.cascadeThreshold
        const f = Math.min(0.35, (0.04 + 0.04 * severity) * (0.5 + Math.abs(b)))
        jump = (b > 0 ? -1 : 1) * sv * (0.6 + 4 * f)
        oiDrop = Math.log(1 - f)
        minute = Math.floor(cascadeDraw * 60)
      }
      this.cascadeMinute[h] = minute
      this.cascadeJump[h] = jump
      this.cascadeOiDrop[h] = oiDrop
      r += jump
      this.x[h + 1] = x + r
      // the crowd chases momentum; a cascade flushes it
      let nb = MODEL.biasDecay * b + MODEL.biasGain * Math.tanh(r / sv) + 0.02 * rng.normal()
      if (minute >= 0) nb *= 0.3
      this.bias[h + 1] = nb > 1 ? 1 : nb < -1 ? -1 : nb
      // open interest: leverage builds while the crowd is positioned and while trending, reverts to its base
      const l = this.oi[h]!
      this.oi[h + 1] =
        l -
        MODEL.oiReversionPerHour * (l - this.logOiBase) +
        MODEL.oiBiasGrowthPerHour * Math.abs(b) +
        MODEL.oiTrendGrowthPerHour * this.trending[h]! -
        0.5 * (MODEL.oiBiasGrowthPerHour * 0.2 + MODEL.oiTrendGrowthPerHour * 0.25) +
        MODEL.oiNoisePerHour * rng.normal() +
        oiDrop
      // slow premium follows the crowd's positioning
      const pr = this.premium[h]!
      const target = MODEL.premiumMean + MODEL.premiumPerBias * b
      this.premium[h + 1] = pr + kPrem * (target - pr) + premNoise * rng.normal()
    }
    this.length = hours
  }
}

/**
 * Walks shared by every simulator of the process with the same seed (and coin): the live feed and the backfill's
 * history run side by side and read the same hours, so the second one reuses the first one's walk instead of walking
 * ~40k hours from the origin again. Held weakly: a walk no simulator uses any more is collected.
 */
const walks = new Map<string, WeakRef<MarketPath | CoinPath>>()

function shared<T extends MarketPath | CoinPath>(key: string, make: () => T): T {
  const held = walks.get(key)?.deref() as T | undefined
  if (held) return held
  const walk = make()
  walks.set(key, new WeakRef(walk))
  return walk
}

export const marketPath = (seed: number): MarketPath => shared(`market|${seed}`, () => new MarketPath(seed))

export const coinPath = (seed: number, params: CoinParams): CoinPath => shared(`coin|${seed}|${params.coin}`, () => new CoinPath(seed, params))
