// Market snapshot: coins ranked by a composite opportunity/risk score, active divergences, regimes, arbitrage.
// Methodology and limits: docs/methodology.md#snapshot.

import { exchangeById, type ExchangeId } from '../domain/exchanges.js'
import type { PriceSource } from '../domain/venue-prices.js'
import { outlierReason, splitOutliers } from './price-outliers.js'
import type { CoinDivergence, DivergenceDirection, DivergencePair, DivergenceTimeframe } from './divergence.js'
import { REGIMES, type Regime } from './regime.js'

/** weight of each component in the composite score (each component is first scaled to 0..SCORE_CAP) */
const SCORE_WEIGHTS = { funding: 1, spread: 0.5, oi: 1, divergence: 1, momentum: 0.75 } as const
/** one unit of a component: 1 z for funding and spread, 5 % for OI change and price change, 1 active divergence */
const SCORE_UNITS = { funding: 1, spread: 1, oi: 5, divergence: 1, momentum: 5 } as const
/** components saturate at 4 units so one extreme input cannot dominate the ranking */
const SCORE_CAP = 4
const DEFAULT_TOP_ARBITRAGE = 10
/** funding arbitrage is held this long: 3 settlements of 8 h, fees of opening and closing both legs spread over it */
const FUNDING_ARB_HOLDING_HOURS = 24
/** funding rates are compared per 8 h */
const FUNDING_NORMAL_HOURS = 8

type ScoreComponent = keyof typeof SCORE_WEIGHTS

/** one venue's perp quote for a coin */
export interface VenueQuote {
  exchange: ExchangeId
  /** the venue's tradable price: its mark, or its last trade where it has no mark of its own (priceSource) */
  price: number | null
  /** which price `price` is (default mark) */
  priceSource?: PriceSource
  /** best bid / ask when known; arbitrage buys at the ask and sells at the bid, else at price */
  bid?: number | null
  ask?: number | null
  /** funding rate per interval (not annualized) */
  fundingRate: number | null
  fundingIntervalHours: number | null
}

export interface SnapshotCoinInput {
  coin: string
  price: number | null
  /** z of the OI-weighted funding rate (weighted-funding model) */
  fundingZ: number | null
  /** z of the cross-exchange spread (spread model) */
  spreadZ: number | null
  /** OI change over 24 h in coin units, percent */
  oiChange24hPct: number | null
  /** price change over 24 h, percent */
  priceChange24hPct: number | null
  regime: Regime | null
  /** venues whose closes or OI entered the regime's window */
  regimeExchanges?: readonly ExchangeId[]
  divergence: CoinDivergence | null
  venues: readonly VenueQuote[]
}

export interface SnapshotCoin {
  rank: number
  coin: string
  /** 0..100: weighted components over the maximum they could sum to */
  score: number
  price: number | null
  regime: Regime | null
  regimeExchanges: ExchangeId[]
  fundingZ: number | null
  spreadZ: number | null
  oiChange24hPct: number | null
  priceChange24hPct: number | null
  activeDivergences: number
  /** each weighted component's contribution, in score points (they sum to score) */
  components: Record<ScoreComponent, number>
}

export interface SnapshotDivergence {
  coin: string
  pair: DivergencePair
  timeframe: DivergenceTimeframe
  direction: DivergenceDirection
  zScore: number
}

export interface ArbitrageOpportunity {
  type: 'price' | 'funding'
  coin: string
  /** venue to buy / go long on (the cheaper price or the lower funding) */
  longExchange: ExchangeId
  /** venue to sell / go short on */
  shortExchange: ExchangeId
  /** price: spread in bps; funding: funding differential per 8 h x settlements held, bps */
  grossBps: number
  /** price: both venues' taker fee once; funding: open and close both legs */
  feesBps: number
  netBps: number
  /** null for price arbitrage (captured at once) */
  holdingHours: number | null
  /** price arbitrage: what each leg was priced at, the book's best ask / bid or else the venue's price (mark or last_trade); null for funding */
  longPriceSource: LegPriceSource | null
  shortPriceSource: LegPriceSource | null
}

/** what a price-arbitrage leg was priced at */
export type LegPriceSource = 'ask' | 'bid' | PriceSource

/** a venue's quote set aside from a coin's price arbitrage: far off the other venues' */
export interface QuoteOutlier {
  coin: string
  exchange: ExchangeId
  reason: string
}

export interface Snapshot {
  coins: SnapshotCoin[]
  divergences: SnapshotDivergence[]
  regimeDistribution: Record<Regime, number>
  topArbitrage: ArbitrageOpportunity[]
  /** venues whose quote was left out of a coin's price arbitrage as an outlier */
  quoteOutliers: QuoteOutlier[]
}

export interface SnapshotOptions {
  topArbitrage?: number
  /** taker fee per venue as a fraction; defaults to exchanges.ts */
  takerFee?: (exchange: ExchangeId) => number
}

const MAX_SCORE = SCORE_CAP * Object.values(SCORE_WEIGHTS).reduce((a, b) => a + b, 0)

export function buildSnapshot(inputs: readonly SnapshotCoinInput[], options: SnapshotOptions = {}): Snapshot {
  const fee = options.takerFee ?? ((e: ExchangeId) => exchangeById.get(e)?.takerFee ?? 0)
  const topN = options.topArbitrage ?? DEFAULT_TOP_ARBITRAGE

  const scored = inputs.map((c) => {
    const active = c.divergence?.pairs.filter((p) => p.active).length ?? 0
    const components = scoreComponents(c, active)
    const score = Object.values(components).reduce((a, b) => a + b, 0)
    return {
      coin: c.coin,
      score,
      price: c.price,
      regime: c.regime,
      regimeExchanges: [...(c.regimeExchanges ?? [])],
      fundingZ: c.fundingZ,
      spreadZ: c.spreadZ,
      oiChange24hPct: c.oiChange24hPct,
      priceChange24hPct: c.priceChange24hPct,
      activeDivergences: active,
      components,
    }
  })
  scored.sort((a, b) => b.score - a.score || cmp(a.coin, b.coin))
  const coins: SnapshotCoin[] = scored.map((c, i) => ({ rank: i + 1, ...c }))

  const divergences: SnapshotDivergence[] = []
  for (const c of inputs)
    for (const p of c.divergence?.pairs ?? [])
      if (p.active && p.zScore != null)
        divergences.push({ coin: c.coin, pair: p.pair, timeframe: p.timeframe, direction: p.direction, zScore: p.zScore })
  divergences.sort((a, b) => Math.abs(b.zScore) - Math.abs(a.zScore) || cmp(a.coin, b.coin))

  const regimeDistribution = Object.fromEntries(REGIMES.map((r) => [r, 0])) as Record<Regime, number>
  for (const c of inputs) if (c.regime) regimeDistribution[c.regime]++

  const arbs: ArbitrageOpportunity[] = []
  const quoteOutliers: QuoteOutlier[] = []
  for (const c of inputs) {
    const split = splitQuotes(c.venues)
    for (const o of split.outliers) quoteOutliers.push({ coin: c.coin, exchange: o.exchange, reason: outlierReason(o, split.median!) })
    const p = bestPriceArbitrage(c.coin, c.venues, fee)
    if (p) arbs.push(p)
    const f = bestFundingArbitrage(c.coin, c.venues, fee)
    if (f) arbs.push(f)
  }
  arbs.sort((a, b) => b.netBps - a.netBps || cmp(a.coin, b.coin) || cmp(a.type, b.type))

  return { coins, divergences, regimeDistribution, topArbitrage: arbs.slice(0, Math.max(0, topN)), quoteOutliers }
}

/** each component = weight x min(cap, |input| / unit), rescaled so all components together reach at most 100 */
function scoreComponents(c: SnapshotCoinInput, activeDivergences: number): Record<ScoreComponent, number> {
  const part = (k: ScoreComponent, x: number | null) =>
    x == null || !Number.isFinite(x) ? 0 : (100 * SCORE_WEIGHTS[k] * Math.min(SCORE_CAP, Math.abs(x) / SCORE_UNITS[k])) / MAX_SCORE
  return {
    funding: part('funding', c.fundingZ),
    spread: part('spread', c.spreadZ),
    oi: part('oi', c.oiChange24hPct),
    divergence: part('divergence', activeDivergences),
    momentum: part('momentum', c.priceChange24hPct),
  }
}

/**
 * the venues' quotes split by the price outlier rule on one price per venue (its book mid, else its price): a quote far
 * off the others' (a stale oracle, a bad tick) is no arbitrage anyone can take
 */
function splitQuotes(venues: readonly VenueQuote[]) {
  return splitOutliers(venues.flatMap((v) => {
    const bid = positive(v.bid)
    const ask = positive(v.ask)
    const price = bid != null && ask != null ? (bid + ask) / 2 : positive(v.price)
    return price == null ? [] : [{ exchange: v.exchange, price, quote: v }]
  }))
}

/** the best positive cross-venue price arbitrage of a coin: buy at the cheapest ask, sell at the dearest bid; outliers left out */
export function bestPriceArbitrage(
  coin: string,
  venues: readonly VenueQuote[],
  fee: (e: ExchangeId) => number,
): ArbitrageOpportunity | null {
  let best: ArbitrageOpportunity | null = null
  const kept = splitQuotes(venues).kept.map((k) => k.quote)
  const source = (v: VenueQuote, side: 'ask' | 'bid'): LegPriceSource => (positive(v[side]) != null ? side : v.priceSource ?? 'mark')
  for (const buy of kept) {
    const ask = positive(buy.ask) ?? positive(buy.price)
    if (ask == null) continue
    for (const sell of kept) {
      const bid = positive(sell.bid) ?? positive(sell.price)
      if (sell.exchange === buy.exchange || bid == null) continue
      const grossBps = ((bid - ask) / ask) * 1e4
      const feesBps = (fee(buy.exchange) + fee(sell.exchange)) * 1e4
      const netBps = grossBps - feesBps
      if (netBps > 0 && (!best || netBps > best.netBps))
        best = {
          type: 'price', coin, longExchange: buy.exchange, shortExchange: sell.exchange, grossBps, feesBps, netBps, holdingHours: null,
          longPriceSource: source(buy, 'ask'), shortPriceSource: source(sell, 'bid'),
        }
    }
  }
  return best
}

/** the best positive funding differential of a coin: long the low-funding venue, short the high, held 24 h */
export function bestFundingArbitrage(
  coin: string,
  venues: readonly VenueQuote[],
  fee: (e: ExchangeId) => number,
): ArbitrageOpportunity | null {
  const settlements = FUNDING_ARB_HOLDING_HOURS / FUNDING_NORMAL_HOURS
  const rates = venues
    .map((v) => ({ exchange: v.exchange, rate8h: fundingPer8h(v) }))
    .filter((v): v is { exchange: ExchangeId; rate8h: number } => v.rate8h != null)
  let best: ArbitrageOpportunity | null = null
  for (const long of rates) {
    for (const short of rates) {
      if (short.exchange === long.exchange || !(short.rate8h > long.rate8h)) continue
      const grossBps = (short.rate8h - long.rate8h) * 1e4 * settlements
      const feesBps = 2 * (fee(long.exchange) + fee(short.exchange)) * 1e4
      const netBps = grossBps - feesBps
      if (netBps > 0 && (!best || netBps > best.netBps))
        best = {
          type: 'funding',
          coin,
          longExchange: long.exchange,
          shortExchange: short.exchange,
          grossBps,
          feesBps,
          netBps,
          holdingHours: FUNDING_ARB_HOLDING_HOURS,
          longPriceSource: null,
          shortPriceSource: null,
        }
    }
  }
  return best
}

/** funding rate normalized to an 8 h interval (rate x 8 / interval hours) */
export function fundingPer8h(v: Pick<VenueQuote, 'fundingRate' | 'fundingIntervalHours'>): number | null {
  if (v.fundingRate == null || !Number.isFinite(v.fundingRate) || !(v.fundingIntervalHours! > 0)) return null
  return (v.fundingRate * FUNDING_NORMAL_HOURS) / v.fundingIntervalHours!
}

const positive = (x: number | null | undefined) => (x != null && Number.isFinite(x) && x > 0 ? x : null)
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
