// The simulator's leveraged positions, per perp market, and what each minute liquidates (docs/simulator.md#liquidations).
// The positions are those of the liquidation model's own assumptions (docs/methodology.md#leverage-mix): the same
// leverage mix and position sizes (positionClasses) on the venue's shipped tier table, the same liquidation price;
// what differs is what the simulator knows and the model does not: the exact open interest, the expected taker split,
// and the mid at every minute. A minute's liquidations are a function of (seed, market, minute) only: a book is built
// from the BOOK_HOURS before it, with its own price path and market copies so the caller's hour caches stay put.
import { POSITION_HORIZON_HOURS, classFactors, positionClasses, tiersInUsd } from '../../analytics/leverage-tiers.js'
import { HOUR_MS, MINUTE_MS } from '../../domain/time.js'
import { TierBook } from '../../read/tiers/book.js'
import { buildMarkets, type SimMarket } from './markets.js'
import { cascadeTakerBuy, meanTakerBuy, minuteActivity } from './minute-plan.js'
import { coinParams } from './params.js'
import { PricePath } from './price-path.js'
import { PositionBook, type HourFacts, type SideClasses, type Swept } from './position-book.js'
import { venueOpenInterest } from './samples.js'
import { ORIGIN_TS, hourIndex } from './slow-path.js'

/** hours of positions a book holds: the model's position horizon (a position open longer is taken as closed or re-margined) */
const BOOK_HOURS = POSITION_HORIZON_HOURS
/** classes whose liquidation prices are this close (bps) are one class */
const MERGE_BPS = 10
/** hours of facts kept: a backfill's day and the horizon before it, with room */
const FACT_HOURS_KEPT = BOOK_HOURS + 30 * 24
const FACTS = 6

/** one side's classes merged within MERGE_BPS, in sweep order; the merged factor is the weight-weighted mean */
function sideClasses(pairs: { factor: number; weight: number }[], long: boolean): SideClasses {
  const sorted = [...pairs].sort((a, b) => (long ? b.factor - a.factor : a.factor - b.factor))
  const factors: number[] = []
  const weights: number[] = []
  let first = NaN
  for (const p of sorted) {
    const k = factors.length - 1
    if (k >= 0 && Math.abs(Math.log(p.factor / first)) < MERGE_BPS / 1e4) {
      factors[k] = (factors[k]! * weights[k]! + p.factor * p.weight) / (weights[k]! + p.weight)
      weights[k]! += p.weight
    } else {
      first = p.factor
      factors.push(p.factor)
      weights.push(p.weight)
    }
  }
  return { factors, weights }
}

/** the position classes of a market: the shared leverage mix on its venue's shipped tier table */
function marketClasses(mk: SimMarket, tiers: TierBook): { longs: SideClasses; shorts: SideClasses } {
  const table = tiers.get(mk.exchange, mk.coin, ORIGIN_TS)
  const f = classFactors(positionClasses(tiersInUsd(table, coinParams(mk.coin).refPrice)))
  return { longs: sideClasses(f.map((x) => ({ factor: x.long, weight: x.weight })), true), shorts: sideClasses(f.map((x) => ({ factor: x.short, weight: x.weight })), false) }
}

export interface MinuteLiquidations {
  long: Swept
  short: Swept
}

export class SimPositions {
  private readonly path: PricePath
  private readonly perps: SimMarket[]
  /** perp slot by market index */
  private readonly slot = new Map<number, number>()
  private readonly classes: { longs: SideClasses; shorts: SideClasses }[]
  private readonly books = new Map<number, PositionBook>()
  /** per hour, FACTS numbers per perp slot: price, open, close, longShare, low, high */
  private readonly facts = new Map<number, Float64Array>()
  private midsHour = -1
  private readonly mids: Float64Array
  private readonly out: MinuteLiquidations = { long: { coins: 0, groups: 0 }, short: { coins: 0, groups: 0 } }

  constructor(seed: number, coins: readonly string[]) {
    this.path = new PricePath(seed, coins)
    this.perps = buildMarkets(seed, coins).filter((m) => m.isPerp)
    this.perps.forEach((m, k) => this.slot.set(m.index, k))
    const tiers = new TierBook()
    this.classes = this.perps.map((m) => marketClasses(m, tiers))
    this.mids = new Float64Array(this.perps.length * 61)
  }

  /** what minute m liquidates on perp market mk (by its index); the answer is reused by the next call */
  minute(mk: SimMarket, m: number): MinuteLiquidations {
    const out = this.out
    out.long.coins = out.short.coins = out.long.groups = out.short.groups = 0
    const k = this.slot.get(mk.index)
    if (k === undefined) return out
    const h = hourIndex(m)
    const i = (m - ORIGIN_TS - h * HOUR_MS) / MINUTE_MS
    let book = this.books.get(k)
    if (!book || !book.reaches(h, i) || h - book.hour > BOOK_HOURS) {
      book = new PositionBook(this.classes[k]!.longs, this.classes[k]!.shorts, BOOK_HOURS, Math.max(0, h - BOOK_HOURS))
      this.books.set(k, book)
    }
    while (book.hour < h) book.endHour(this.factsOf(book.hour, k))
    const mids = this.midsOf(h)
    book.minute(i, mids.subarray(k * 61, k * 61 + 61), out.long, out.short)
    return out
  }

  private factsOf(h: number, k: number): HourFacts {
    let row = this.facts.get(h)
    if (!row) this.keep(h, (row = this.compute(h)))
    const o = k * FACTS
    return { price: row[o]!, open: row[o + 1]!, close: row[o + 2]!, longShare: row[o + 3]!, low: row[o + 4]!, high: row[o + 5]! }
  }

  private midsOf(h: number): Float64Array {
    if (this.midsHour !== h) {
      const row = this.compute(h)
      if (!this.facts.has(h)) this.keep(h, row)
    }
    return this.mids
  }

  private keep(h: number, row: Float64Array): void {
    this.facts.set(h, row)
    if (this.facts.size > FACT_HOURS_KEPT) this.facts.delete(this.facts.keys().next().value!)
  }

  /**
   * Hour h of every perp market: the mids at its boundaries (kept for the hour's minutes), where its new positions
   * were opened and how they split (the minute plan's expected activity and taker-buy share), and its open
   * interest change (the venue's samples' formula, unrounded, at the hour's last millisecond and the one before).
   */
  private compute(h: number): Float64Array {
    const start = ORIGIN_TS + h * HOUR_MS
    const path = this.path
    path.ensureSlow(start)
    path.prepare(start)
    const row = new Float64Array(this.perps.length * FACTS)
    for (let k = 0; k < this.perps.length; k++) {
      const mk = this.perps[k]!
      const ch = path.hours[mk.coinIndex]!
      const mids = this.mids.subarray(k * 61, k * 61 + 61)
      let low = Infinity
      let high = -Infinity
      for (let i = 0; i <= 60; i++) {
        const p = ch.fair[i]! * path.relMid(mk, ch.prem[i]!, start + i * MINUTE_MS)
        mids[i] = p
        if (p < low) low = p
        if (p > high) high = p
      }
      let act = 0
      let value = 0
      let buys = 0
      for (let i = 0; i < 60; i++) {
        const z = Math.log(mids[i + 1]! / mids[i]!) / ch.sigmaMin
        const a = minuteActivity(ch, mk, start + i * MINUTE_MS, i, z)
        act += a
        value += a * 0.5 * (mids[i]! + mids[i + 1]!)
        buys += a * (i === ch.cascadeMinute ? cascadeTakerBuy(ch) : meanTakerBuy(z))
      }
      const oi0 = venueOpenInterest(mk, start - 1, ch.oi[0]!)
      const oi1 = venueOpenInterest(mk, start + HOUR_MS - 1, ch.oi[60]!)
      const o = k * FACTS
      row[o] = value / act
      row[o + 1] = Math.max(0, oi1 - oi0)
      row[o + 2] = oi1 < oi0 ? (oi0 - oi1) / oi0 : 0
      row[o + 3] = buys / act
      row[o + 4] = low
      row[o + 5] = high
    }
    this.midsHour = h
    return row
  }
}
