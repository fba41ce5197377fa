// Candles for /v1/markets/ohlc: stored 1-minute trade aggregates resampled into UTC-aligned buckets,
// for one exchange or as one volume-weighted composite across exchanges, a venue whose close is far off the others'
// left out of that candle and named. Plain arrays in, plain objects out.
import { floorTo } from '../domain/time.js'
import { INTERVAL_MS, LOOKBACK_MS, intervalFitsLookback, type Interval, type Lookback } from '../domain/windows.js'
import { addVolumes, noVolumes, type Bar } from '../domain/bars.js'
import { EXCHANGE_IDS, type ExchangeId, type MarketType } from '../domain/exchanges.js'
import { outlierRuns, splitOutliers, type OutlierRun, type PriceOutlier } from './price-outliers.js'

/** half-open time range [start, end), Unix ms */
export interface TimeWindow {
  start: number
  end: number
}

export function lookbackWindow(lookback: Lookback, end: number): TimeWindow {
  return { start: end - LOOKBACK_MS[lookback], end }
}

/** one candle as the payload carries it (quoteVolume is internal: it is not in the contract) */
export interface Candle extends Omit<Bar, 'quoteVolume'> {
  /** composite only: the exchanges whose prices entered this candle */
  exchanges?: ExchangeId[]
  /** composite only: the exchanges whose bar was left out of this candle, its close an outlier (price-outliers.ts) */
  outliers?: ExchangeId[]
}

interface CompositeBar extends Bar {
  /** exchanges whose prices entered this bucket (volume > 0, or all present when none traded) */
  exchanges: ExchangeId[]
  /** exchanges whose bar was left out of this bucket (prices, volumes, trades): its close an outlier among the bucket's closes */
  outliers: PriceOutlier[]
  /** the median of the bucket's closes the test was made against; null with fewer than 3 venues */
  median: number | null
}

export interface CompositeSeries {
  /** every exchange that entered at least one bucket, canonical order */
  exchanges: ExchangeId[]
  bars: CompositeBar[]
  /** each exchange left out of at least one bucket as an outlier, canonical order */
  outliers: OutlierRun[]
}

export interface OhlcPayload {
  coin: string
  /** the exchange, or 'composite' when the request named none */
  exchange: ExchangeId | 'composite'
  /** exchanges the candles include: [exchange] for one exchange (empty when it had no data), contributors for composite */
  exchanges: ExchangeId[]
  interval: Interval
  lookback: Lookback
  marketType: MarketType
  /** oldest first; empty buckets are omitted */
  candles: Candle[]
  /** composite only: the exchanges left out of some candles as outliers (empty for one exchange) */
  outliers: OutlierRun[]
}

const finite = Number.isFinite
const nonNeg = (x: number) => finite(x) && x >= 0
/** null: the bar's source does not give it */
const nonNegOrNull = (x: number | null) => x === null || nonNeg(x)

/** a bar with a non-finite or non-positive price, or a negative/non-finite count, is dropped so NaN never propagates */
function isUsableBar(b: Bar): boolean {
  return (
    finite(b.ts) &&
    finite(b.open) && b.open > 0 &&
    finite(b.high) && b.high > 0 &&
    finite(b.low) && b.low > 0 &&
    finite(b.close) && b.close > 0 &&
    nonNeg(b.volume) && nonNegOrNull(b.buyVolume) && nonNegOrNull(b.sellVolume) && nonNegOrNull(b.quoteVolume) && nonNegOrNull(b.trades)
  )
}

function foldInto(acc: Bar, b: Bar): void {
  if (b.high > acc.high) acc.high = b.high
  if (b.low < acc.low) acc.low = b.low
  acc.close = b.close
  addVolumes(acc, b)
}

/**
 * Resample one market's bars (1-minute, or any size dividing intervalMs) into buckets floorTo(ts, intervalMs).
 * A bucket belongs to the window when its open time is in [start, end); it folds the input bars with ts in
 * [bucket, min(bucket + interval, end)). So the first candle is never partial and the last may be (in progress).
 * Buckets with no bars are omitted. Output oldest first.
 */
export function resample(bars: readonly Bar[], intervalMs: number, window: TimeWindow = { start: -Infinity, end: Infinity }): Bar[] {
  if (!(intervalMs > 0) || !finite(intervalMs)) throw new RangeError(`intervalMs must be a positive number, got ${intervalMs}`)
  // stable sort: bars sharing a ts keep input order
  const sorted = bars.filter((b) => isUsableBar(b) && b.ts < window.end).sort((a, b) => a.ts - b.ts)
  const out: Bar[] = []
  let cur: Bar | null = null
  for (const b of sorted) {
    const t = floorTo(b.ts, intervalMs)
    if (t < window.start) continue
    if (cur !== null && cur.ts === t) {
      foldInto(cur, b)
    } else {
      if (cur !== null) out.push(cur)
      cur = { ts: t, open: b.open, high: b.high, low: b.low, close: b.close, ...noVolumes() }
      addVolumes(cur, b)
    }
  }
  if (cur !== null) out.push(cur)
  return out
}

/**
 * One series across exchanges, bucket by bucket (inputs already resampled to the same interval).
 * First, an exchange whose close is an outlier among the closes of every exchange present in the bucket (more than
 * 5 % from their median, with 3 or more) is left out of that bucket altogether and named; a bucket left without a
 * venue (its venues in two groups far apart) has no candle. Then volumes, quote volume
 * and trades are summed over the exchanges kept; open/high/low/close are Σ(price_e × volume_e) / Σ volume_e over
 * those with volume > 0, or a plain mean over those kept when none traded.
 */
export function composite(seriesByExchange: Partial<Record<ExchangeId, readonly Bar[]>>): CompositeSeries {
  const buckets = new Map<number, { exchange: ExchangeId; bar: Bar }[]>()
  for (const exchange of EXCHANGE_IDS) {
    const series = seriesByExchange[exchange]
    if (!series) continue
    // one bar per ts and exchange: duplicates are folded first so an exchange is never counted twice
    const own = new Map<number, Bar>()
    for (const b of [...series].filter(isUsableBar).sort((a, c) => a.ts - c.ts)) {
      const prev = own.get(b.ts)
      if (prev) foldInto(prev, b)
      else own.set(b.ts, { ...b })
    }
    for (const [ts, bar] of own) {
      let list = buckets.get(ts)
      if (!list) buckets.set(ts, (list = []))
      list.push({ exchange, bar })
    }
  }

  const used = new Set<ExchangeId>()
  const bars: CompositeBar[] = []
  const skipped: { ts: number; outliers: PriceOutlier[]; median: number | null }[] = []
  for (const ts of [...buckets.keys()].sort((a, b) => a - b)) {
    const present = buckets.get(ts)!
    // a bar whose close cannot be the same market as the others' (bad tick, stale feed, another day) is not averaged in
    const split = splitOutliers(present.map((e) => ({ ...e, price: e.bar.close })))
    const entries = split.kept
    // no venue near the median (an even count split into two groups far apart): no price to give this bucket
    if (!entries.length) {
      skipped.push({ ts, outliers: split.outliers, median: split.median })
      continue
    }
    const traded = entries.filter((e) => e.bar.volume > 0)
    const priced = traded.length > 0 ? traded : entries
    const weight = (b: Bar) => (traded.length > 0 ? b.volume : 1)
    let w = 0
    let o = 0
    let h = 0
    let l = 0
    let c = 0
    for (const { bar } of priced) {
      const k = weight(bar)
      w += k
      o += bar.open * k
      h += bar.high * k
      l += bar.low * k
      c += bar.close * k
    }
    const acc: Bar = { ts, open: o / w, high: h / w, low: l / w, close: c / w, ...noVolumes() }
    for (const { bar } of entries) addVolumes(acc, bar)
    const exchanges = priced.map((e) => e.exchange)
    for (const e of exchanges) used.add(e)
    const outliers = split.outliers.sort((a, b) => EXCHANGE_IDS.indexOf(a.exchange) - EXCHANGE_IDS.indexOf(b.exchange))
    bars.push({ ...acc, exchanges, outliers, median: split.median })
  }
  return { exchanges: EXCHANGE_IDS.filter((e) => used.has(e)), bars, outliers: outlierRuns([...bars, ...skipped].sort((a, b) => a.ts - b.ts)) }
}

function toCandle(b: Bar, composite?: CompositeBar): Candle {
  const c: Candle = {
    ts: b.ts, open: b.open, high: b.high, low: b.low, close: b.close, volume: b.volume, buyVolume: b.buyVolume, sellVolume: b.sellVolume, trades: b.trades,
    source: b.source, noSplitMinutes: b.noSplitMinutes, klineMinutes: b.klineMinutes,
  }
  if (composite) {
    c.exchanges = composite.exchanges
    c.outliers = composite.outliers.map((o) => o.exchange)
  }
  return c
}

export interface OhlcRequest {
  coin: string
  marketType: MarketType
  interval: Interval
  lookback: Lookback
  /** window end, Unix ms (default now at the caller) */
  end: number
  /** omitted = composite across every exchange in minutesByExchange */
  exchange?: ExchangeId
  /** 1-minute bars (candle_1m) per exchange for this coin and market type */
  minutesByExchange: Partial<Record<ExchangeId, readonly Bar[]>>
}

/** the /v1/markets/ohlc payload: resample each exchange over [end - lookback, end), then composite when no exchange is named */
export function buildOhlc(req: OhlcRequest): OhlcPayload {
  if (!intervalFitsLookback(req.interval, req.lookback))
    throw new RangeError(`interval ${req.interval} is longer than lookback ${req.lookback}`)
  const intervalMs = INTERVAL_MS[req.interval]
  const window = lookbackWindow(req.lookback, req.end)
  const head = { coin: req.coin, interval: req.interval, lookback: req.lookback, marketType: req.marketType }
  if (req.exchange !== undefined) {
    const candles = resample(req.minutesByExchange[req.exchange] ?? [], intervalMs, window).map((b) => toCandle(b))
    return { ...head, exchange: req.exchange, exchanges: candles.length > 0 ? [req.exchange] : [], candles, outliers: [] }
  }
  const perExchange: Partial<Record<ExchangeId, Bar[]>> = {}
  for (const e of EXCHANGE_IDS) {
    const minutes = req.minutesByExchange[e]
    if (minutes) perExchange[e] = resample(minutes, intervalMs, window)
  }
  const comp = composite(perExchange)
  return { ...head, exchange: 'composite', exchanges: comp.exchanges, candles: comp.bars.map((b) => toCandle(b, b)), outliers: comp.outliers }
}
