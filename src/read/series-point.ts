// One bucket of a coin with every exchange merged, as the hot series (series.ts) hands it to the models: the
// sums, and the per-venue values behind them so a change can be measured over the same venues at both ends
// (src/analytics/chain-link.ts).
import type { VenueValues } from '../analytics/chain-link.js'
import { OI_SAMPLE_TOLERANCE_MS } from '../analytics/oi-changes.js'
import { EXCHANGE_IDS, type ExchangeId } from '../domain/exchanges.js'
import { MINUTE_MS } from '../domain/time.js'
import { splitOutliers, type PriceOutlier } from '../analytics/price-outliers.js'
import { BUY, CLOSE, HIGH, LOW, QUOTE, SELL, VOLUME, type BarTrack, type SampleCell } from './series-ring.js'

/** a bar without a taker split (a venue kline) or a quote volume holds NaN there: left out of those sums, never counted as 0 */
const known = (v: number): boolean => !Number.isNaN(v)

/**
 * Buckets after its own that a venue's latest sample still stands for it. Minutes: a sample stands for the OI sample
 * tolerance (5 min at the bucket's end, /v1/oi/changes' rule), so history sampled every 5 minutes leaves no minute
 * without the venue: chain-linking needs each venue at both ends of every step, and a 2-minute carry dropped every
 * move of such a tail (docs/methodology.md#how-the-models-are-fed). Hours: two.
 */
export const sampleCarry = (bucketMs: number): number => (bucketMs === MINUTE_MS ? OI_SAMPLE_TOLERANCE_MS / MINUTE_MS - 1 : 2)

/** one bucket of a coin, all exchanges merged */
export interface CoinPoint {
  ts: number
  /** perp close: volume-weighted across exchanges that traded (plain mean when none did), outliers left out */
  close: number | null
  high: number | null
  low: number | null
  /** Σ quote / Σ volume of the perps with a quote volume */
  vwap: number | null
  perpVolume: number
  /** taker buy and sell of the perps with a taker split (coverage names the minutes without: analytics/provenance.ts) */
  perpBuy: number
  perpSell: number
  /** null when the coin has no spot market data in the bucket */
  spotBuy: number | null
  spotSell: number | null
  /** Σ one-sided OI of the exchanges' latest samples (each carried forward sampleCarry buckets), coins: whatever venues are present */
  openInterest: number | null
  /** OI-weighted funding rate normalized to 8 h, over the venues present */
  funding8h: number | null
  /** each venue's carried OI and funding behind the two sums above */
  venues: VenueValues
  /** venues whose perp bars entered close, volumes and flows (canonical order) */
  perpExchanges: ExchangeId[]
  /**
   * venues whose perp bar was left out of the bucket altogether (prices, volumes, flows): its close more than 5 % from
   * the median of the bucket's perp closes (price-outliers.ts), canonical order; with that median
   */
  perpOutliers: PriceOutlier[]
  perpMedian: number | null
  /** venues whose spot bars entered spotBuy / spotSell */
  spotExchanges: ExchangeId[]
}

/** the bucket's point (of one exchange's markets, if given), or null when no market of the coin traded and no sample is carried */
export function mergePoint(ts: number, tracks: readonly BarTrack[], samples: Map<ExchangeId, { cell: SampleCell }>, exchange?: ExchangeId): CoinPoint | null {
  let vol = 0, quote = 0, quoted = 0, buy = 0, sell = 0, wClose = 0, sumClose = 0, nClose = 0, cells = 0
  let high = -Infinity, low = Infinity
  let spotBuy: number | null = null, spotSell: number | null = null
  const perpExchanges: ExchangeId[] = []
  const spotExchanges: ExchangeId[] = []
  const perp: { t: BarTrack; o: number; exchange: ExchangeId; price: number }[] = []
  for (const t of tracks) {
    const o = t.ring.find(ts)
    if (o < 0) continue
    cells++
    if (exchange && t.exchange !== exchange) continue
    const d = t.ring.data
    if (t.marketType === 'spot') {
      if (!known(d[o + BUY]!)) continue
      spotBuy = (spotBuy ?? 0) + d[o + BUY]!
      spotSell = (spotSell ?? 0) + d[o + SELL]!
      spotExchanges.push(t.exchange)
      continue
    }
    perp.push({ t, o, exchange: t.exchange, price: d[o + CLOSE]! })
  }
  // a venue whose close cannot be the same market as the others' is not in the bucket's composite (docs/methodology.md#price-outliers)
  const split = splitOutliers(perp)
  for (const { t, o } of split.kept) {
    const d = t.ring.data
    const v = d[o + VOLUME]!
    const c = d[o + CLOSE]!
    vol += v
    if (known(d[o + QUOTE]!)) {
      quote += d[o + QUOTE]!
      quoted += v
    }
    if (known(d[o + BUY]!)) {
      buy += d[o + BUY]!
      sell += d[o + SELL]!
    }
    wClose += c * v
    sumClose += c
    nClose++
    perpExchanges.push(t.exchange)
    if (d[o + HIGH]! > high) high = d[o + HIGH]!
    if (d[o + LOW]! < low) low = d[o + LOW]!
  }
  if (cells === 0 && samples.size === 0) return null
  let oi = 0, nOi = 0, wRate = 0, wOi = 0
  const venues: VenueValues = { oi: {}, funding: {} }
  for (const [venue, { cell }] of samples) {
    if (cell.oi != null) {
      oi += cell.oi
      nOi++
      venues.oi[venue] = cell.oi
    }
    if (cell.rate != null && cell.interval && cell.oi != null && cell.mark) {
      const usd = cell.oi * cell.mark
      const rate8h = (cell.rate * 8) / cell.interval
      wRate += rate8h * usd
      wOi += usd
      venues.funding[venue] = { rate8h, oiUsd: usd }
    }
  }
  return {
    ts,
    close: nClose === 0 ? null : vol > 0 ? wClose / vol : sumClose / nClose,
    high: nClose ? high : null,
    low: nClose ? low : null,
    vwap: quoted > 0 ? quote / quoted : null,
    perpVolume: vol,
    perpBuy: buy,
    perpSell: sell,
    spotBuy,
    spotSell,
    openInterest: nOi ? oi : null,
    funding8h: wOi > 0 ? wRate / wOi : null,
    venues,
    perpExchanges: EXCHANGE_IDS.filter((e) => perpExchanges.includes(e)),
    spotExchanges: EXCHANGE_IDS.filter((e) => spotExchanges.includes(e)),
    perpOutliers: split.outliers.sort((a, b) => EXCHANGE_IDS.indexOf(a.exchange) - EXCHANGE_IDS.indexOf(b.exchange)),
    perpMedian: split.median,
  }
}
