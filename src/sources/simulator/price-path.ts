// The price path within the hour, shared by history and live: the fair (index) price of each coin at the hour's
// 61 minute boundaries (a Brownian bridge between the slow layer's hourly anchors, driven by a market minute factor
// and the coin's own shocks), the coin premium and open interest at the same boundaries, and each market's mid and
// index relative to fair (venue basis and premium as value noise of time). One hour is cached at a time.
import { HOUR_MS, MINUTE_MS } from '../../domain/time.js'
import { Rng, hash2, vnoise } from './rng.js'
import { MODEL, REGIME_VOL, coinParams } from './params.js'
import { CoinPath, MarketPath, ORIGIN_TS, coinPath, hourIndex, marketPath } from './slow-path.js'
import type { SimMarket } from './markets.js'

export interface CoinHour {
  h: number
  start: number
  /** fair (index) price at the 61 minute boundaries of the hour */
  fair: Float64Array
  /** coin premium (perp mid / fair - 1, before venue basis) at the boundaries */
  prem: Float64Array
  /** log open interest (coin units, all venues) at the boundaries */
  oi: Float64Array
  sigmaMin: number
  regime: number
  season: number
  cascadeMinute: number
  cascadeJump: number
  cascadeF: number
}

const SQRT_60 = Math.sqrt(60)

export class PricePath {
  readonly market: MarketPath
  readonly paths: CoinPath[]
  readonly hours: CoinHour[]
  /** the hour the CoinHour caches hold */
  hourComputed = -1
  private readonly premKeys: [number, number][]
  private readonly rng = new Rng()
  private readonly minuteFactor = new Float64Array(60)

  constructor(
    private readonly seed: number,
    coins: readonly string[],
  ) {
    this.market = marketPath(seed)
    this.paths = coins.map((c) => coinPath(seed, coinParams(c)))
    this.premKeys = this.paths.map((p) => [hash2(p.key, 0x70726531), hash2(p.key, 0x70726532)])
    this.hours = coins.map(() => ({
      h: -1,
      start: 0,
      fair: new Float64Array(61),
      prem: new Float64Array(61),
      oi: new Float64Array(61),
      sigmaMin: 0,
      regime: 1,
      season: 1,
      cascadeMinute: -1,
      cascadeJump: 0,
      cascadeF: 0,
    }))
  }

  /** walk the slow layer so every hour up to the one containing ts (and its end) is known */
  ensureSlow(ts: number): void {
    const hours = hourIndex(ts) + 2
    this.market.ensure(hours)
    for (const p of this.paths) p.ensure(hours, this.market)
  }

  /** make the caches hold the hour of minute m (its market's too); returns the minute's index in the hour */
  prepare(m: number, mk?: SimMarket): number {
    const h = hourIndex(m)
    if (h !== this.hourComputed) this.computeHour(h)
    if (mk && mk.relHour !== h) this.computeMarketHour(mk)
    return (m - ORIGIN_TS - h * HOUR_MS) / MINUTE_MS
  }

  /** coin premium (perp mid / fair - 1 before venue basis) at time t */
  coinPremium(ci: number, t: number): number {
    const p = this.paths[ci]!
    const h = hourIndex(t)
    const f = (t - ORIGIN_TS - h * HOUR_MS) / HOUR_MS
    const a = p.premium[h]!
    const b = p.premium[h + 1]!
    const k = this.premKeys[ci]!
    return a + (b - a) * f + MODEL.premiumFastSd * (0.8 * vnoise(k[0], t, 20 * MINUTE_MS) + 0.5 * vnoise(k[1], t, 3 * MINUTE_MS))
  }

  /** market mid / fair at time t given the coin premium */
  relMid(mk: SimMarket, coinPrem: number, t: number): number {
    const basis = mk.basisOffset + mk.basisSd * (0.8 * vnoise(mk.basisKey, t, 15 * MINUTE_MS) + 0.45 * vnoise(mk.basisKey2, t, 2 * MINUTE_MS))
    return 1 + (mk.isPerp ? coinPrem : 0) + basis
  }

  /** venue index / fair at time t */
  relIndex(mk: SimMarket, t: number): number {
    return mk.isPerp ? 1 + 0.3e-4 * vnoise(mk.idxKey, t, 10 * MINUTE_MS) : 1
  }

  /** perp premium sample (mark / index - 1) at a minute boundary, computed without the hour caches */
  premiumSample(mk: SimMarket, b: number): number {
    return this.relMid(mk, this.coinPremium(mk.coinIndex, b), b) / this.relIndex(mk, b) - 1
  }

  private computeHour(h: number): void {
    const start = ORIGIN_TS + h * HOUR_MS
    const rng = this.rng
    rng.reseed(hash2(this.seed ^ 0x6d696e66, h))
    const mf = this.minuteFactor
    for (let i = 0; i < 60; i++) mf[i] = rng.t4()
    const regime = this.market.regime[h]!
    const hod = (((start / HOUR_MS) % 24) + 24) % 24
    const season = 1 + 0.35 * Math.cos((2 * Math.PI * (hod - 15)) / 24)
    for (let ci = 0; ci < this.paths.length; ci++) {
      const p = this.paths[ci]!
      const ch = this.hours[ci]!
      const cp = p.params
      const sig = (cp.hourVol * REGIME_VOL[regime]!) / SQRT_60
      const idio = Math.sqrt(1 - cp.beta * cp.beta)
      const k = p.cascadeMinute[h]!
      const jump = p.cascadeJump[h]!
      const target = p.x[h + 1]! - jump
      let y = p.x[h]!
      rng.reseed(hash2(p.key, h))
      ch.fair[0] = Math.exp(y)
      for (let i = 0; i < 60; i++) {
        const rem = 60 - i
        const e = cp.beta * mf[i]! + idio * rng.t4()
        y += (target - y) / rem + sig * Math.sqrt((rem - 1) / rem) * e
        ch.fair[i + 1] = Math.exp(k >= 0 && i >= k ? y + jump : y)
      }
      ch.fair[60] = Math.exp(p.x[h + 1]!)
      const oi0 = p.oi[h]!
      const drop = p.cascadeOiDrop[h]!
      const slope = (p.oi[h + 1]! - drop - oi0) / 60
      for (let i = 0; i <= 60; i++) {
        ch.prem[i] = this.coinPremium(ci, start + i * MINUTE_MS)
        ch.oi[i] = oi0 + slope * i + (k >= 0 && i > k ? drop : 0)
      }
      ch.h = h
      ch.start = start
      ch.sigmaMin = sig
      ch.regime = regime
      ch.season = season
      ch.cascadeMinute = k
      ch.cascadeJump = jump
      ch.cascadeF = k >= 0 ? 1 - Math.exp(drop) : 0
    }
    this.hourComputed = h
  }

  private computeMarketHour(mk: SimMarket): void {
    const ch = this.hours[mk.coinIndex]!
    for (let i = 0; i <= 60; i++) {
      const t = ch.start + i * MINUTE_MS
      mk.rel[i] = this.relMid(mk, ch.prem[i]!, t)
      mk.idx[i] = this.relIndex(mk, t)
    }
    mk.relHour = ch.h
  }
}
