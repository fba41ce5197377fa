// Keeps the tier book current from the live connectors that can fetch their venue's tiers (OKX, Bybit,
// Hyperliquid, dYdX): shortly after start, then hourly. A failed fetch keeps the previous table and is retried.
import type { FetchedTiers } from './venue-tables.js'
import type { ExchangeId } from '../../domain/exchanges.js'
import type { TierBook } from './book.js'

const TIER_REFRESH_MS = 3600_000
/** the first fetch waits for the connectors to load their markets */
const TIER_FIRST_FETCH_MS = 30_000

export interface TierFetcher {
  readonly exchange: ExchangeId
  fetchLeverageTiers(): Promise<FetchedTiers[]>
}

const fetchesTiers = (c: unknown): c is TierFetcher => typeof (c as Partial<TierFetcher>)?.fetchLeverageTiers === 'function'

/** one pass over every fetcher; a venue that fails is reported to onError and keeps its previous table */
export async function refreshTiers(fetchers: readonly TierFetcher[], book: TierBook, now: () => number, onError: (exchange: ExchangeId, err: unknown) => void): Promise<void> {
  await Promise.all(
    fetchers.map(async (f) => {
      try {
        for (const t of await f.fetchLeverageTiers()) book.set(f.exchange, t.coin, t.tiers, t.unit, t.note, now())
      } catch (err) {
        onError(f.exchange, err)
      }
    }),
  )
}

/** start the periodic refresh; returns a stop function */
export function startTierRefresh(connectors: readonly unknown[], book: TierBook, opts: { now: () => number; warn: (obj: object, msg: string) => void }): () => void {
  if (!connectors.some(fetchesTiers)) return () => {}
  // the connectors of each run: COINS=all replaces them when the universe changes (src/sources/universe/follow.ts)
  const run = () => void refreshTiers(connectors.filter(fetchesTiers), book, opts.now, (exchange, err) => opts.warn({ exchange, err: err instanceof Error ? err.message : String(err) }, 'leverage tiers not fetched; the shipped table stays in use'))
  const first = setTimeout(run, TIER_FIRST_FETCH_MS)
  const timer = setInterval(run, TIER_REFRESH_MS)
  first.unref()
  timer.unref()
  return () => {
    clearTimeout(first)
    clearInterval(timer)
  }
}
