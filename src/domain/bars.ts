// OHLCV bars: what candles, composites and rollups are made of.

/** OHLCV of one time bucket for one market: what candles, composites and rollups are made of. */
export interface Bar {
  /** bucket open time, Unix ms, aligned to the bucket size in UTC */
  ts: number
  open: number
  high: number
  low: number
  close: number
  /** base volume, coin units */
  volume: number
  /** taker-buy base volume */
  buyVolume: number
  /** taker-sell base volume */
  sellVolume: number
  /** sum of price * size, USD: VWAP = quoteVolume / volume */
  quoteVolume: number
  trades: number
}
