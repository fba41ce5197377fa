// Order-book imbalance for /v1/flow/imbalance: USD depth within ±band of the mid on each side, and bid/ask ratio,
// per exchange and aggregated by summing depths before taking the ratio.
import type { BookLevel, ExchangeId } from '../market/events.js'
import { latestPerExchange } from './ticker.js'

/** band half-widths, percent of mid */
export const IMBALANCE_BANDS_PCT = [0.5, 1, 2, 5] as const
/** a book snapshot older than this is reported but left out of the aggregate */
export const IMBALANCE_MAX_BOOK_AGE_MS = 60_000

export interface BandDepth {
  bandPct: number
  /** Σ price × size of bids with price >= mid × (1 - band), USD */
  bidDepthUsd: number
  /** Σ price × size of asks with price <= mid × (1 + band), USD */
  askDepthUsd: number
  /** bid / ask; null when ask depth is 0 */
  ratio: number | null
}

export interface BookImbalance {
  bestBid: number | null
  bestAsk: number | null
  mid: number | null
  /** why bands is null: an empty side or a crossed book */
  reason: string | null
  bands: BandDepth[] | null
}

const usableLevel = (l: BookLevel) => Number.isFinite(l.price) && l.price > 0 && Number.isFinite(l.size) && l.size > 0

export const depthRatio = (bid: number, ask: number): number | null => (ask > 0 ? bid / ask : null)

/**
 * Depth and ratio per band of one snapshot. Levels are filtered by price, so their order does not matter;
 * levels with a non-finite or non-positive price or size are ignored.
 */
export function bookImbalance(book: { bids: readonly BookLevel[]; asks: readonly BookLevel[] }, bandsPct: readonly number[] = IMBALANCE_BANDS_PCT): BookImbalance {
  const bids = book.bids.filter(usableLevel)
  const asks = book.asks.filter(usableLevel)
  // a loop, not Math.max(...levels): deep books can exceed the argument limit
  let bestBid: number | null = null
  let bestAsk: number | null = null
  for (const l of bids) if (bestBid === null || l.price > bestBid) bestBid = l.price
  for (const l of asks) if (bestAsk === null || l.price < bestAsk) bestAsk = l.price
  if (bestBid === null || bestAsk === null)
    return { bestBid, bestAsk, mid: null, reason: bestBid === null ? 'no bids' : 'no asks', bands: null }
  if (bestBid > bestAsk) return { bestBid, bestAsk, mid: null, reason: 'crossed book (best bid above best ask)', bands: null }
  const mid = (bestBid + bestAsk) / 2
  const bands = bandsPct.map((bandPct) => {
    const b = bandPct / 100
    const lo = mid * (1 - b)
    const hi = mid * (1 + b)
    let bidDepthUsd = 0
    let askDepthUsd = 0
    for (const l of bids) if (l.price >= lo) bidDepthUsd += l.price * l.size
    for (const l of asks) if (l.price <= hi) askDepthUsd += l.price * l.size
    return { bandPct, bidDepthUsd, askDepthUsd, ratio: depthRatio(bidDepthUsd, askDepthUsd) }
  })
  return { bestBid, bestAsk, mid, reason: null, bands }
}

/** sum depths band by band across books (same bands, same order), then take the ratio of the sums */
export function aggregateBands(perBook: readonly (readonly BandDepth[])[], bandsPct: readonly number[] = IMBALANCE_BANDS_PCT): BandDepth[] {
  return bandsPct.map((bandPct, i) => {
    let bidDepthUsd = 0
    let askDepthUsd = 0
    for (const bands of perBook) {
      const d = bands[i]
      if (!d) continue
      bidDepthUsd += d.bidDepthUsd
      askDepthUsd += d.askDepthUsd
    }
    return { bandPct, bidDepthUsd, askDepthUsd, ratio: depthRatio(bidDepthUsd, askDepthUsd) }
  })
}

export interface BookInput {
  exchange: ExchangeId
  ts: number
  /** best first: bids descending, asks ascending, sizes in coins */
  bids: readonly BookLevel[]
  asks: readonly BookLevel[]
}

export interface ExchangeImbalance extends BookImbalance {
  exchange: ExchangeId
  ts: number
  stale: boolean
}

/** one coin's entry of the /v1/flow/imbalance payload */
export interface CoinImbalance {
  coin: string
  ts: number
  /** exchanges with a snapshot, canonical order */
  exchanges: ExchangeImbalance[]
  aggregate: {
    /** books summed: fresh and valid ones */
    exchanges: ExchangeId[]
    reason: string | null
    bands: BandDepth[] | null
  }
}

/** books: the latest snapshot per exchange for one coin (a repeated exchange keeps its newest) */
export function buildImbalance(input: { coin: string; books: readonly BookInput[]; now: number; maxAgeMs?: number }): CoinImbalance {
  const { coin, books, now, maxAgeMs = IMBALANCE_MAX_BOOK_AGE_MS } = input
  const exchanges: ExchangeImbalance[] = latestPerExchange(books).map((b) => ({
    exchange: b.exchange,
    ts: b.ts,
    stale: now - b.ts > maxAgeMs,
    ...bookImbalance(b),
  }))
  const summed = exchanges.filter((e) => !e.stale && e.bands !== null)
  return {
    coin,
    ts: now,
    exchanges,
    aggregate: {
      exchanges: summed.map((e) => e.exchange),
      reason: summed.length === 0 ? 'no fresh, valid book' : null,
      bands: summed.length === 0 ? null : aggregateBands(summed.map((e) => e.bands!)),
    },
  }
}
