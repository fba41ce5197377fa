// The synthetic market a venue double serves: deterministic from a seed, computable for any minute on its own (no
// state), so a double can answer any page of a 30-day (or multi-year) backfill and a test can derive what it should
// have received from the same series.
//
// Every 1-minute candle is built from that minute's trades (the ones the double also streams over WebSocket), so
// candles, trades and the taker split always agree: open = first trade, close = last, high/low = extremes,
// volume = Σ size, taker-buy volume = Σ size of buyer-initiated trades, trades = count. Prices sit on the market's
// tick and sizes on its lot, so the numbers here are exactly the decimals a venue payload carries.
// Open interest is sampled every 5 minutes, long/short ratios every 5 minutes, funding settles every `intervalHours`
// on the UTC grid. Nothing exists before a market's listing time; a venue's retention is applied by the venue file.
import type { ExchangeId, MarketType } from '../../../src/domain/exchanges.js'

export const MINUTE = 60_000
export const FIVE_MINUTES = 5 * MINUTE
export const HOUR = 60 * MINUTE
export const DAY = 24 * HOUR

/** what the venue's payloads say about one market: its price tick and size lot (from the real market list) */
export interface MarketSpec {
  tick: number
  lot: number
  /** earliest minute with trades (the venue's listing/onboard time) */
  listedAt: number
}

export interface Trade {
  /** deterministic id: minute index × 100 + position in the minute */
  id: number
  ts: number
  price: number
  size: number
  /** buyer-initiated (the taker bought) */
  buy: boolean
}

export interface Candle {
  openTime: number
  open: number
  high: number
  low: number
  close: number
  /** base volume */
  volume: number
  /** Σ price × size */
  quoteVolume: number
  /** taker-buy base volume */
  takerBuyVolume: number
  takerBuyQuoteVolume: number
  trades: number
  /** false for the minute still open at the double's now (partial, as venues serve it) */
  closed: boolean
}

export interface OiPoint {
  ts: number
  /** one side, coins */
  openInterest: number
  /** openInterest × price at ts */
  openInterestUsd: number
}

export interface FundingPoint {
  /** settlement time */
  ts: number
  rate: number
  intervalHours: number
  /** the perp price at settlement */
  markPrice: number
}

export type RatioKind = 'account' | 'top_position'

export interface RatioPoint {
  ts: number
  longShare: number
  shortShare: number
  /** longShare / shortShare */
  ratio: number
}

export interface HistoryOptions {
  venue: ExchangeId
  seed: number
  now: () => number
  /** per coin, per market type the venue lists */
  markets: Record<string, Partial<Record<MarketType, MarketSpec>>>
  /** funding interval per coin, hours (default 8) */
  fundingIntervalHours?: Record<string, number>
}

/** The series of one venue double, per coin and kind. Ranges are [from, to) in ms. */
export interface HistoryData {
  readonly venue: ExchangeId
  readonly seed: number
  now(): number
  /** coins with a market of this type */
  coins(marketType?: MarketType): string[]
  spec(coin: string, marketType: MarketType): MarketSpec | undefined
  /** the trades of [from, to), oldest first, never past now */
  trades(coin: string, marketType: MarketType, from: number, to: number): Trade[]
  /** the candle opening at `openTime` (a minute), null before listing or in the future */
  candle(coin: string, marketType: MarketType, openTime: number): Candle | null
  /** candles opening in [from, to) (minute-aligned), oldest first; the current minute is partial (closed: false) */
  candles(coin: string, marketType: MarketType, from: number, to: number): Candle[]
  /** the price path at any instant (trades sit on it, rounded to the tick) */
  price(coin: string, marketType: MarketType, ts: number): number
  /** 5-minute open-interest samples with ts in [from, to), ts <= now */
  openInterest(coin: string, from: number, to: number): OiPoint[]
  /** open interest at any instant (the live value the double's tickers report) */
  openInterestAt(coin: string, ts: number): number
  /** settlements with ts in [from, to), ts <= now */
  funding(coin: string, from: number, to: number): FundingPoint[]
  /** the rate of the settlement after `ts` as it stands at `ts` (predicted) */
  predictedFunding(coin: string, ts: number): { rate: number; nextFundingTime: number; intervalHours: number }
  /** 5-minute long/short samples with ts in [from, to), ts <= now */
  longShort(coin: string, kind: RatioKind, from: number, to: number): RatioPoint[]
}

// ---- deterministic noise ----------------------------------------------------------------------

export function hashString(s: string): number {
  let h = 2166136261
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619)
  return h >>> 0
}

/** [0, 1) from integers (murmur3-style finaliser over a running mix) */
export function noise(...xs: number[]): number {
  let h = 0x9e3779b9
  for (const x of xs) {
    // fold values beyond 32 bits in, so minute indexes and ms timestamps mix fully
    const lo = x >>> 0
    const hi = Math.floor(x / 4294967296) >>> 0
    h = Math.imul(h ^ lo, 0x85ebca6b)
    h = Math.imul(h ^ (h >>> 13) ^ hi, 0xc2b2ae35)
    h ^= h >>> 16
  }
  return (h >>> 0) / 4294967296
}

export const decimalsOf = (step: number) => Math.max(0, Math.round(-Math.log10(step)))
export const roundTo = (x: number, step: number) => Number((Math.round(x / step) * step).toFixed(decimalsOf(step)))
const round = (x: number, d: number) => Number(x.toFixed(d))

/** a rough price level per coin so the series look like their markets (unknown coins get one from their name) */
const BASE_PRICE: Record<string, number> = { BTC: 60_000, ETH: 3_000, SOL: 150, BNB: 550, XRP: 0.6, DOGE: 0.15, ADA: 0.45, AVAX: 30, LINK: 15, LTC: 80, DOT: 6, SUI: 1.5, APT: 9, ATOM: 8, MATIC: 0.7 }
const VENUE_INDEX: Record<ExchangeId, number> = { binance: 0, bybit: 1, okx: 2, hyperliquid: 3, dydx: 4 }
const CYCLES: ReadonlyArray<readonly [number, number]> = [[7 * DAY, 0.05], [DAY, 0.015], [4 * HOUR, 0.006], [37 * MINUTE, 0.002], [7 * MINUTE, 0.001]]

export function createHistory(opts: HistoryOptions): HistoryData {
  const { venue, seed, now } = opts
  const coinKey = (coin: string) => hashString(coin)
  const basePrice = (coin: string) => BASE_PRICE[coin] ?? 0.5 + 100 * noise(seed, coinKey(coin), 1)

  /** per coin: its phases and level, computed once (the price path is evaluated for every trade) */
  const coinConsts = new Map<string, { c: number; phases: number[]; logBase: number; bias: number }>()
  const consts = (coin: string) => {
    let k = coinConsts.get(coin)
    if (!k) {
      const c = coinKey(coin)
      k = { c, phases: CYCLES.map((_, i) => 2 * Math.PI * noise(seed, c, 10 + i)), logBase: Math.log(basePrice(coin)), bias: 2 * Math.PI * noise(seed, c, 20) }
      coinConsts.set(coin, k)
    }
    return k
  }

  /** log-price: slow cycles (weekly, daily, 4 h, 37 min, 7 min) with per-coin phases; the venue and spot sit a few bps apart */
  function logPrice(coin: string, marketType: MarketType, t: number): number {
    const k = consts(coin)
    let x = k.logBase
    for (let i = 0; i < CYCLES.length; i++) x += CYCLES[i]![1] * Math.sin((2 * Math.PI * t) / CYCLES[i]![0] + k.phases[i]!)
    return x + 0.0003 * (VENUE_INDEX[venue] - 2) + (marketType === 'spot' ? -0.0004 : 0)
  }

  const spec = (coin: string, marketType: MarketType) => opts.markets[coin]?.[marketType]

  function price(coin: string, marketType: MarketType, ts: number): number {
    const s = spec(coin, marketType)
    const p = Math.exp(logPrice(coin, marketType, ts))
    return s ? roundTo(p, s.tick) : p
  }

  /** all trades of one minute (the minute must be at or after listing), unfiltered by now */
  function minuteTrades(coin: string, marketType: MarketType, minute: number, s: MarketSpec): Trade[] {
    const { c, bias: biasPhase } = consts(coin)
    const m = Math.floor(minute / MINUTE)
    const mt = marketType === 'perp' ? 1 : 2
    const n = 4 + Math.floor(noise(seed, c, mt, m, 1) * 16)
    // a slow-moving taker bias (so CVD trends), per minute
    const bias = 0.5 + 0.25 * Math.sin((2 * Math.PI * minute) / (3 * HOUR) + biasPhase)
    // volume per minute: about 0.02 % of a notional of 2 M USD per minute on BTC, scaled by price level
    const meanSize = Math.max(s.lot, (2_000_000 / basePrice(coin) / n) * (marketType === 'spot' ? 0.3 : 1))
    const out: Trade[] = []
    for (let i = 0; i < n; i++) {
      const ts = minute + Math.floor(((i + noise(seed, c, mt, m, 100 + i)) * MINUTE) / n)
      const p0 = Math.exp(logPrice(coin, marketType, ts))
      const jitter = 1 + 0.0002 * (noise(seed, c, mt, m, 200 + i) - 0.5)
      const size = Math.max(s.lot, roundTo(meanSize * (0.2 + 1.6 * noise(seed, c, mt, m, 300 + i)), s.lot))
      out.push({ id: m * 100 + i, ts, price: roundTo(p0 * jitter, s.tick), size, buy: noise(seed, c, mt, m, 400 + i) < bias })
    }
    return out
  }

  function trades(coin: string, marketType: MarketType, from: number, to: number): Trade[] {
    const s = spec(coin, marketType)
    if (!s) return []
    const end = Math.min(to, now() + 1)
    const out: Trade[] = []
    for (let minute = Math.max(Math.floor(from / MINUTE) * MINUTE, Math.ceil(s.listedAt / MINUTE) * MINUTE); minute < end; minute += MINUTE)
      for (const t of minuteTrades(coin, marketType, minute, s)) if (t.ts >= from && t.ts < end) out.push(t)
    return out
  }

  /** closed candles never change: kept (bounded) so repeated pages and expected values are computed once */
  const closedCandles = new Map<string, Candle>()
  function candle(coin: string, marketType: MarketType, openTime: number): Candle | null {
    const s = spec(coin, marketType)
    const t = now()
    if (!s || openTime % MINUTE !== 0 || openTime < s.listedAt || openTime > t) return null
    const key = `${coin}:${marketType}:${openTime}`
    const kept = closedCandles.get(key)
    if (kept && openTime + MINUTE <= t) return kept
    const made = makeCandle(coin, marketType, openTime, s, t)
    if (made.closed) {
      if (closedCandles.size >= 500_000) closedCandles.clear()
      closedCandles.set(key, made)
    }
    return made
  }

  function makeCandle(coin: string, marketType: MarketType, openTime: number, s: MarketSpec, t: number): Candle {
    const all = minuteTrades(coin, marketType, openTime, s)
    const closed = openTime + MINUTE <= t
    const list = closed ? all : all.filter((x) => x.ts <= t)
    const tickD = decimalsOf(s.tick) + decimalsOf(s.lot)
    if (list.length === 0) {
      // the first instants of a minute: the venues open the bar at the last price with nothing traded
      const p = price(coin, marketType, openTime)
      return { openTime, open: p, high: p, low: p, close: p, volume: 0, quoteVolume: 0, takerBuyVolume: 0, takerBuyQuoteVolume: 0, trades: 0, closed }
    }
    let high = -Infinity
    let low = Infinity
    let volume = 0
    let quote = 0
    let buyVolume = 0
    let buyQuote = 0
    for (const x of list) {
      high = Math.max(high, x.price)
      low = Math.min(low, x.price)
      volume += x.size
      quote += x.price * x.size
      if (x.buy) {
        buyVolume += x.size
        buyQuote += x.price * x.size
      }
    }
    return {
      openTime,
      open: list[0]!.price,
      high,
      low,
      close: list.at(-1)!.price,
      volume: roundTo(volume, s.lot),
      quoteVolume: round(quote, tickD),
      takerBuyVolume: roundTo(buyVolume, s.lot),
      takerBuyQuoteVolume: round(buyQuote, tickD),
      trades: list.length,
      closed,
    }
  }

  function candles(coin: string, marketType: MarketType, from: number, to: number): Candle[] {
    const out: Candle[] = []
    for (let m = Math.ceil(from / MINUTE) * MINUTE; m < to; m += MINUTE) {
      const c = candle(coin, marketType, m)
      if (c) out.push(c)
    }
    return out
  }

  const perpListedAt = (coin: string) => spec(coin, 'perp')?.listedAt ?? Infinity

  function openInterestAt(coin: string, ts: number): number {
    const c = coinKey(coin)
    const s = spec(coin, 'perp')
    const base = 1_000_000_000 / basePrice(coin)
    const x = 1 + 0.1 * Math.sin((2 * Math.PI * ts) / (3 * DAY) + 2 * Math.PI * noise(seed, c, 30)) + 0.03 * Math.sin((2 * Math.PI * ts) / (5 * HOUR) + 2 * Math.PI * noise(seed, c, 31))
    return roundTo(base * x * (1 + 0.004 * (noise(seed, c, 32, Math.floor(ts / MINUTE)) - 0.5)), s?.lot ?? 0.001)
  }

  /** grid points step apart with ts in [from, to), from listing, never past now */
  function grid(coin: string, step: number, from: number, to: number): number[] {
    const out: number[] = []
    const end = Math.min(to, now() + 1)
    for (let ts = Math.ceil(Math.max(from, perpListedAt(coin)) / step) * step; ts < end; ts += step) out.push(ts)
    return out
  }

  function openInterest(coin: string, from: number, to: number): OiPoint[] {
    return grid(coin, FIVE_MINUTES, from, to).map((ts) => {
      const oi = openInterestAt(coin, ts)
      return { ts, openInterest: oi, openInterestUsd: round(oi * price(coin, 'perp', ts), 8) }
    })
  }

  const intervalHours = (coin: string) => opts.fundingIntervalHours?.[coin] ?? 8
  function fundingRateAt(coin: string, ts: number): number {
    const c = coinKey(coin)
    const h = intervalHours(coin)
    const perInterval = (0.0001 * h) / 8
    return round(perInterval + perInterval * 1.5 * Math.sin((2 * Math.PI * ts) / (5 * DAY) + 2 * Math.PI * noise(seed, c, 40)) + perInterval * 0.5 * (noise(seed, c, 41, Math.floor(ts / HOUR)) - 0.5), 8)
  }

  function funding(coin: string, from: number, to: number): FundingPoint[] {
    const h = intervalHours(coin)
    return grid(coin, h * HOUR, from, to).map((ts) => ({ ts, rate: fundingRateAt(coin, ts), intervalHours: h, markPrice: price(coin, 'perp', ts) }))
  }

  function predictedFunding(coin: string, ts: number) {
    const h = intervalHours(coin)
    const next = Math.floor(ts / (h * HOUR)) * h * HOUR + h * HOUR
    // the prediction drifts towards the settled value as the settlement nears
    const settled = fundingRateAt(coin, next)
    const drift = (next - ts) / (h * HOUR)
    return { rate: round(settled * (1 - 0.2 * drift), 8), nextFundingTime: next, intervalHours: h }
  }

  function longShort(coin: string, kind: RatioKind, from: number, to: number): RatioPoint[] {
    const c = coinKey(coin)
    const k = kind === 'account' ? 50 : 60
    return grid(coin, FIVE_MINUTES, from, to).map((ts) => {
      const longShare = round(0.5 + 0.12 * Math.sin((2 * Math.PI * ts) / (2 * DAY) + 2 * Math.PI * noise(seed, c, k)) + 0.02 * (noise(seed, c, k + 1, ts / FIVE_MINUTES) - 0.5), 4)
      const shortShare = round(1 - longShare, 4)
      return { ts, longShare, shortShare, ratio: round(longShare / shortShare, 4) }
    })
  }

  return {
    venue,
    seed,
    now,
    coins: (marketType = 'perp') => Object.keys(opts.markets).filter((c) => opts.markets[c]?.[marketType]),
    spec,
    trades,
    candle,
    candles,
    price,
    openInterest,
    openInterestAt,
    funding,
    predictedFunding,
    longShort,
  }
}
