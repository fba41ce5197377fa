// Per-request batching: every alias or field of one request that asks for a coin's samples, books or tickers is
// served by one reader call for all the coins asked (a Pothos context cache holds the loaders per request).
import { createContextCache } from '@pothos/core'
import DataLoader from 'dataloader'
import type { MarketState } from './state.js'
import { fundingSamples, latestBooks, latestTickers, oiSamples } from './market-data.js'

export const requestLoaders = createContextCache((ctx: { services: { market: MarketState }; now: number }) => {
  const { market } = ctx.services
  return {
    fundingSamples: new DataLoader((coins: readonly string[]) => fundingSamples(market, coins, ctx.now)),
    oiSamples: new DataLoader((coins: readonly string[]) => oiSamples(market, coins, ctx.now)),
    books: new DataLoader((coins: readonly string[]) => latestBooks(market, coins)),
    tickers: new DataLoader((coins: readonly string[]) => latestTickers(market, coins, ctx.now)),
  }
})

/** loadMany that fails when any key failed (a store outage must surface as 503, never as an empty answer) */
export async function loadAll<V>(loader: DataLoader<string, V>, keys: readonly string[]): Promise<V[]> {
  const out = await loader.loadMany(keys)
  for (const v of out) if (v instanceof Error) throw v
  return out as V[]
}
