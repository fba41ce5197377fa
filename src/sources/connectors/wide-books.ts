// Coarser or deeper snapshots of a book, polled beside the main one so the wide depth bands can be measured where
// the main snapshot stops short (Hyperliquid's 20 levels at nSigFigs aggregations, OKX's 5 000-level books-full).
import type { OrderBook } from 'ccxt'
import type { WideBook } from '../../domain/books.js'
import { wideBook, type BookDepth, type MarketRef } from './mapping.js'

export interface WideBookSource {
  /** names the snapshot in the payload, e.g. "nSigFigs=3" */
  source: string
  /** levels per side the venue sends at most for it */
  depth: BookDepth
  /** bucket width in price units at a mid price (0 for exact prices) */
  granularity: (mid: number) => number
  fetch: () => Promise<OrderBook>
}

/** Fetches every source; the ones that answered, finest first. Rejects only when all failed (the loop backs off). */
export async function fetchWideBooks(ref: MarketRef, sources: readonly WideBookSource[], opts: { now: number; band: number }): Promise<WideBook[]> {
  const results = await Promise.allSettled(sources.map((s) => s.fetch()))
  const out: WideBook[] = []
  results.forEach((r, i) => {
    const s = sources[i]!
    if (r.status !== 'fulfilled') return
    const w = wideBook(ref, r.value, { source: s.source, depth: s.depth, granularity: s.granularity, now: opts.now, band: opts.band })
    if (w) out.push(w)
  })
  if (out.length === 0 && results.some((r) => r.status === 'rejected')) throw (results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason
  return out.sort((a, b) => a.granularity - b.granularity)
}

/** Hyperliquid l2Book price aggregation: nSigFigs significant figures -> bucket width at a price */
export function sigFigBucket(nSigFigs: number, price: number): number {
  return price > 0 ? 10 ** (Math.floor(Math.log10(price)) - nSigFigs + 1) : 0
}
