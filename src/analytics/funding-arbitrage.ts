// Funding arbitrage across venues: for every coin and pair of venues with a current funding rate, long the venue that
// pays less (lower 8 h rate), short the one that pays more, and what that earns a year before and after the taker
// fees of opening and closing both legs. Methodology: docs/methodology.md#funding-arbitrage.
import { EXCHANGE_IDS, exchangeById, type ExchangeId, type QuoteCurrency } from '../domain/exchanges.js'
import type { PriceSource } from '../domain/venue-prices.js'
import { SAMPLE_FUNDING_KIND, type FundingKind } from './funding-kind.js'
import { outlierReason, splitOutliers } from './price-outliers.js'

/** rates compared per 8 h */
const NORMAL_HOURS = 8
const HOURS_PER_YEAR = 24 * 365

/** one venue's current funding for a coin */
export interface ArbitrageVenue {
  exchange: ExchangeId
  /** per intervalHours, as the venue publishes it */
  rate: number
  intervalHours: number
  /** the venue's tradable price: its mark, or its last trade where it has no mark of its own */
  price: number | null
  priceSource: PriceSource
  nextFundingTime: number | null
  ts: number
}

export interface ArbitrageLeg {
  exchange: ExchangeId
  rate: number
  intervalHours: number
  rate8h: number
  price: number | null
  nextFundingTime: number | null
  takerFee: number
  /** the currency the leg's price and notional are in */
  quote: QuoteCurrency
  /** which price `price` is (null without one) */
  priceSource: PriceSource | null
  /** the rate is the venue's predicted one (tickers carry the rate of the coming settlement) */
  fundingKind: FundingKind
  /** the leg's price is further than PRICE_OUTLIER_MAX_DEVIATION from the median of the coin's venues: left out of priceSpreadBps */
  priceOutlier: boolean
}

export interface FundingArbitrage {
  rank: number
  coin: string
  long: ArbitrageLeg
  short: ArbitrageLeg
  /** short.rate8h − long.rate8h: what the pair collects per 8 h, per unit of notional on each leg */
  differential8h: number
  /** differential8h × 3 × 365, simple */
  differentialApr: number
  /** (short price − long price) / mid × 1e4: positive when the short leg is entered above the long leg; null with priceSpreadNote */
  priceSpreadBps: number | null
  /** why priceSpreadBps is null (a leg without a price, or an outlier price), else null */
  priceSpreadNote: string | null
  /** the legs' quote currencies, long then short, distinct */
  quotes: QuoteCurrency[]
  /** the legs are in different quote currencies: part of priceSpreadBps is the USDT/USDC rate (not converted) */
  mixedQuotes: boolean
  /** 2 × (long taker fee + short taker fee): open and close both legs */
  feesRoundTrip: number
  /** feesRoundTrip spread over the holding period, per year: feesRoundTrip × 8 760 / holdingHours */
  feesApr: number
  /** differentialApr − feesApr */
  netApr: number
}

const rate8h = (v: ArbitrageVenue) => (v.rate * NORMAL_HOURS) / v.intervalHours

/** every pair of a coin's venues, long the lower 8 h rate (ties: canonical order), unranked */
export function coinArbitrage(coin: string, venues: readonly ArbitrageVenue[], takerFee: (e: ExchangeId) => number, holdingHours: number): Omit<FundingArbitrage, 'rank'>[] {
  const usable = EXCHANGE_IDS.flatMap((e) => venues.filter((v) => v.exchange === e && Number.isFinite(v.rate) && v.intervalHours > 0).slice(-1))
  const out: Omit<FundingArbitrage, 'rank'>[] = []
  const priced = usable.flatMap((v) => (v.price != null && Number.isFinite(v.price) && v.price > 0 ? [{ exchange: v.exchange, price: v.price }] : []))
  // a price far off the coin's other venues (bad tick, stale oracle) is named, never compared
  const split = splitOutliers(priced)
  const outliers = new Map(split.outliers.map((o) => [o.exchange, outlierReason(o, split.median!)]))
  const leg = (v: ArbitrageVenue): ArbitrageLeg => {
    const price = priced.find((p) => p.exchange === v.exchange)?.price ?? null
    return {
      exchange: v.exchange, rate: v.rate, intervalHours: v.intervalHours, rate8h: rate8h(v), price, nextFundingTime: v.nextFundingTime, takerFee: takerFee(v.exchange),
      quote: exchangeById.get(v.exchange)!.quote, priceSource: price === null ? null : v.priceSource, fundingKind: SAMPLE_FUNDING_KIND, priceOutlier: outliers.has(v.exchange),
    }
  }
  const spreadOf = (long: ArbitrageLeg, short: ArbitrageLeg): { bps: number | null; note: string | null } => {
    const aside = [long, short].find((l) => l.priceOutlier)
    if (aside) return { bps: null, note: `${aside.exchange} ${outliers.get(aside.exchange)}` }
    if (long.price === null || short.price === null) return { bps: null, note: `no current price on ${long.price === null ? long.exchange : short.exchange}` }
    return { bps: ((short.price - long.price) / ((short.price + long.price) / 2)) * 1e4, note: null }
  }
  for (let i = 0; i < usable.length; i++)
    for (let j = i + 1; j < usable.length; j++) {
      const a = leg(usable[i]!)
      const b = leg(usable[j]!)
      const [long, short] = b.rate8h < a.rate8h ? [b, a] : [a, b]
      const differential8h = short.rate8h - long.rate8h
      const differentialApr = (differential8h * HOURS_PER_YEAR) / NORMAL_HOURS
      const feesRoundTrip = 2 * (long.takerFee + short.takerFee)
      const feesApr = (feesRoundTrip * HOURS_PER_YEAR) / holdingHours
      const spread = spreadOf(long, short)
      const quotes = [...new Set([long.quote, short.quote])]
      out.push({
        coin, long, short, differential8h, differentialApr, priceSpreadBps: spread.bps, feesRoundTrip, feesApr, netApr: differentialApr - feesApr,
        priceSpreadNote: spread.note, quotes, mixedQuotes: quotes.length > 1,
      })
    }
  return out
}

/** ranked best net APR first; ties by coin, then the long and short venues */
export function rankArbitrage(rows: readonly Omit<FundingArbitrage, 'rank'>[]): FundingArbitrage[] {
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
  return [...rows]
    .sort((a, b) => b.netApr - a.netApr || cmp(a.coin, b.coin) || cmp(a.long.exchange, b.long.exchange) || cmp(a.short.exchange, b.short.exchange))
    .map((r, i) => ({ rank: i + 1, ...r }))
}
