// The typed-array rings behind the hot series (series.ts): one per market's bars and per exchange's samples.
import type { CandleSource } from '../domain/bars.js'
import type { ExchangeId, MarketType } from '../domain/exchanges.js'

/** a perp sample as the series keeps it: the latest of its bucket */
export interface SampleCell {
  ts: number
  oi: number | null
  mark: number | null
  rate: number | null
  interval: number | null
}

/**
 * Fixed-capacity buckets of one track (a market's bars, an exchange's samples), in typed arrays: a bucket lives in
 * slot (ts / bucketMs) mod capacity, so a newer bucket takes the slot of one `capacity` buckets older. Numbers
 * stay unboxed (an object per cell cost ~10 heap objects: 100 MB for the default 30 days), and nothing is
 * allocated per write.
 */
export class Ring {
  /** bucket open time held by each slot, NaN when empty */
  readonly held: Float64Array
  /** `width` values per slot */
  readonly data: Float64Array

  constructor(
    readonly capacity: number,
    readonly width: number,
    readonly bucketMs: number,
    /** the arrays of a ring of this shape to hold (a snapshot's, series-snapshot.ts); fresh empty ones when absent */
    from?: { held: Float64Array; data: Float64Array },
  ) {
    this.held = from?.held ?? new Float64Array(capacity).fill(Number.NaN)
    this.data = from?.data ?? new Float64Array(capacity * width)
  }

  private slot(ts: number): number {
    const i = Math.floor(ts / this.bucketMs) % this.capacity
    return i < 0 ? i + this.capacity : i
  }

  /** offset of bucket ts's values in data, or -1 */
  find(ts: number): number {
    const s = this.slot(ts)
    return this.held[s] === ts ? s * this.width : -1
  }

  /** offset for writing bucket ts (a fresh slot is NaN-filled); -1 when its slot already holds a newer bucket */
  claim(ts: number): number {
    const s = this.slot(ts)
    const held = this.held[s]!
    if (held > ts) return -1
    const o = s * this.width
    if (held !== ts) {
      this.held[s] = ts
      this.data.fill(Number.NaN, o, o + this.width)
    }
    return o
  }
}

// bar track columns (BUY, SELL, QUOTE, TRADES: NaN = null, the bar's source does not give it; SOURCE: SOURCES' index)
export const OPEN = 0, HIGH = 1, LOW = 2, CLOSE = 3, VOLUME = 4, BUY = 5, SELL = 6, QUOTE = 7, TRADES = 8, SOURCE = 9, NO_SPLIT = 10, KLINE = 11, BAR_WIDTH = 12
/** a bar's source as the SOURCE column holds it */
export const SOURCES: readonly CandleSource[] = ['trades', 'venue_kline', 'simulated']
// sample track columns (NaN = null)
export const S_TS = 0, S_OI = 1, S_MARK = 2, S_RATE = 3, S_INTERVAL = 4, SAMPLE_WIDTH = 5

export interface BarTrack {
  exchange: ExchangeId
  marketType: MarketType
  ring: Ring
}
export interface SampleTrack {
  exchange: ExchangeId
  ring: Ring
}

export const orNull = (v: number): number | null => (Number.isNaN(v) ? null : v)
export const orNaN = (v: number | null): number => v ?? Number.NaN
