// For the hot series' tests: random writes (bars and samples over the buckets before a time, in random order, with
// rewrites, partial samples and late samples), and every read the models make of a series, to compare two series.
import type { MinuteBar } from '../../src/domain/minute-bars.js'
import { floorTo } from '../../src/domain/time.js'
import type { ExchangeId, MarketType } from '../../src/domain/exchanges.js'
import type { MarketSample } from '../../src/store/market/samples.js'
import type { CoinSeries } from '../../src/read/series.js'
import { HOUR_MS, MINUTE_MS } from '../../src/domain/time.js'

export const EXCHANGES: ExchangeId[] = ['okx', 'binance', 'hyperliquid']

export function rng(seed: number) {
  return () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
}

export function bar(r: () => number, coin: string, exchange: ExchangeId, marketType: MarketType, ts: number): MinuteBar {
  const p = 100 + r() * 10
  return { exchange, coin, marketType, ts, open: p, high: p * 1.01, low: p * 0.99, close: p + r(), volume: r() < 0.1 ? 0 : r() * 5, buyVolume: r(), sellVolume: r(), quoteVolume: p * r() * 5, trades: Math.floor(r() * 50), source: 'trades', noSplitMinutes: 0, klineMinutes: 0, vap: new Map() }
}

export function sample(r: () => number, coin: string, exchange: ExchangeId, ts: number): MarketSample {
  return {
    exchange, coin, marketType: 'perp', ts, indexPrice: null, lastPrice: null, nextFundingTime: null,
    markPrice: r() < 0.3 ? null : 100 + r(), openInterest: r() < 0.3 ? null : 1000 * r(),
    fundingRate: r() < 0.2 ? null : (r() - 0.5) / 1000, fundingIntervalHours: exchange === 'hyperliquid' ? 1 : 8,
  }
}

/** random writes over the `span` buckets before `now`, in random order, with rewrites */
export function writes(seed: number, bucketMs: number, span: number, now: number) {
  const r = rng(seed)
  const bars: MinuteBar[] = []
  const samples: MarketSample[] = []
  for (let i = 0; i < 1500; i++) {
    const coin = r() < 0.7 ? 'BTC' : 'ETH'
    const exchange = EXCHANGES[Math.floor(r() * 3)]!
    const ts = floorTo(now - Math.floor(r() * span) * bucketMs, bucketMs)
    if (r() < 0.6) bars.push(bar(r, coin, exchange, r() < 0.8 ? 'perp' : 'spot', ts))
    else {
      const at = ts + Math.floor(r() * (bucketMs - 2))
      samples.push(sample(r, coin, exchange, at))
      // often a later one in the same bucket, sometimes without OI or mark (the bucket keeps the earlier values)
      if (r() < 0.5) samples.push(sample(r, coin, exchange, at + 1))
    }
  }
  // and out of order: an earlier sample arriving after a later one of its bucket is ignored
  for (let i = 0; i < samples.length; i += 7) samples.push({ ...samples[i]!, ts: samples[i]!.ts - 1, openInterest: -1, markPrice: -1 })
  return { bars, samples }
}

/** every read the models make, over windows that start inside, at and before what each grid holds */
export function reads(series: CoinSeries, now: number, coins = ['BTC', 'ETH', 'SOL']) {
  const out: unknown[] = []
  for (const [grid, bucketMs, span] of [[series.hours, HOUR_MS, 40 * 24], [series.minutes, MINUTE_MS, 30 * 60]] as const)
    for (const back of [span, span / 2, 7]) {
      const from = now - back * bucketMs + 1
      out.push(grid.covers(from, now), grid.newestBucket, grid.coveredFrom)
      for (const coin of coins) {
        out.push(grid.marketBars(coin, 'perp', from, now), grid.marketBars(coin, 'spot', from, now, 'binance'))
        out.push(grid.perpSamples(coin, from, now), grid.perpCloses(coin, from, now), grid.points(coin, from, now), grid.points(coin, from, now, 'okx'))
      }
    }
  return out
}
