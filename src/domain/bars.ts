// OHLCV bars: what candles, composites and rollups are made of, and where each came from.

/**
 * Where a bar came from: folded from the venue's trades ('trades'), the venue's own candle from its REST history or a
 * data dump ('venue_kline'), or folded from the simulator's trades ('simulated', which has every field a trade gives).
 */
export type CandleSource = 'trades' | 'venue_kline' | 'simulated'

/**
 * OHLCV of one time bucket for one market: what candles, composites and rollups are made of.
 * A field the bar's source does not give is null (a venue kline without a taker split, quote volume or trade count):
 * never a zero, never a guess. A bucket folded from finer bars (an hourly rollup of minutes) sums the taker split over
 * the minutes that have one (noSplitMinutes says how many did not); its quote volume and trade count are null unless
 * every minute has them (a partial sum would make VWAP and counts wrong without saying so).
 */
export interface Bar {
  /** bucket open time, Unix ms, aligned to the bucket size in UTC */
  ts: number
  open: number
  high: number
  low: number
  close: number
  /** base volume, coin units (every source gives it) */
  volume: number
  /** taker-buy base volume, over the minutes that have a taker split; null when none has */
  buyVolume: number | null
  /** taker-sell base volume, over the same minutes as buyVolume */
  sellVolume: number | null
  /** sum of price * size, USD: VWAP = quoteVolume / volume; null when a minute of the bucket lacks it */
  quoteVolume: number | null
  /** trade count; null when a minute of the bucket lacks it */
  trades: number | null
  /** the source of the bucket's minutes; a bucket of mixed minutes: 'venue_kline' when any minute is one (klineMinutes says how many) */
  source: CandleSource
  /** minutes of the bucket without a taker split (a minute bar: 1 when buyVolume is null, else 0) */
  noSplitMinutes: number
  /** minutes of the bucket built from venue klines, with no volume at price (a minute bar: 1 when source is 'venue_kline') */
  klineMinutes: number
}

/** a bar with every field a trade gives: folded from trades (live, imported or simulated) */
export interface TradeBar extends Bar {
  buyVolume: number
  sellVolume: number
  quoteVolume: number
  trades: number
}

/** whether the bar has a taker split (over all or some of its minutes) */
const hasSplit = (b: Bar): b is Bar & { buyVolume: number; sellVolume: number } => b.buyVolume !== null && b.sellVolume !== null

/** the provenance of a bucket holding bars of both sources: a venue kline's over anything, the simulator's over trades */
const weakerSource = (a: CandleSource, b: CandleSource): CandleSource =>
  a === 'venue_kline' || b === 'venue_kline' ? 'venue_kline' : a === 'simulated' || b === 'simulated' ? 'simulated' : 'trades'

/** the volumes of a bucket before any bar is folded in (prices are the caller's) */
export const noVolumes = (): Pick<Bar, 'volume' | 'buyVolume' | 'sellVolume' | 'quoteVolume' | 'trades' | 'source' | 'noSplitMinutes' | 'klineMinutes'> => ({
  volume: 0, buyVolume: null, sellVolume: null, quoteVolume: 0, trades: 0, source: 'trades', noSplitMinutes: 0, klineMinutes: 0,
})

/**
 * Fold b's volumes and provenance into acc, by the rule of Bar: the taker split summed over the bars that have one
 * (noSplitMinutes counting the minutes without), quote volume and trade count null once a bar lacks them, kline minutes
 * counted, the weaker source kept. Prices are the caller's.
 */
export function addVolumes(acc: Bar, b: Bar): void {
  acc.volume += b.volume
  if (hasSplit(b)) {
    acc.buyVolume = (acc.buyVolume ?? 0) + b.buyVolume
    acc.sellVolume = (acc.sellVolume ?? 0) + b.sellVolume
  }
  acc.noSplitMinutes += b.noSplitMinutes
  acc.quoteVolume = acc.quoteVolume === null || b.quoteVolume === null ? null : acc.quoteVolume + b.quoteVolume
  acc.trades = acc.trades === null || b.trades === null ? null : acc.trades + b.trades
  acc.klineMinutes += b.klineMinutes
  acc.source = weakerSource(acc.source, b.source)
}
