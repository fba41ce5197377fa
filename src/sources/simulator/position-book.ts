// One simulated perp market's leveraged positions (docs/simulator.md#liquidations): each hour's new open interest is
// one batch at the hour's entry price, split long/short and spread over the position classes (the leverage mix of
// src/analytics/leverage-tiers.ts on the venue's tiers); a fall in open interest closes the same fraction of every
// batch; the market's mid crossing a class's liquidation price liquidates it. A book at hour h holds the batches of
// the `horizon` hours before h only, so a book built from any earlier start agrees with one walked forward.
import { Heap } from 'heap-js'

/** what one hour of one market does to its positions */
export interface HourFacts {
  /** where the hour's new positions were opened (activity-weighted mean mid) */
  price: number
  /** coins of new positions: the rise of the venue's open interest over the hour (0 when it fell) */
  open: number
  /** the fraction of every open position closed: the fall of open interest over its level at the hour's start */
  close: number
  /** the share of new positions that are long (the expected taker-buy share of the hour's flow) */
  longShare: number
  /** the extremes of the market's mid at the hour's 61 minute boundaries */
  low: number
  high: number
}

/** one side's classes: liquidation price per unit of entry price, in sweep order (longs descending, shorts ascending) */
export interface SideClasses {
  factors: readonly number[]
  weights: readonly number[]
}

/** what one minute liquidated on one side: coins, and how many (batch, class) groups they came from */
export interface Swept {
  coins: number
  groups: number
}

interface Batch {
  hour: number
  price: number
  /** coins opened on this side */
  coins: number
  /** the next class not yet liquidated, and its liquidation price */
  next: number
  key: number
}

/** a binary heap of batches, the batch whose next liquidation price a move reaches first on top */
class BatchHeap {
  private heap: Heap<Batch>
  constructor(private readonly long: boolean) {
    this.heap = this.empty()
  }

  private empty(): Heap<Batch> {
    return new Heap<Batch>(this.long ? (a, b) => b.key - a.key : (a, b) => a.key - b.key)
  }

  get top(): Batch | undefined {
    return this.heap.peek()
  }

  push(b: Batch): void {
    this.heap.push(b)
  }

  pop(): Batch {
    return this.heap.pop()!
  }

  /** drop the batches opened before `hour` */
  compact(hour: number): void {
    const keep = this.heap.toArray().filter((b) => b.hour >= hour)
    this.heap = this.empty()
    this.heap.init(keep)
  }
}

export class PositionBook {
  /** the hour in progress: every earlier hour's batch is in, its sweeps and closes applied */
  hour: number
  /** minutes of the hour in progress swept so far */
  private sweptTo = 0
  private runLow = NaN
  private runHigh = NaN
  private readonly longHeap = new BatchHeap(true)
  private readonly shortHeap = new BatchHeap(false)
  /** close fraction of each hour, by hour mod (horizon + 1) */
  private readonly closes: Float64Array
  /** survival[d]: what is left of a batch opened d hours before the hour in progress; computed once per hour */
  private survival: Float64Array | null = null
  private readonly picked: { b: Batch; c: number }[] = []

  constructor(
    private readonly longs: SideClasses,
    private readonly shorts: SideClasses,
    /** hours of batches a book holds */
    readonly horizon: number,
    /** the first hour whose batch it takes */
    start: number,
  ) {
    this.hour = start
    this.closes = new Float64Array(horizon + 1)
  }

  /** whether minute i of hour h can be generated from here (a book cannot go back) */
  reaches(h: number, i: number): boolean {
    return h > this.hour || (h === this.hour && i >= this.sweptTo)
  }

  /**
   * Minute i of the hour in progress, given the hour's 61 boundary mids: the minutes before it not yet swept are
   * swept without a record; minute i's liquidations (its end mid reaching a class's price) are added to long/short.
   */
  minute(i: number, mids: ArrayLike<number>, long: Swept, short: Swept): void {
    if (i < this.sweptTo) throw new RangeError(`minute ${i} of hour ${this.hour} was swept already`)
    if (this.sweptTo === 0) this.runLow = this.runHigh = mids[0]!
    for (let j = this.sweptTo; j <= i; j++) {
      const p = mids[j + 1]!
      if (p < this.runLow) this.runLow = p
      if (p > this.runHigh) this.runHigh = p
      if (j === i) {
        this.sweepSide(this.longHeap, this.longs, this.runLow, long)
        this.sweepSide(this.shortHeap, this.shorts, this.runHigh, short)
      } else this.sweep(this.runLow, this.runHigh)
    }
    this.sweptTo = i + 1
  }

  /** end the hour in progress with its facts: its whole range sweeps, then its open interest opens or closes */
  endHour(f: HourFacts): void {
    this.sweep(f.low, f.high)
    const h = this.hour
    this.closes[h % this.closes.length] = f.close > 0 ? Math.min(1, f.close) : 0
    if (f.open > 0 && f.price > 0) {
      const ls = Math.min(1, Math.max(0, f.longShare))
      this.add(this.longHeap, this.longs, h, f.price, f.open * ls)
      this.add(this.shortHeap, this.shorts, h, f.price, f.open * (1 - ls))
    }
    this.hour = h + 1
    this.sweptTo = 0
    this.survival = null
    // expired batches leave the heaps when swept; the rest once a day
    if (this.hour % 24 === 0) {
      this.longHeap.compact(this.hour - this.horizon)
      this.shortHeap.compact(this.hour - this.horizon)
    }
  }

  private add(heap: BatchHeap, side: SideClasses, hour: number, price: number, coins: number): void {
    if (coins > 0 && side.factors.length) heap.push({ hour, price, coins, next: 0, key: price * side.factors[0]! })
  }

  private sweep(low: number, high: number): void {
    this.sweepSide(this.longHeap, this.longs, low, null)
    this.sweepSide(this.shortHeap, this.shorts, high, null)
  }

  /** liquidate every class the price reached (longs at or above it, shorts at or below); with `out`, sum what left */
  private sweepSide(heap: BatchHeap, side: SideClasses, price: number, out: Swept | null): void {
    // longs are reached at or above the price, shorts at or below (no closure: this runs for every market-minute)
    const sign = heap === this.longHeap ? 1 : -1
    const target = sign * price
    const minHour = this.hour - this.horizon
    const n = side.factors.length
    const picked = this.picked
    picked.length = 0
    while (heap.top && sign * heap.top.key >= target) {
      const b = heap.pop()
      if (b.hour < minHour) continue
      while (b.next < n && sign * b.price * side.factors[b.next]! >= target) {
        if (out) picked.push({ b, c: b.next })
        b.next++
      }
      if (b.next < n) {
        b.key = b.price * side.factors[b.next]!
        heap.push(b)
      }
    }
    if (!out || !picked.length) return
    // summed in (hour, class) order: the same float sum whatever order the heap gave them in
    picked.sort((x, y) => x.b.hour - y.b.hour || x.c - y.c)
    const survival = this.survivalNow()
    for (const { b, c } of picked) out.coins += b.coins * side.weights[c]! * survival[this.hour - b.hour]!
    out.groups += picked.length
  }

  /** survival[d] = Π (1 − close) over the hours after a batch of hour (hour − d) up to the hour in progress */
  private survivalNow(): Float64Array {
    if (this.survival) return this.survival
    const s = new Float64Array(this.horizon + 1)
    s[1] = 1
    for (let d = 1; d < this.horizon; d++) {
      const h = this.hour - d
      s[d + 1] = s[d]! * (h >= 0 ? 1 - this.closes[h % this.closes.length]! : 1)
    }
    this.survival = s
    return s
  }
}
