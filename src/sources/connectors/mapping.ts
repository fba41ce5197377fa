// CCXT unified structures -> our normalized events. Venue-neutral: everything venue-specific (which field
// means what, contract sizes, two-sided OI) arrives here through MarketRef and explicit options.
import type { FundingRate, FundingRateHistory, MarketInterface, OpenInterest, OrderBook, Ticker, Trade } from 'ccxt'
import type { BookSnapshotEvent, FundingEvent, OpenInterestEvent, TickerEvent, TradeEvent } from '../../domain/events.js'
import type { BookLevel, WideBook } from '../../domain/books.js'
import type { ExchangeId, MarketType } from '../../domain/exchanges.js'
import { num } from '../../domain/numbers.js'

/** One market a connector follows: our key (exchange, coin, marketType) plus what CCXT needs to address it. */
export interface MarketRef {
  exchange: ExchangeId
  coin: string
  marketType: MarketType
  /** CCXT unified symbol, e.g. BTC/USDT:USDT */
  symbol: string
  /** venue market id, e.g. BTC-USDT-SWAP */
  id: string
  /** per contract: coins (linear) or quote currency (inverse); 1 for spot and coin-sized perps */
  contractSize: number
  inverse: boolean
}

const HOUR_MS = 3_600_000

export function marketRef(exchange: ExchangeId, coin: string, market: MarketInterface): MarketRef {
  const isSpot = market.spot === true
  const contractSize = isSpot ? 1 : (num(market.contractSize) ?? 1)
  return {
    exchange,
    coin,
    marketType: isSpot ? 'spot' : 'perp',
    symbol: market.symbol,
    id: String(market.id),
    contractSize,
    inverse: !isSpot && market.inverse === true,
  }
}

/** Venue amount -> coin units: spot and coin-sized perps as is, linear contracts x contract size, inverse contracts x size / price. */
export function coinSize(ref: MarketRef, amount: number, price: number): number {
  if (ref.marketType === 'spot') return amount
  if (ref.inverse) return price > 0 ? (amount * ref.contractSize) / price : NaN
  return amount * ref.contractSize
}

function baseEvent(ref: MarketRef, ts: number) {
  return { exchange: ref.exchange, coin: ref.coin, marketType: ref.marketType, ts }
}

export function tradeEvent(ref: MarketRef, t: Trade): TradeEvent | null {
  const price = num(t.price)
  const amount = num(t.amount)
  const ts = num(t.timestamp)
  const side = t.side === 'buy' || t.side === 'sell' ? t.side : null
  if (price === null || price <= 0 || amount === null || amount <= 0 || ts === null || side === null) return null
  const size = coinSize(ref, amount, price)
  if (!Number.isFinite(size) || size <= 0) return null
  // every venue we use sends trade ids; the fallback only keeps a malformed trade from being dropped silently
  const id = t.id !== undefined && t.id !== null && t.id !== '' ? String(t.id) : `${ts}:${price}:${amount}:${side}`
  return { type: 'trade', ...baseEvent(ref, ts), id, price, size, side }
}

/** how many levels per side the venue sends at most: a count (fewer back = its whole side), 'whole' (always all), or unknown */
export type BookDepth = number | 'whole' | null

export interface BookOptions {
  /** keep levels within this fraction of mid on each side, plus the first level beyond it (default 0.05 = ±5 %) */
  band?: number
  /** timestamp when the book carries none, Unix ms */
  now: number
  /** levels per side the venue was asked for / sends at most; decides whether a side is whole */
  depth?: BookDepth
}

function levels(ref: MarketRef, side: ReadonlyArray<ReadonlyArray<unknown>>): BookLevel[] {
  const out: BookLevel[] = []
  for (const row of side) {
    const price = num(row[0])
    const amount = num(row[1])
    if (price === null || price <= 0 || amount === null || amount <= 0) continue
    const size = coinSize(ref, amount, price)
    if (Number.isFinite(size) && size > 0) out.push({ price, size })
  }
  return out
}

/** Keep the levels inside the band, and the first one outside so a reader can tell the band is covered. */
function withinBand(side: BookLevel[], inside: (price: number) => boolean): BookLevel[] {
  const firstOutside = side.findIndex((l) => !inside(l.price))
  return firstOutside === -1 ? side : side.slice(0, firstOutside + 1)
}

/** the price of the deepest level sent on a side, or null when the venue sent its whole side (counted as sent, before filtering) */
function sideEnd(sorted: BookLevel[], sentCount: number, depth: BookDepth | undefined, mid: number): number | null {
  if (depth === 'whole' || (typeof depth === 'number' && sentCount < depth)) return null
  // a side with nothing usable that is not known to be whole reaches nowhere: its end is the mid
  return sorted.at(-1)?.price ?? mid
}

interface SortedBook {
  bids: BookLevel[]
  asks: BookLevel[]
  mid: number
  bidEnd: number | null
  askEnd: number | null
}

/** levels in coins, sorted best first, the mid, and how far each side reaches; null when both sides are empty */
function sortedBook(ref: MarketRef, ob: Pick<OrderBook, 'bids' | 'asks'>, depth: BookDepth | undefined): SortedBook | null {
  const bids = levels(ref, ob.bids).sort((a, b) => b.price - a.price)
  const asks = levels(ref, ob.asks).sort((a, b) => a.price - b.price)
  if (bids.length === 0 && asks.length === 0) return null
  const bestBid = bids[0]?.price
  const bestAsk = asks[0]?.price
  const mid = bestBid !== undefined && bestAsk !== undefined ? (bestBid + bestAsk) / 2 : (bestBid ?? bestAsk)!
  return { bids, asks, mid, bidEnd: sideEnd(bids, ob.bids.length, depth, mid), askEnd: sideEnd(asks, ob.asks.length, depth, mid) }
}

/** ±band trimming around `mid`; the reach (bidEnd/askEnd) was taken before it, so it stays the venue's */
function trimmed(b: SortedBook, band: number, mid: number = b.mid): { bids: BookLevel[]; asks: BookLevel[] } {
  return { bids: withinBand(b.bids, (p) => p >= mid * (1 - band)), asks: withinBand(b.asks, (p) => p <= mid * (1 + band)) }
}

export function bookEvent(ref: MarketRef, ob: Pick<OrderBook, 'bids' | 'asks' | 'timestamp'>, opts: BookOptions): BookSnapshotEvent | null {
  const b = sortedBook(ref, ob, opts.depth)
  if (!b) return null
  const ts = num(ob.timestamp) ?? opts.now
  return { type: 'book', ...baseEvent(ref, ts), ...trimmed(b, opts.band ?? 0.05), bidEnd: b.bidEnd, askEnd: b.askEnd }
}

export interface WideBookOptions extends BookOptions {
  source: string
  /** bucket width in price units at a mid price (0 for exact prices) */
  granularity: (mid: number) => number
}

/** A coarser or deeper snapshot -> WideBook, trimmed like a main book; null when empty. */
export function wideBook(ref: MarketRef, ob: Pick<OrderBook, 'bids' | 'asks' | 'timestamp'>, opts: WideBookOptions): WideBook | null {
  const b = sortedBook(ref, ob, opts.depth)
  if (!b) return null
  return {
    source: opts.source,
    ts: num(ob.timestamp) ?? opts.now,
    ...trimmed(b, opts.band ?? 0.05),
    bidEnd: b.bidEnd,
    askEnd: b.askEnd,
    granularity: opts.granularity(b.mid),
  }
}

/** The fields a TickerEvent is assembled from; venues fill what their payloads carry. */
export interface TickerParts {
  ts?: number | null
  markPrice?: number | null
  indexPrice?: number | null
  lastPrice?: number | null
  fundingRate?: number | null
  fundingIntervalHours?: number | null
  nextFundingTime?: number | null
}

/** '8h' -> 8, '30m' -> 0.5; CCXT's FundingRate.interval format. */
export function parseIntervalHours(interval: string | null | undefined): number | null {
  if (!interval) return null
  const m = /^(\d+(?:\.\d+)?)\s*([mhd])$/i.exec(interval.trim())
  if (!m) return null
  const v = Number(m[1])
  const unit = m[2]!.toLowerCase()
  const hours = unit === 'm' ? v / 60 : unit === 'd' ? v * 24 : v
  return hours > 0 ? hours : null
}

export function partsFromFundingRate(fr: FundingRate): TickerParts {
  const ts = num(fr.timestamp)
  let next = num(fr.fundingTimestamp)
  // CCXT's fundingTimestamp is the upcoming settlement on our venues; if a venue ever reports the last one, take the next
  if (next !== null && ts !== null && next < ts) next = num(fr.nextFundingTimestamp) ?? null
  return {
    ts,
    markPrice: num(fr.markPrice),
    indexPrice: num(fr.indexPrice),
    fundingRate: num(fr.fundingRate),
    fundingIntervalHours: parseIntervalHours(fr.interval),
    nextFundingTime: next,
  }
}

export function partsFromTicker(t: Ticker): TickerParts {
  return {
    ts: num(t.timestamp),
    lastPrice: num(t.last),
    markPrice: num(t.markPrice),
    indexPrice: num(t.indexPrice),
  }
}

/** Later parts override earlier ones only where they carry a value. */
export function mergeParts(...parts: Array<TickerParts | undefined>): TickerParts {
  const out: TickerParts = {}
  for (const p of parts) {
    if (!p) continue
    for (const [k, v] of Object.entries(p) as Array<[keyof TickerParts, number | null | undefined]>) {
      if (v !== null && v !== undefined) out[k] = v
    }
  }
  return out
}

export function tickerEvent(ref: MarketRef, parts: TickerParts, now: number): TickerEvent {
  const perp = ref.marketType === 'perp'
  return {
    type: 'ticker',
    ...baseEvent(ref, parts.ts ?? now),
    markPrice: parts.markPrice ?? null,
    indexPrice: parts.indexPrice ?? null,
    lastPrice: parts.lastPrice ?? null,
    fundingRate: perp ? (parts.fundingRate ?? null) : null,
    fundingIntervalHours: perp ? (parts.fundingIntervalHours ?? null) : null,
    nextFundingTime: perp ? (parts.nextFundingTime ?? null) : null,
  }
}

export interface OpenInterestOptions {
  now: number
}

/**
 * For venues whose unified figure is already one-sided (Binance, OKX). CCXT's openInterestAmount is in the venue's amount unit (contracts on OKX, coins elsewhere): converted with the
 * contract size. Falls back to baseVolume, which CCXT fills with coins where the venue reports them separately.
 */
export function openInterestEvent(ref: MarketRef, oi: OpenInterest, opts: OpenInterestOptions): OpenInterestEvent | null {
  const amount = num(oi.openInterestAmount)
  let coins: number | null = null
  if (amount !== null && !ref.inverse) coins = coinSize(ref, amount, 1)
  else coins = num(oi.baseVolume)
  if (coins === null || coins < 0) return null
  return {
    type: 'open_interest',
    ...baseEvent(ref, num(oi.timestamp) ?? opts.now),
    openInterest: coins,
  }
}

/** The funding interval implied by settlement times: median spacing in whole hours, null when it is not a whole hour. */
export function inferIntervalHours(timestamps: readonly number[]): number | null {
  const ts = [...timestamps].sort((a, b) => a - b)
  const diffs: number[] = []
  for (let i = 1; i < ts.length; i++) {
    const d = ts[i]! - ts[i - 1]!
    if (d > 0) diffs.push(d)
  }
  if (diffs.length === 0) return null
  diffs.sort((a, b) => a - b)
  const median = diffs[Math.floor(diffs.length / 2)]!
  const hours = Math.round(median / HOUR_MS)
  // settlements are stamped a few ms to seconds after the hour; anything further off is not a regular schedule
  if (hours < 1 || Math.abs(median - hours * HOUR_MS) > 0.05 * HOUR_MS) return null
  return hours
}

/**
 * Settled funding rates -> FundingEvents, oldest first. The interval is the one the venue states (`knownIntervalHours`),
 * else inferred from the spacing of the rows (plus `previousTs`, the last settlement seen before), else `fallbackIntervalHours`.
 */
export function fundingEvents(
  ref: MarketRef,
  rows: readonly FundingRateHistory[],
  fallbackIntervalHours: number,
  previousTs?: number | null,
  knownIntervalHours?: number | null,
): FundingEvent[] {
  const parsed = rows
    .map((r) => ({ ts: num(r.timestamp), rate: num(r.fundingRate) }))
    .filter((r): r is { ts: number; rate: number } => r.ts !== null && r.rate !== null)
    .sort((a, b) => a.ts - b.ts)
  const stamps = parsed.map((r) => r.ts)
  if (previousTs !== null && previousTs !== undefined) stamps.push(previousTs)
  const intervalHours = knownIntervalHours ?? inferIntervalHours(stamps) ?? fallbackIntervalHours
  return parsed.map((r) => ({ type: 'funding', ...baseEvent(ref, r.ts), rate: r.rate, intervalHours }))
}

/** The next settlement of a venue that settles every `intervalHours` on the UTC hour grid (Hyperliquid, dYdX). */
export function nextFundingOnGrid(now: number, intervalHours: number): number {
  const step = intervalHours * HOUR_MS
  return Math.floor(now / step) * step + step
}
