// Order-book levels and how far a snapshot reaches: what the depth analytics read.

export interface BookLevel {
  price: number
  /** size in coin units */
  size: number
}

/** How far a snapshot goes on each side, so a depth band is only a number where the book reaches its edge. */
export interface BookReach {
  /**
   * price of the deepest bid the venue sent (before any trimming on our side); null when it sent its whole bid side
   * (fewer levels than asked for, or a venue that always sends its whole book)
   */
  bidEnd: number | null
  /** price of the deepest ask the venue sent; null when it sent its whole ask side */
  askEnd: number | null
}

/** A coarser (aggregated) or deeper snapshot of the same market, for the bands the main snapshot does not reach. */
export interface WideBook extends BookReach {
  /** what it is, e.g. "nSigFigs=3" (Hyperliquid price aggregation) or "books-full" (OKX, 5 000 levels) */
  source: string
  ts: number
  bids: BookLevel[]
  asks: BookLevel[]
  /** width of its price buckets, in price units (0 for exact prices): a level stands for orders up to one bucket away */
  granularity: number
}
