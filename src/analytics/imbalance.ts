// Order-book imbalance for /v1/flow/imbalance: USD depth within ±band of the mid on each side, and bid/ask ratio,
// per exchange and aggregated by summing depths before taking the ratio. A band is a number only where the venue's
// snapshot reaches its edge on both sides; otherwise it is null with the reason, never a sum that looks complete.
import type { BookLevel, BookReach, WideBook } from '../domain/books.js'
import type { ExchangeId } from '../domain/exchanges.js'
import { latestPerExchange } from './ticker.js'

/** band half-widths, percent of mid */
export const IMBALANCE_BANDS_PCT = [0.5, 1, 2, 5] as const
/** a book snapshot (or a wide snapshot of it) older than this is reported but left out of the aggregate */
export const IMBALANCE_MAX_BOOK_AGE_MS = 60_000
/** the source name of the venue's main snapshot */
const MAIN_BOOK = 'book'

export interface BandDepth {
  bandPct: number
  /** Σ price × size of bids with price >= mid × (1 - band), USD; null when no snapshot reaches the band */
  bidDepthUsd: number | null
  /** Σ price × size of asks with price <= mid × (1 + band), USD; null when no snapshot reaches the band */
  askDepthUsd: number | null
  /** bid / ask; null when ask depth is 0 or the band is not reached */
  ratio: number | null
  /** the snapshot the band was measured on: "book" (the venue's own) or a wide one (e.g. "nSigFigs=3") */
  source: string | null
  /** bucket width of that snapshot as % of mid (0 for exact prices): the band edge is uncertain by this much */
  granularityPct: number | null
  /** why the band is null */
  reason: string | null
}

export interface BookImbalance {
  bestBid: number | null
  bestAsk: number | null
  mid: number | null
  /** how far below mid the venue's bids reach, % of mid; null when it sent its whole bid side (or the reach is unknown: see reason) */
  bidReachPct: number | null
  /** how far above mid the venue's asks reach, % of mid; null when it sent its whole ask side */
  askReachPct: number | null
  /** why bands is null (an empty side or a crossed book), or why every band is (reach unknown) */
  reason: string | null
  bands: BandDepth[] | null
}

/** a snapshot with how far it reaches: the venue's main book, or what BookInput carries */
export interface ImbalanceBook extends BookReach {
  bids: readonly BookLevel[]
  asks: readonly BookLevel[]
  wide?: readonly WideBook[]
  /** false for a stored snapshot written before reach was recorded (default true) */
  reachKnown?: boolean
}

const usableLevel = (l: BookLevel) => Number.isFinite(l.price) && l.price > 0 && Number.isFinite(l.size) && l.size > 0

const depthRatio = (bid: number, ask: number): number | null => (ask > 0 ? bid / ask : null)

/** two significant figures, for reasons */
const fmt = (x: number) => Number(x.toPrecision(2))

interface Candidate {
  source: string
  bids: readonly BookLevel[]
  asks: readonly BookLevel[]
  bidEnd: number | null
  askEnd: number | null
  granularity: number
}

/** the distance from mid to a side's end, % of mid; null for a whole side */
const reachPct = (mid: number, end: number | null): number | null => (end === null ? null : (Math.abs(mid - end) / mid) * 100)

function measure(c: Candidate, bandPct: number, mid: number): BandDepth {
  const lo = mid * (1 - bandPct / 100)
  const hi = mid * (1 + bandPct / 100)
  let bidDepthUsd = 0
  let askDepthUsd = 0
  for (const l of c.bids) if (l.price >= lo) bidDepthUsd += l.price * l.size
  for (const l of c.asks) if (l.price <= hi) askDepthUsd += l.price * l.size
  return { bandPct, bidDepthUsd, askDepthUsd, ratio: depthRatio(bidDepthUsd, askDepthUsd), source: c.source, granularityPct: (c.granularity / mid) * 100, reason: null }
}

const nullBand = (bandPct: number, reason: string): BandDepth => ({ bandPct, bidDepthUsd: null, askDepthUsd: null, ratio: null, source: null, granularityPct: null, reason })

/** why no snapshot reaches ±bandPct: the main book's reach on the short side(s), and whether wider snapshots were tried */
function shortReason(main: Candidate, wide: readonly Candidate[], bandPct: number, mid: number, staleWide: number): string {
  const lo = mid * (1 - bandPct / 100)
  const hi = mid * (1 + bandPct / 100)
  const short: string[] = []
  if (main.bidEnd !== null && main.bidEnd > lo) short.push(`bids to -${fmt(reachPct(mid, main.bidEnd)!)} %`)
  if (main.askEnd !== null && main.askEnd < hi) short.push(`asks to +${fmt(reachPct(mid, main.askEnd)!)} %`)
  let reason = `the venue's book reaches ${short.join(' and ')} of mid, short of ±${bandPct} %`
  if (wide.length > 0) reason += `; its coarser/deeper snapshots (${wide.map((w) => w.source).join(', ')}) do not reach it either`
  if (staleWide > 0) reason += `; ${staleWide} wider snapshot(s) older than ${IMBALANCE_MAX_BOOK_AGE_MS / 1000} s set aside`
  return reason
}

/**
 * Depth and ratio per band of one snapshot. Each band is measured on the finest snapshot that reaches its edge on
 * both sides (the venue's book first, then its wide snapshots from the finest granularity), with the main book's mid.
 * Levels are filtered by price, so their order does not matter; levels with a non-finite or non-positive price or size
 * are ignored. `fresh` decides which wide snapshots may be used (default: all).
 */
export function bookImbalance(
  book: ImbalanceBook,
  bandsPct: readonly number[] = IMBALANCE_BANDS_PCT,
  fresh: (ts: number) => boolean = () => true,
): BookImbalance {
  const bids = book.bids.filter(usableLevel)
  const asks = book.asks.filter(usableLevel)
  // a loop, not Math.max(...levels): deep books can exceed the argument limit
  let bestBid: number | null = null
  let bestAsk: number | null = null
  for (const l of bids) if (bestBid === null || l.price > bestBid) bestBid = l.price
  for (const l of asks) if (bestAsk === null || l.price < bestAsk) bestAsk = l.price
  const none = { bidReachPct: null, askReachPct: null, bands: null }
  if (bestBid === null || bestAsk === null) return { bestBid, bestAsk, mid: null, reason: bestBid === null ? 'no bids' : 'no asks', ...none }
  if (bestBid > bestAsk) return { bestBid, bestAsk, mid: null, reason: 'crossed book (best bid above best ask)', ...none }
  const mid = (bestBid + bestAsk) / 2
  if (book.reachKnown === false) {
    const reason = 'stored snapshot without its reach (written before reach was recorded): depth bands cannot be told complete'
    return { bestBid, bestAsk, mid, ...none, reason, bands: bandsPct.map((b) => nullBand(b, reason)) }
  }
  const main: Candidate = { source: MAIN_BOOK, bids, asks, bidEnd: book.bidEnd, askEnd: book.askEnd, granularity: 0 }
  const allWide = book.wide ?? []
  const wide: Candidate[] = allWide
    .filter((w) => fresh(w.ts))
    .map((w) => ({ source: w.source, bids: w.bids.filter(usableLevel), asks: w.asks.filter(usableLevel), bidEnd: w.bidEnd, askEnd: w.askEnd, granularity: w.granularity }))
    .sort((a, b) => a.granularity - b.granularity)
  const candidates = [main, ...wide]
  const bands = bandsPct.map((bandPct) => {
    const lo = mid * (1 - bandPct / 100)
    const hi = mid * (1 + bandPct / 100)
    const c = candidates.find((x) => (x.bidEnd === null || x.bidEnd <= lo) && (x.askEnd === null || x.askEnd >= hi))
    return c ? measure(c, bandPct, mid) : nullBand(bandPct, shortReason(main, wide, bandPct, mid, allWide.length - wide.length))
  })
  return { bestBid, bestAsk, mid, bidReachPct: reachPct(mid, book.bidEnd), askReachPct: reachPct(mid, book.askEnd), reason: null, bands }
}

export interface AggregateBand {
  bandPct: number
  bidDepthUsd: number | null
  askDepthUsd: number | null
  ratio: number | null
  /** the venues summed in this band: fresh, valid books that reach it */
  exchanges: ExchangeId[]
  /** the venues with a book that were left out of this band, and why */
  excluded: { exchange: ExchangeId; reason: string }[]
  reason: string | null
}

/** sum depths band by band over the books that reach each band, then take the ratio of the sums */
export function aggregateBands(
  books: readonly { exchange: ExchangeId; bands: readonly BandDepth[] | null; leftOut?: string | null }[],
  bandsPct: readonly number[] = IMBALANCE_BANDS_PCT,
): AggregateBand[] {
  return bandsPct.map((bandPct, i) => {
    let bid = 0
    let ask = 0
    const exchanges: ExchangeId[] = []
    const excluded: { exchange: ExchangeId; reason: string }[] = []
    for (const b of books) {
      const d = b.bands?.[i]
      if (b.leftOut) excluded.push({ exchange: b.exchange, reason: b.leftOut })
      else if (!d || d.bidDepthUsd === null || d.askDepthUsd === null) excluded.push({ exchange: b.exchange, reason: d?.reason ?? 'no depth bands' })
      else {
        bid += d.bidDepthUsd
        ask += d.askDepthUsd
        exchanges.push(b.exchange)
      }
    }
    if (exchanges.length === 0)
      return { bandPct, bidDepthUsd: null, askDepthUsd: null, ratio: null, exchanges, excluded, reason: `no fresh, valid book reaches ±${bandPct} %` }
    return { bandPct, bidDepthUsd: bid, askDepthUsd: ask, ratio: depthRatio(bid, ask), exchanges, excluded, reason: null }
  })
}

export interface BookInput extends ImbalanceBook {
  exchange: ExchangeId
  ts: number
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
    /** books that are fresh and valid (each band says which of them reach it) */
    exchanges: ExchangeId[]
    reason: string | null
    bands: AggregateBand[] | null
  }
}

/** books: the latest snapshot per exchange for one coin (a repeated exchange keeps its newest) */
export function buildImbalance(input: { coin: string; books: readonly BookInput[]; now: number; maxAgeMs?: number }): CoinImbalance {
  const { coin, books, now, maxAgeMs = IMBALANCE_MAX_BOOK_AGE_MS } = input
  const fresh = (ts: number) => now - ts <= maxAgeMs
  const exchanges: ExchangeImbalance[] = latestPerExchange(books).map((b) => ({
    exchange: b.exchange,
    ts: b.ts,
    stale: !fresh(b.ts),
    ...bookImbalance(b, IMBALANCE_BANDS_PCT, fresh),
  }))
  const usable = exchanges.filter((e) => !e.stale && e.bands !== null)
  const leftOut = (e: ExchangeImbalance) => (e.stale ? `book older than ${maxAgeMs / 1000} s` : e.bands === null ? (e.reason ?? 'no depth bands') : null)
  return {
    coin,
    ts: now,
    exchanges,
    aggregate: {
      exchanges: usable.map((e) => e.exchange),
      reason: usable.length === 0 ? 'no fresh, valid book' : null,
      bands: usable.length === 0 ? null : aggregateBands(exchanges.map((e) => ({ exchange: e.exchange, bands: e.bands, leftOut: leftOut(e) }))),
    },
  }
}
