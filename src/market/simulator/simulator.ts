// MarketSimulator: the embedded default data source. Deterministic from a seed; emits exactly the normalized events
// of events.ts (trades, book snapshots, tickers, open interest, funding) for the default coins on every market of
// exchanges.ts, so nothing downstream knows the difference from a live connector. docs/simulator.md has the model.
//
// Determinism: every value is a function of (seed, market, time):
//   - the slow hourly layer (regimes, fair-price anchors, trends, crowd bias, open interest, cascades, premium) is
//     walked from a fixed origin (slow-path.ts), independent of what a caller asks for;
//   - within an hour the fair price is a Brownian bridge between the hourly anchors, driven by a PRNG seeded from
//     hash(seed, coin, hour) (plus a market minute factor seeded from hash(seed, hour));
//   - short-memory noise (venue basis, fast premium, index noise, activity, book asymmetry) is hash-based value noise
//     of time;
//   - each market-minute's trades come from a PRNG seeded from hash(seed, market, minute).
// So the events of a minute do not depend on how a range is chunked, nor on the start of the range.

import type {
  BookLevel,
  BookSnapshotEvent,
  EventSink,
  ExchangeId,
  FundingEvent,
  MarketType,
  OpenInterestEvent,
  TickerEvent,
  TradeEvent,
} from '../events.js'
import { EXCHANGES } from '../exchanges.js'
import { DEFAULT_COINS } from '../coins.js'
import { HOUR_MS, MINUTE_MS, floorTo, type MarketKey } from '../bars.js'
import { Rng, hash2, hashString, seedToU32, vnoise, gaussHash } from './rng.js'
import { COIN_PARAMS, MODEL, REGIME_ACTIVITY, REGIME_VOL, VENUE_PARAMS, coinParams, tickInverse, type VenueParams } from './params.js'
import { CoinPath, MarketPath, ORIGIN_TS, hourIndex } from './slow-path.js'

export { ORIGIN_TS } from './slow-path.js'

export interface SimulatorOptions {
  /** the whole simulated world is a function of the seed (and time) */
  seed: number | string
  /** coins to simulate, default DEFAULT_COINS; unknown coins get hash-derived small-alt parameters */
  coins?: readonly string[]
  /** where live() starts when neither live({ fromTs }) nor simulateRange() gave a start; default now() at live() */
  startTs?: number
  /** live timer period, ms (default 250) */
  tickMs?: number
  /** mean trades per market-minute in history (default 6); sizes scale so volume in USD is unchanged */
  tradesPerMinute?: number
  /** live mode trades this many times more often, with proportionally smaller sizes (default 4) */
  liveTradeMultiplier?: number
  /** a book snapshot per market every this many minutes in history, at minute starts (default 60; 0 = none) */
  historyBookEveryMinutes?: number
  /** price levels per book side (default 100) */
  bookLevels?: number
  /** live sampling intervals, ms: ticker (default 1000), book (1000), open interest (5000) */
  liveTickerMs?: number
  liveBookMs?: number
  liveOpenInterestMs?: number
}

export interface LiveOptions {
  /** the clock (default Date.now) */
  now?: () => number
  /** first ts to emit; default: where the last simulateRange() ended, else options.startTs, else now() */
  fromTs?: number
  /** don't start a timer; the caller calls pump(now) itself (tests, replays) */
  manual?: boolean
}

export interface RangeResult {
  /** the minutes generated: [fromTs, toTs) aligned up to whole minutes */
  fromTs: number
  toTs: number
  events: number
  trades: number
}

interface SimMarket extends MarketKey {
  index: number
  coinIndex: number
  isPerp: boolean
  venue: VenueParams
  fundingHours: number
  fundingMs: number
  tickInv: number
  lotInv: number
  halfSpread: number
  baseTrades: number
  notionalPerMin: number
  oiShare: number
  basisSd: number
  basisOffset: number
  tradeKey: number
  liveTradeKey: number
  bookKey: number
  basisKey: number
  basisKey2: number
  idxKey: number
  actKey: number
  asymKey: number
  oiKey: number
  /** per hour of the current CoinHour: mid / fair and index / fair at the 61 minute boundaries */
  rel: Float64Array
  idx: Float64Array
  relHour: number
}

interface CoinHour {
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

/** funding accumulator per perp market: premium samples at minute boundaries in (start, now] */
interface FundingAcc {
  start: Float64Array
  sum: Float64Array
  n: Float64Array
  last: Float64Array
}

const SIZE_MEAN = 0.92 + 0.08 * 5.75
const BOOK_DEPTH_RANGE = 0.05
const STALE_GRID_MS = 5000
const SQRT_60 = Math.sqrt(60)

// trade-count weights: notional^0.3 normalized to mean 1 over the default universe (a fixed reference, so a coin's
// trades do not depend on which other coins are simulated)
const marketNotionalPerMin = (coin: string, ex: ExchangeId, mt: MarketType): number => {
  const p = coinParams(coin)
  const v = VENUE_PARAMS[ex]
  return mt === 'perp' ? (p.perpVolumeUsd * v.perpVolumeShare) / 1440 : (p.spotVolumeUsd * v.spotVolumeShare) / 1440
}
const TRADE_WEIGHT_NORM = (() => {
  let s = 0
  let n = 0
  for (const coin of DEFAULT_COINS)
    for (const e of EXCHANGES)
      for (const mt of e.marketTypes) {
        s += marketNotionalPerMin(coin, e.id, mt) ** 0.3
        n++
      }
  return s / n
})()
const BTC_NOTIONAL = marketNotionalPerMin('BTC', 'binance', 'perp')

const round = (x: number, inv: number) => Math.round(x * inv) / inv

export class MarketSimulator {
  readonly seed: number
  readonly coins: readonly string[]
  readonly markets: readonly MarketKey[]
  private readonly opts: Required<Omit<SimulatorOptions, 'seed' | 'coins' | 'startTs'>> & { startTs: number | undefined }
  private readonly mkts: SimMarket[]
  private readonly market: MarketPath
  private readonly paths: CoinPath[]
  private readonly hours: CoinHour[]
  private readonly premKeys: [number, number][]
  private readonly rng = new Rng()
  private readonly bookRng = new Rng()
  private readonly minuteFactor = new Float64Array(60)
  private hourComputed = -1
  private times = new Float64Array(64)
  private readonly tradeBuf: TradeEvent[] = []
  private readonly midBuf: number[] = []
  private historyEnd: number | undefined
  private liveState: LiveState | null = null

  constructor(options: SimulatorOptions) {
    this.seed = seedToU32(options.seed)
    const coins = [...(options.coins ?? DEFAULT_COINS)]
    if (coins.length === 0) throw new RangeError('coins must not be empty')
    if (new Set(coins).size !== coins.length) throw new RangeError('coins must be unique')
    this.coins = coins
    this.opts = {
      startTs: options.startTs,
      tickMs: options.tickMs ?? 250,
      tradesPerMinute: options.tradesPerMinute ?? 6,
      liveTradeMultiplier: options.liveTradeMultiplier ?? 4,
      historyBookEveryMinutes: options.historyBookEveryMinutes ?? 60,
      bookLevels: options.bookLevels ?? 100,
      liveTickerMs: options.liveTickerMs ?? 1000,
      liveBookMs: options.liveBookMs ?? 1000,
      liveOpenInterestMs: options.liveOpenInterestMs ?? 5000,
    }
    const o = this.opts
    if (!(o.tradesPerMinute > 0) || !(o.liveTradeMultiplier > 0)) throw new RangeError('trade rates must be > 0')
    if (!(o.bookLevels >= 2) || !(o.historyBookEveryMinutes >= 0)) throw new RangeError('bad book options')
    if (!(o.tickMs > 0 && o.liveTickerMs > 0 && o.liveBookMs > 0 && o.liveOpenInterestMs > 0)) throw new RangeError('bad live intervals')

    this.market = new MarketPath(this.seed)
    this.paths = coins.map((c) => new CoinPath(this.seed, coinParams(c)))
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

    const mkts: SimMarket[] = []
    coins.forEach((coin, coinIndex) => {
      const cp = coinParams(coin)
      for (const e of EXCHANGES) {
        for (const marketType of e.marketTypes) {
          const venue = VENUE_PARAMS[e.id]
          const isPerp = marketType === 'perp'
          const key = hash2(this.seed, hashString(`${e.id}:${coin}:${marketType}`))
          const notional = marketNotionalPerMin(coin, e.id, marketType)
          const hs =
            Math.min(8e-4, MODEL.minHalfSpreadBps * 1e-4 * venue.spreadMult * Math.sqrt(BTC_NOTIONAL / notional)) *
            (isPerp ? 1 : 1.3)
          const tickInv = tickInverse(cp.refPrice)
          const basisSd = venue.basisSd * (isPerp ? 1 : 0.7)
          mkts.push({
            exchange: e.id,
            coin,
            marketType,
            index: mkts.length,
            coinIndex,
            isPerp,
            venue,
            fundingHours: e.fundingIntervalHours,
            fundingMs: e.fundingIntervalHours * HOUR_MS,
            tickInv,
            lotInv: 10 ** Math.max(0, Math.ceil(Math.log10(cp.refPrice)) - 2),
            halfSpread: Math.max(hs, 0.5 / (tickInv * cp.refPrice)),
            baseTrades: o.tradesPerMinute * (0.25 + (0.75 * notional ** 0.3) / TRADE_WEIGHT_NORM),
            notionalPerMin: notional,
            oiShare: venue.oiShare,
            basisSd,
            basisOffset: 0.5 * basisSd * gaussHash(key, 7),
            tradeKey: hash2(key, 1),
            liveTradeKey: hash2(key, 2),
            bookKey: hash2(key, 3),
            basisKey: hash2(key, 4),
            basisKey2: hash2(key, 5),
            idxKey: hash2(key, 6),
            actKey: hash2(key, 8),
            asymKey: hash2(key, 9),
            oiKey: hash2(key, 10),
            rel: new Float64Array(61),
            idx: new Float64Array(61),
            relHour: -1,
          })
        }
      }
    })
    this.mkts = mkts
    this.markets = mkts.map(({ exchange, coin, marketType }) => ({ exchange, coin, marketType }))
  }

  // ---- history --------------------------------------------------------------------------------------------------

  /**
   * Emit the events of every minute whose start is in [fromTs, toTs) (both rounded up to whole minutes), in minute
   * order; within a minute market by market, each market's events in ts order:
   *   funding settlement (perps, at settlement minutes, ts = minute start), book snapshot (every
   *   historyBookEveryMinutes, ts = minute start), trades, then ticker and open interest (perps) sampled at the
   *   minute's last millisecond (ts = minute start + 59 999).
   */
  simulateRange(fromTs: number, toTs: number, sink: EventSink): RangeResult {
    const m0 = Math.ceil(fromTs / MINUTE_MS) * MINUTE_MS
    const m1 = Math.ceil(toTs / MINUTE_MS) * MINUTE_MS
    if (!Number.isFinite(m0) || !Number.isFinite(m1)) throw new RangeError('fromTs and toTs must be finite')
    if (m0 < ORIGIN_TS) throw new RangeError(`the simulator starts at ${new Date(ORIGIN_TS).toISOString()}`)
    let events = 0
    let trades = 0
    if (m1 <= m0) return { fromTs: m0, toTs: m0, events, trades }
    this.ensureSlow(m1)
    const acc = this.newFundingAcc(m0)
    const bookEvery = this.opts.historyBookEveryMinutes
    const buf = this.tradeBuf
    for (let m = m0; m < m1; m += MINUTE_MS) {
      const h = hourIndex(m)
      if (h !== this.hourComputed) this.computeHour(h)
      const i = (m - ORIGIN_TS - h * HOUR_MS) / MINUTE_MS
      const mIdx = m / MINUTE_MS
      const withBook = bookEvery > 0 && mIdx % bookEvery === 0
      for (const mk of this.mkts) {
        const ch = this.hours[mk.coinIndex]!
        if (mk.relHour !== h) this.computeMarketHour(mk, ch)
        if (mk.isPerp) {
          const f = this.fundingBoundary(mk, acc, m, mk.rel[i]! / mk.idx[i]! - 1)
          if (f) {
            sink.emit(f)
            events++
          }
        }
        if (withBook) {
          sink.emit(this.book(mk, m, ch.fair[i]! * mk.rel[i]!))
          events++
        }
        buf.length = 0
        this.midBuf.length = 0
        const last = this.genTrades(mk, ch, i, m, false)
        for (let j = 0; j < buf.length; j++) sink.emit(buf[j]!)
        events += buf.length
        trades += buf.length
        const ts = m + MINUTE_MS - 1
        const fair1 = ch.fair[i + 1]!
        const mid1 = fair1 * mk.rel[i + 1]!
        sink.emit(this.ticker(mk, acc, ts, mid1, fair1 * mk.idx[i + 1]!, last > 0 ? last : round(mid1, mk.tickInv)))
        events++
        if (mk.isPerp) {
          sink.emit(this.openInterest(mk, ts, ch.oi[i + 1]!))
          events++
        }
      }
    }
    this.historyEnd = this.historyEnd === undefined ? m1 : Math.max(this.historyEnd, m1)
    return { fromTs: m0, toTs: m1, events, trades }
  }

  // ---- live -----------------------------------------------------------------------------------------------------

  /**
   * Continue in real time: trades as their ts passes (liveTradeMultiplier × the history rate, ids `${minute}-L${n}`),
   * a ticker every liveTickerMs, a book snapshot every liveBookMs, open interest every liveOpenInterestMs per market,
   * funding settlements. The price path is the same as history's (same minute anchors). If the start lies in the
   * past, trades are caught up at once; sampled events older than 5 s are skipped (use simulateRange for history).
   */
  live(sink: EventSink, options: LiveOptions = {}): void {
    if (this.liveState) throw new Error('live() already running; stop() first')
    const now = options.now ?? Date.now
    const start = Math.floor(options.fromTs ?? this.historyEnd ?? this.opts.startTs ?? now())
    if (start < ORIGIN_TS) throw new RangeError(`the simulator starts at ${new Date(ORIGIN_TS).toISOString()}`)
    const n = this.mkts.length
    const L: LiveState = {
      sink,
      start,
      emittedTo: start,
      minute: -1,
      acc: null,
      trades: this.mkts.map(() => []),
      mids: this.mkts.map(() => []),
      ptr: new Int32Array(n),
      lastPrice: new Float64Array(n),
      lastMid: new Float64Array(n),
      lastMidTs: new Float64Array(n).fill(-Infinity),
      timer: null,
    }
    this.liveState = L
    if (!options.manual) {
      const tick = () => {
        try {
          this.pump(now())
        } catch (err) {
          this.stop()
          throw err
        }
      }
      L.timer = setInterval(tick, this.opts.tickMs)
      tick()
    }
  }

  /** stop live generation (idempotent) */
  stop(): void {
    const L = this.liveState
    if (!L) return
    if (L.timer) clearInterval(L.timer)
    this.liveState = null
  }

  get running(): boolean {
    return this.liveState !== null
  }

  /** emit every live event with ts <= now not emitted yet; returns how many were emitted */
  pump(now: number): number {
    const L = this.liveState
    if (!L) return 0
    const to = Math.floor(now) + 1
    if (to <= L.emittedTo) return 0
    this.ensureSlow(to + MINUTE_MS)
    const o = this.opts
    const sink = L.sink
    const staleBefore = now - STALE_GRID_MS
    let count = 0
    while (L.emittedTo < to) {
      const m = floorTo(L.emittedTo, MINUTE_MS)
      if (L.minute !== m) count += this.buildLiveMinute(L, m)
      const end = Math.min(to, m + MINUTE_MS)
      const from = L.emittedTo
      const h = hourIndex(m)
      const i = (m - ORIGIN_TS - h * HOUR_MS) / MINUTE_MS
      // simulateRange()/fairPrice() may have moved the hour caches since the minute was built
      if (h !== this.hourComputed) this.computeHour(h)
      const sliceStale = end <= staleBefore
      for (const mk of this.mkts) {
        const ch = this.hours[mk.coinIndex]!
        if (mk.relHour !== h) this.computeMarketHour(mk, ch)
        const trades = L.trades[mk.index]!
        const mids = L.mids[mk.index]!
        let p = L.ptr[mk.index]!
        const emitTradesBefore = (t: number) => {
          while (p < trades.length && trades[p]!.ts < t) {
            const tr = trades[p]!
            sink.emit(tr)
            L.lastPrice[mk.index] = tr.price
            L.lastMid[mk.index] = mids[p]!
            L.lastMidTs[mk.index] = tr.ts
            p++
            count++
          }
        }
        if (!sliceStale) {
          // grid times in [from, end): merge the three sampling grids
          const g = Math.max(from, staleBefore)
          let nt = Math.ceil(g / o.liveTickerMs) * o.liveTickerMs
          let nb = Math.ceil(g / o.liveBookMs) * o.liveBookMs
          let no = mk.isPerp ? Math.ceil(g / o.liveOpenInterestMs) * o.liveOpenInterestMs : Infinity
          for (;;) {
            const t = Math.min(nt, nb, no)
            if (t >= end) break
            emitTradesBefore(t + 1)
            const frac = (t - m) / MINUTE_MS
            const fair = ch.fair[i]! + (ch.fair[i + 1]! - ch.fair[i]!) * frac
            const rel = mk.rel[i]! + (mk.rel[i + 1]! - mk.rel[i]!) * frac
            const mid = L.lastMidTs[mk.index]! >= m ? L.lastMid[mk.index]! : fair * rel
            if (t === nb) {
              sink.emit(this.book(mk, t, mid))
              count++
              nb += o.liveBookMs
            }
            if (t === nt) {
              const idx = mk.idx[i]! + (mk.idx[i + 1]! - mk.idx[i]!) * frac
              const last = L.lastPrice[mk.index]! > 0 ? L.lastPrice[mk.index]! : round(mid, mk.tickInv)
              sink.emit(this.ticker(mk, L.acc!, t, mid, fair * idx, last))
              count++
              nt += o.liveTickerMs
            }
            if (t === no) {
              const l = ch.oi[i]! + (ch.oi[i + 1]! - ch.oi[i]!) * frac
              sink.emit(this.openInterest(mk, t, l))
              count++
              no += o.liveOpenInterestMs
            }
          }
        }
        emitTradesBefore(end)
        L.ptr[mk.index] = p
      }
      L.emittedTo = end
    }
    return count
  }

  // ---- inspection (tests, docs) ---------------------------------------------------------------------------------

  /** the fair (index) price of a coin at a minute boundary (ts is floored to the minute) */
  fairPrice(coin: string, ts: number): number {
    const ci = this.coinIndex(coin)
    const m = floorTo(ts, MINUTE_MS)
    this.ensureSlow(m + MINUTE_MS)
    const h = hourIndex(m)
    if (h !== this.hourComputed) this.computeHour(h)
    return this.hours[ci]!.fair[(m - ORIGIN_TS - h * HOUR_MS) / MINUTE_MS]!
  }

  /** the slow state of a coin during the hour containing ts */
  hourState(coin: string, ts: number): {
    regime: 'calm' | 'normal' | 'stressed'
    trending: boolean
    bias: number
    openInterest: number
    premium: number
    cascade: { minute: number; jump: number; oiDrop: number } | null
  } {
    const p = this.paths[this.coinIndex(coin)]!
    const h = hourIndex(ts)
    if (h < 0) throw new RangeError('before the simulator origin')
    this.ensureSlow(ts + HOUR_MS)
    const k = p.cascadeMinute[h]!
    return {
      regime: (['calm', 'normal', 'stressed'] as const)[this.market.regime[h]!]!,
      trending: p.trending[h] === 1,
      bias: p.bias[h]!,
      openInterest: Math.exp(p.oi[h]!),
      premium: p.premium[h]!,
      cascade: k >= 0 ? { minute: k, jump: p.cascadeJump[h]!, oiDrop: p.cascadeOiDrop[h]! } : null,
    }
  }

  // ---- internals ------------------------------------------------------------------------------------------------

  private coinIndex(coin: string): number {
    const ci = this.coins.indexOf(coin)
    if (ci < 0) throw new RangeError(`coin ${coin} is not simulated`)
    return ci
  }

  /** walk the slow layer so every hour up to the one containing ts (and its end) is known */
  private ensureSlow(ts: number): void {
    const hours = hourIndex(ts) + 2
    this.market.ensure(hours)
    for (const p of this.paths) p.ensure(hours, this.market)
  }

  /** coin premium (perp mid / fair - 1 before venue basis) at time t */
  private coinPremium(ci: number, t: number): number {
    const p = this.paths[ci]!
    const h = hourIndex(t)
    const f = (t - ORIGIN_TS - h * HOUR_MS) / HOUR_MS
    const a = p.premium[h]!
    const b = p.premium[h + 1]!
    const k = this.premKeys[ci]!
    return a + (b - a) * f + MODEL.premiumFastSd * (0.8 * vnoise(k[0], t, 20 * MINUTE_MS) + 0.5 * vnoise(k[1], t, 3 * MINUTE_MS))
  }

  /** market mid / fair at time t given the coin premium */
  private relMid(mk: SimMarket, coinPrem: number, t: number): number {
    const basis = mk.basisOffset + mk.basisSd * (0.8 * vnoise(mk.basisKey, t, 15 * MINUTE_MS) + 0.45 * vnoise(mk.basisKey2, t, 2 * MINUTE_MS))
    return 1 + (mk.isPerp ? coinPrem : 0) + basis
  }

  /** venue index / fair at time t */
  private relIndex(mk: SimMarket, t: number): number {
    return mk.isPerp ? 1 + 0.3e-4 * vnoise(mk.idxKey, t, 10 * MINUTE_MS) : 1
  }

  /** perp premium sample (mark / index - 1) at a minute boundary, computed without the hour caches */
  private premiumSample(mk: SimMarket, b: number): number {
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

  private computeMarketHour(mk: SimMarket, ch: CoinHour): void {
    for (let i = 0; i <= 60; i++) {
      const t = ch.start + i * MINUTE_MS
      mk.rel[i] = this.relMid(mk, ch.prem[i]!, t)
      mk.idx[i] = this.relIndex(mk, t)
    }
    mk.relHour = ch.h
  }

  private newFundingAcc(m0: number): FundingAcc {
    const n = this.mkts.length
    const acc: FundingAcc = { start: new Float64Array(n), sum: new Float64Array(n), n: new Float64Array(n), last: new Float64Array(n) }
    for (const mk of this.mkts) {
      if (!mk.isPerp) continue
      const start = floorTo(m0 - 1, mk.fundingMs)
      acc.start[mk.index] = start
      let s = 0
      let c = 0
      let last = 0
      for (let b = Math.max(start + MINUTE_MS, ORIGIN_TS); b < m0; b += MINUTE_MS) {
        last = this.premiumSample(mk, b)
        s += last
        c++
      }
      acc.sum[mk.index] = s
      acc.n[mk.index] = c
      acc.last[mk.index] = last
    }
    return acc
  }

  /** add the premium sample at boundary m; at a settlement, return the FundingEvent and restart the interval */
  private fundingBoundary(mk: SimMarket, acc: FundingAcc, m: number, sample: number): FundingEvent | null {
    const k = mk.index
    if (m <= acc.start[k]!) return null
    acc.sum[k] = acc.sum[k]! + sample
    acc.n[k] = acc.n[k]! + 1
    acc.last[k] = sample
    if (m % mk.fundingMs !== 0) return null
    const rate = this.fundingRate(mk, acc.sum[k]! / acc.n[k]!)
    acc.start[k] = m
    acc.sum[k] = 0
    acc.n[k] = 0
    return { type: 'funding', exchange: mk.exchange, coin: mk.coin, marketType: mk.marketType, ts: m, rate, intervalHours: mk.fundingHours }
  }

  /** rate per interval = clamp(mean premium + interest), both on an 8-hour basis, scaled to the interval */
  private fundingRate(mk: SimMarket, meanPremium: number): number {
    const cap = MODEL.fundingCap8h
    const r8 = Math.min(cap, Math.max(-cap, meanPremium + MODEL.fundingInterest8h))
    return Math.round(((r8 * mk.fundingHours) / 8) * 1e8) / 1e8
  }

  private ticker(mk: SimMarket, acc: FundingAcc, ts: number, mid: number, index: number, last: number): TickerEvent {
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
    const k = mk.index
    const n = acc.n[k]!
    return {
      type: 'ticker',
      exchange: mk.exchange,
      coin: mk.coin,
      marketType: mk.marketType,
      ts,
      markPrice: round(mid, mk.tickInv),
      indexPrice: round(index, mk.tickInv),
      lastPrice: last,
      fundingRate: this.fundingRate(mk, n > 0 ? acc.sum[k]! / n : acc.last[k]!),
      fundingIntervalHours: mk.fundingHours,
      nextFundingTime: floorTo(ts, mk.fundingMs) + mk.fundingMs,
    }
  }

  private openInterest(mk: SimMarket, ts: number, logOi: number): OpenInterestEvent {
    const share = mk.oiShare * Math.exp(0.1 * vnoise(mk.oiKey, ts, 3 * 24 * HOUR_MS) + 0.002 * vnoise(mk.oiKey ^ 1, ts, 10 * MINUTE_MS))
    const oi = Math.max(1 / mk.lotInv, round(share * Math.exp(logOi), mk.lotInv))
    return { type: 'open_interest', exchange: mk.exchange, coin: mk.coin, marketType: mk.marketType, ts, openInterest: oi }
  }

  /**
   * Trades of one market-minute into this.tradeBuf (and their mids into this.midBuf); returns the last trade price
   * (0 if none). Count ~ Poisson(base × activity), times uniform in the minute, mids on a Brownian bridge between
   * the minute's boundary mids, taker side biased by the minute's move, sizes log-normal with a Pareto tail.
   */
  private genTrades(mk: SimMarket, ch: CoinHour, i: number, m: number, live: boolean): number {
    const mIdx = m / MINUTE_MS
    const rng = this.rng.reseed(hash2(live ? mk.liveTradeKey : mk.tradeKey, mIdx))
    const m0 = ch.fair[i]! * mk.rel[i]!
    const m1 = ch.fair[i + 1]! * mk.rel[i + 1]!
    const lr = Math.log(m1 / m0)
    const sig = ch.sigmaMin
    const z = lr / sig
    const az = Math.abs(z)
    let act =
      ch.season * REGIME_ACTIVITY[ch.regime]! * (0.55 + 0.45 * (az < 6 ? az : 6)) * Math.exp(0.35 * vnoise(mk.actKey, m, 30 * MINUTE_MS) - 0.06)
    let pb = 0.5 + 0.3 * Math.tanh(0.9 * z) + 0.08 * (rng.next() - 0.5)
    if (i === ch.cascadeMinute) {
      act *= 4 + 40 * ch.cascadeF
      pb = ch.cascadeJump < 0 ? 0.12 : 0.88
    }
    const mult = live ? this.opts.liveTradeMultiplier : 1
    const n = rng.poisson(mk.baseTrades * mult * act)
    if (n === 0) return 0
    if (this.times.length < n + 1) this.times = new Float64Array(2 * (n + 1))
    const T = this.times
    let s = 0
    for (let j = 0; j <= n; j++) T[j] = s += rng.exp()
    const total = T[n]!
    const unit = mk.notionalPerMin / (mk.baseTrades * mult) / m0 / SIZE_MEAN
    const hs = mk.halfSpread * (ch.regime === 2 ? 1.5 : 1)
    const tickInv = mk.tickInv
    const lotInv = mk.lotInv
    const minLot = 1 / lotInv
    const prefix = live ? `${mIdx}-L` : `${mIdx}-`
    const buf = this.tradeBuf
    const mids = this.midBuf
    let y = 0
    let uPrev = 0
    let price = 0
    for (let j = 0; j < n; j++) {
      const u = T[j]! / total
      const rem = 1 - uPrev
      const dt = u - uPrev
      y += ((lr - y) * dt) / rem + sig * Math.sqrt((dt * (1 - u)) / rem) * rng.normal()
      uPrev = u
      const mid = m0 * Math.exp(y)
      const buy = rng.next() < pb
      price = Math.round(mid * (buy ? 1 + hs : 1 - hs) * tickInv) / tickInv
      const w = rng.next() < 0.92 ? Math.exp(0.9 * rng.normal() - 0.405) : Math.min(200, 2.25 * Math.pow(rng.nextOpen(), -1 / 1.6))
      let size = Math.round(unit * w * lotInv) / lotInv
      if (size < minLot) size = minLot
      buf.push({
        type: 'trade',
        exchange: mk.exchange,
        coin: mk.coin,
        marketType: mk.marketType,
        ts: m + Math.floor(u * MINUTE_MS),
        id: prefix + j,
        price,
        size,
        side: buy ? 'buy' : 'sell',
      })
      mids.push(mid)
    }
    return price
  }

  /** a book snapshot around mid: levels dense near the touch and sparser away, out to ±5 % */
  private book(mk: SimMarket, ts: number, mid: number): BookSnapshotEvent {
    const rng = this.bookRng.reseed(hash2(mk.bookKey, Math.floor(ts / 1000)))
    const N = this.opts.bookLevels
    const hs = mk.halfSpread
    const tickInv = mk.tickInv
    const tick = 1 / tickInv
    const lotInv = mk.lotInv
    const minLot = 1 / lotInv
    const asym = 0.12 * vnoise(mk.asymKey, ts, 10 * MINUTE_MS)
    // total size per side within ±5 % = bookDepthMinutes of average volume; E[level factor] = 1.5, E[lognormal] = 1
    const unit = (mk.notionalPerMin * MODEL.bookDepthMinutes) / mid / (N * 1.5)
    const bidMult = unit * Math.exp(asym)
    const askMult = unit * Math.exp(-asym)
    const bids: BookLevel[] = new Array(N)
    const asks: BookLevel[] = new Array(N)
    let prevBid = Infinity
    let prevAsk = -Infinity
    for (let k = 0; k < N; k++) {
      const q = k / (N - 1)
      const d = hs + (BOOK_DEPTH_RANGE - hs) * q * q
      let bp = Math.floor(mid * (1 - d) * tickInv) / tickInv
      if (bp >= prevBid) bp = Math.round((prevBid - tick) * tickInv) / tickInv
      let ap = Math.ceil(mid * (1 + d) * tickInv) / tickInv
      if (ap <= prevAsk) ap = Math.round((prevAsk + tick) * tickInv) / tickInv
      prevBid = bp
      prevAsk = ap
      const shape = 0.5 + 2 * q
      let bs = Math.round(bidMult * shape * Math.exp(0.35 * rng.normal() - 0.06125) * lotInv) / lotInv
      let as = Math.round(askMult * shape * Math.exp(0.35 * rng.normal() - 0.06125) * lotInv) / lotInv
      if (bs < minLot) bs = minLot
      if (as < minLot) as = minLot
      bids[k] = { price: bp, size: bs }
      asks[k] = { price: ap, size: as }
    }
    // the simulated book is the whole book: nothing rests beyond its last level
    return { type: 'book', exchange: mk.exchange, coin: mk.coin, marketType: mk.marketType, ts, bids, asks, bidEnd: null, askEnd: null }
  }

  /** generate minute m's live trades for every market; process boundary m for funding; returns events emitted */
  private buildLiveMinute(L: LiveState, m: number): number {
    const h = hourIndex(m)
    if (h !== this.hourComputed) this.computeHour(h)
    const i = (m - ORIGIN_TS - h * HOUR_MS) / MINUTE_MS
    if (!L.acc) L.acc = this.newFundingAcc(m)
    let count = 0
    for (const mk of this.mkts) {
      const ch = this.hours[mk.coinIndex]!
      if (mk.relHour !== h) this.computeMarketHour(mk, ch)
      if (mk.isPerp) {
        const f = this.fundingBoundary(mk, L.acc, m, mk.rel[i]! / mk.idx[i]! - 1)
        if (f && m >= L.start) {
          L.sink.emit(f)
          count++
        }
      }
      this.tradeBuf.length = 0
      this.midBuf.length = 0
      this.genTrades(mk, ch, i, m, true)
      // only trades at or after the live start
      const trades: TradeEvent[] = []
      const mids: number[] = []
      for (let j = 0; j < this.tradeBuf.length; j++) {
        if (this.tradeBuf[j]!.ts >= L.start) {
          trades.push(this.tradeBuf[j]!)
          mids.push(this.midBuf[j]!)
        }
      }
      L.trades[mk.index] = trades
      L.mids[mk.index] = mids
      L.ptr[mk.index] = 0
    }
    L.minute = m
    return count
  }
}

interface LiveState {
  sink: EventSink
  start: number
  emittedTo: number
  minute: number
  acc: FundingAcc | null
  trades: TradeEvent[][]
  mids: number[][]
  ptr: Int32Array
  lastPrice: Float64Array
  lastMid: Float64Array
  lastMidTs: Float64Array
  timer: ReturnType<typeof setInterval> | null
}

/** every market the simulator covers for these coins: perps on all five venues, spot on the CEXes */
export function simulatedMarkets(coins: readonly string[] = DEFAULT_COINS): MarketKey[] {
  return coins.flatMap((coin) => EXCHANGES.flatMap((e) => e.marketTypes.map((marketType) => ({ exchange: e.id, coin, marketType }))))
}

export { COIN_PARAMS }
