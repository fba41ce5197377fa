// Simulated history: every minute of a range as its events — funding settlements, book snapshots, the 1-minute bar
// (minute-bar.ts: aggregates with the statistics of the minute's trades, not the trades themselves), then the
// ticker and open interest at the minute's last millisecond. A minute is a function of (seed, market, minute) only.
import { flatMinuteBar, type BarSink, type TradeMinuteBar } from '../../domain/minute-bars.js'
import { MINUTE_MS } from '../../domain/time.js'
import type { EventSink, MarketEvent, TradeEvent } from '../../domain/events.js'
import { sideEventsOfMinute } from './liquidations.js'
import { Rng } from './rng.js'
import { bookSnapshot } from './book.js'
import { fundingBoundary, newFundingAcc } from './funding.js'
import { EXPLICIT_TRADES, aggregateBar, aggregateClose, tradesBar } from './minute-bar.js'
import { newPlan, planMinute, type MinutePlan } from './minute-plan.js'
import { openInterest, roundTo, ticker } from './samples.js'
import { generateTrades } from './trades.js'
import type { SimMarket } from './markets.js'
import type { PricePath } from './price-path.js'
import type { SimPositions } from './positions.js'
import { ORIGIN_TS } from './slow-path.js'

/** where history goes: the normalized events, and the 1-minute bars that stand for the trades */
export interface HistorySink extends EventSink, BarSink {}

export interface RangeResult {
  /** the minutes generated: [fromTs, toTs) aligned up to whole minutes */
  fromTs: number
  toTs: number
  /** events and bars emitted */
  events: number
  /** trades the bars stand for */
  trades: number
}

/** how far back a quiet minute looks for the last close before giving up and quoting the mid */
const MAX_QUIET_LOOKBACK = 7 * 1440

export class HistoryGenerator {
  private readonly planRng = new Rng()
  private readonly tradeRng = new Rng()
  private readonly barRng = new Rng()
  private readonly bookRng = new Rng()
  private readonly liqRng = new Rng()
  private readonly side: MarketEvent[] = []
  private readonly plan = newPlan()
  private readonly trades: TradeEvent[] = []
  /** per market: the close of the minute before the one being generated, and that minute */
  private readonly lastClose: Float64Array
  private readonly lastCloseMinute: Float64Array

  constructor(
    private readonly markets: readonly SimMarket[],
    private readonly path: PricePath,
    private readonly positions: SimPositions,
    private readonly bookLevels: number,
    private readonly bookEveryMinutes: number,
  ) {
    this.lastClose = new Float64Array(markets.length)
    this.lastCloseMinute = new Float64Array(markets.length).fill(-Infinity)
  }

  /**
   * minutes [m0, m1) (whole minutes, m0 < m1) into sink; tickers and open interest only at the ends of
   * sampleEveryMs slots (a consumer that keeps one sample per slot needs no more); book snapshots unless books is false
   */
  run(m0: number, m1: number, sink: HistorySink, sampleEveryMs = MINUTE_MS, books = true): RangeResult {
    const { path, markets, plan } = this
    path.ensureSlow(m1)
    const acc = newFundingAcc(markets, path, m0)
    let events = 0
    let trades = 0
    for (let m = m0; m < m1; m += MINUTE_MS) {
      const withBook = books && this.bookEveryMinutes > 0 && (m / MINUTE_MS) % this.bookEveryMinutes === 0
      for (const mk of markets) {
        const i = path.prepare(m, mk)
        const ch = path.hours[mk.coinIndex]!
        if (mk.isPerp) {
          const f = fundingBoundary(mk, acc, m, mk.rel[i]! / mk.idx[i]! - 1)
          if (f) {
            sink.emit(f)
            events++
          }
        }
        if (withBook) {
          sink.emit(bookSnapshot(mk, m, ch.fair[i]! * mk.rel[i]!, this.bookLevels, this.bookRng))
          events++
        }
        const bar = this.bar(mk, planMinute(path, mk, m, this.planRng, plan))
        sink.emitBar(bar)
        events++
        trades += bar.trades
        this.lastClose[mk.index] = bar.close
        this.lastCloseMinute[mk.index] = m
        if (mk.isPerp) {
          // liquidations and positioning (liquidations.ts); a quiet minute's look back may have moved the hour caches
          this.side.length = 0
          sideEventsOfMinute(path, this.positions, mk, m, path.prepare(m, mk), this.liqRng, this.side)
          for (const e of this.side) sink.emit(e)
          events += this.side.length
        }
        if ((m + MINUTE_MS) % sampleEveryMs !== 0) continue
        // a quiet minute's look back may have moved the hour caches
        path.prepare(m, mk)
        const ts = m + MINUTE_MS - 1
        const fair1 = ch.fair[i + 1]!
        sink.emit(ticker(mk, acc, ts, fair1 * mk.rel[i + 1]!, fair1 * mk.idx[i + 1]!, bar.close))
        events++
        if (mk.isPerp) {
          sink.emit(openInterest(mk, ts, ch.oi[i + 1]!))
          events++
        }
      }
    }
    return { fromTs: m0, toTs: m1, events, trades }
  }

  /** the bar of a planned minute */
  private bar(mk: SimMarket, plan: MinutePlan): TradeMinuteBar {
    if (plan.n > EXPLICIT_TRADES) return aggregateBar(mk, plan, this.barRng)
    if (plan.n === 0) return flatMinuteBar(mk, plan.m, this.closeBefore(mk, plan.m), 'simulated')
    this.trades.length = 0
    generateTrades(mk, plan, this.tradeRng, '', this.trades, null)
    return tradesBar(mk, plan.m, this.trades)
  }

  /** the close of the last minute before m that had trades (whatever range was generated before) */
  private closeBefore(mk: SimMarket, m: number): number {
    const k = mk.index
    if (this.lastCloseMinute[k] === m - MINUTE_MS) return this.lastClose[k]!
    const plan = newPlan()
    for (let j = 1; j <= MAX_QUIET_LOOKBACK && m - j * MINUTE_MS >= ORIGIN_TS; j++) {
      const p = planMinute(this.path, mk, m - j * MINUTE_MS, this.planRng, plan)
      if (p.n > EXPLICIT_TRADES) return aggregateClose(mk, p, this.barRng)
      if (p.n > 0) {
        this.trades.length = 0
        return generateTrades(mk, p, this.tradeRng, '', this.trades, null)
      }
    }
    // a week without a trade (or the simulator's origin): quote the mid
    const p = planMinute(this.path, mk, m, this.planRng, plan)
    return roundTo(p.m0, mk.tickInv)
  }
}
