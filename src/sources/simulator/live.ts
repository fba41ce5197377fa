// The live feed: the same minute plans as history, as individual trades released when their ts passes, plus
// tickers, book snapshots and open interest on clock-aligned grids and funding settlements. Output depends only on
// the start and the clock, never on how often pump() is called.
import { MINUTE_MS, floorTo } from '../../domain/time.js'
import type { EventSink, MarketEvent, TradeEvent } from '../../domain/events.js'
import { sideEventsOfMinute } from './liquidations.js'
import { Rng } from './rng.js'
import { bookSnapshot } from './book.js'
import { fundingBoundary, newFundingAcc, type FundingAcc } from './funding.js'
import { newPlan, planMinute } from './minute-plan.js'
import { openInterest, roundTo, ticker } from './samples.js'
import { generateTrades } from './trades.js'
import type { SimMarket } from './markets.js'
import type { PricePath } from './price-path.js'
import type { SimPositions } from './positions.js'

export interface LiveIntervals {
  tickerMs: number
  bookMs: number
  openInterestMs: number
  bookLevels: number
}

/** sampled events (ticker, book, OI) older than this when their slice is pumped are skipped, not caught up */
const STALE_GRID_MS = 5000

export class LiveFeed {
  private emittedTo: number
  private minute = -1
  private acc: FundingAcc | null = null
  private readonly trades: TradeEvent[][]
  private readonly mids: number[][]
  private readonly ptr: Int32Array
  private readonly lastPrice: Float64Array
  private readonly lastMid: Float64Array
  private readonly lastMidTs: Float64Array
  private readonly planRng = new Rng()
  private readonly tradeRng = new Rng()
  private readonly bookRng = new Rng()
  private readonly liqRng = new Rng()
  /** per market: the minute's liquidations and positioning samples (liquidations.ts), and how many were emitted */
  private readonly side: MarketEvent[][]
  private readonly sidePtr: Int32Array
  private readonly plan = newPlan()

  constructor(
    private readonly markets: readonly SimMarket[],
    private readonly path: PricePath,
    private readonly positions: SimPositions,
    private readonly iv: LiveIntervals,
    private readonly sink: EventSink,
    /** first ts emitted */
    private readonly start: number,
    /** tickers and open interest before this are caught up too, however old (books are not: only the latest counts) */
    private readonly catchUpTo = Number.NEGATIVE_INFINITY,
  ) {
    const n = markets.length
    this.emittedTo = start
    this.trades = markets.map(() => [])
    this.mids = markets.map(() => [])
    this.ptr = new Int32Array(n)
    this.side = markets.map(() => [])
    this.sidePtr = new Int32Array(n)
    this.lastPrice = new Float64Array(n)
    this.lastMid = new Float64Array(n)
    this.lastMidTs = new Float64Array(n).fill(-Infinity)
  }

  /** emit every live event with ts <= now not emitted yet; returns how many were emitted */
  pump(now: number): number {
    const to = Math.floor(now) + 1
    if (to <= this.emittedTo) return 0
    const { path, iv, sink } = this
    path.ensureSlow(to + MINUTE_MS)
    const staleBefore = now - STALE_GRID_MS
    let count = 0
    while (this.emittedTo < to) {
      const m = floorTo(this.emittedTo, MINUTE_MS)
      if (this.minute !== m) count += this.buildMinute(m)
      const end = Math.min(to, m + MINUTE_MS)
      const from = this.emittedTo
      const catchUp = from < this.catchUpTo
      const sliceStale = end <= staleBefore && !catchUp
      for (const mk of this.markets) {
        // history or inspection calls may have moved the hour caches since the minute was built
        const i = path.prepare(m, mk)
        const ch = path.hours[mk.coinIndex]!
        const k = mk.index
        const trades = this.trades[k]!
        const mids = this.mids[k]!
        let p = this.ptr[k]!
        const emitTradesBefore = (t: number) => {
          while (p < trades.length && trades[p]!.ts < t) {
            const tr = trades[p]!
            sink.emit(tr)
            this.lastPrice[k] = tr.price
            this.lastMid[k] = mids[p]!
            this.lastMidTs[k] = tr.ts
            p++
            count++
          }
        }
        if (!sliceStale) {
          // grid times in [from, end): merge the three sampling grids
          const fresh = Math.max(from, staleBefore)
          const g = catchUp ? from : fresh
          let nt = Math.ceil(g / iv.tickerMs) * iv.tickerMs
          let nb = Math.ceil(fresh / iv.bookMs) * iv.bookMs
          let no = mk.isPerp ? Math.ceil(g / iv.openInterestMs) * iv.openInterestMs : Infinity
          for (;;) {
            const t = Math.min(nt, nb, no)
            if (t >= end) break
            emitTradesBefore(t + 1)
            const frac = (t - m) / MINUTE_MS
            const fair = ch.fair[i]! + (ch.fair[i + 1]! - ch.fair[i]!) * frac
            const rel = mk.rel[i]! + (mk.rel[i + 1]! - mk.rel[i]!) * frac
            const mid = this.lastMidTs[k]! >= m ? this.lastMid[k]! : fair * rel
            if (t === nb) {
              sink.emit(bookSnapshot(mk, t, mid, iv.bookLevels, this.bookRng))
              count++
              nb += iv.bookMs
            }
            if (t === nt) {
              const idx = mk.idx[i]! + (mk.idx[i + 1]! - mk.idx[i]!) * frac
              const last = this.lastPrice[k]! > 0 ? this.lastPrice[k]! : roundTo(mid, mk.tickInv)
              sink.emit(ticker(mk, this.acc!, t, mid, fair * idx, last))
              count++
              nt += iv.tickerMs
            }
            if (t === no) {
              const l = ch.oi[i]! + (ch.oi[i + 1]! - ch.oi[i]!) * frac
              sink.emit(openInterest(mk, t, l))
              count++
              no += iv.openInterestMs
            }
          }
        }
        emitTradesBefore(end)
        this.ptr[k] = p
        const side = this.side[k]!
        let q = this.sidePtr[k]!
        for (; q < side.length && side[q]!.ts < end; q++, count++) sink.emit(side[q]!)
        this.sidePtr[k] = q
      }
      this.emittedTo = end
    }
    return count
  }

  /** generate minute m's trades for every market; process boundary m for funding; returns events emitted */
  private buildMinute(m: number): number {
    const { path, sink } = this
    if (!this.acc) this.acc = newFundingAcc(this.markets, path, m)
    const prefix = `${m / MINUTE_MS}-L`
    let count = 0
    for (const mk of this.markets) {
      const i = path.prepare(m, mk)
      if (mk.isPerp) {
        const f = fundingBoundary(mk, this.acc, m, mk.rel[i]! / mk.idx[i]! - 1)
        if (f && m >= this.start) {
          sink.emit(f)
          count++
        }
      }
      const plan = planMinute(path, mk, m, this.planRng, this.plan)
      const trades: TradeEvent[] = []
      const mids: number[] = []
      generateTrades(mk, plan, this.tradeRng, prefix, trades, mids)
      // only trades at or after the live start
      let first = 0
      while (first < trades.length && trades[first]!.ts < this.start) first++
      this.trades[mk.index] = first ? trades.slice(first) : trades
      this.mids[mk.index] = first ? mids.slice(first) : mids
      this.ptr[mk.index] = 0
      const side: MarketEvent[] = []
      sideEventsOfMinute(path, this.positions, mk, m, path.prepare(m, mk), this.liqRng, side)
      this.side[mk.index] = side.filter((e) => e.ts >= this.start)
      this.sidePtr[mk.index] = 0
    }
    this.minute = m
    return count
  }
}
