// A coin's merged volume at price over a window (hourly rollups for whole hours, minutes at the edges), cached per
// candle-data version and minute: the volume profile and the cascade's HVN zones both read it.
import type { CoverageGap, WindowRange } from '../analytics/coverage.js'
import { lackGaps } from '../analytics/provenance.js'
import { hvnZones, volumeProfile } from '../analytics/volume-profile.js'
import { HOUR_MS, MINUTE_MS, floorTo } from '../domain/time.js'
import type { ExchangeId, MarketType } from '../domain/exchanges.js'
import type { MarketState } from './state.js'
import type { Vap } from '../domain/volume-at-price.js'
import { vapMerge } from '../domain/minute-vap.js'
import { rangesOf } from './coverage.js'
import { loadBars } from './market-data.js'
import { cacheOf } from './versioned-cache.js'

export interface MergedVap {
  vap: Vap
  exchanges: Set<ExchangeId>
  /** each venue's span in the window (hour rollups for whole hours, minutes at the edges) */
  ranges: Map<ExchangeId, WindowRange>
  /** venues with minutes built from venue klines, which have no volume at price: not in the profile (kline_only) */
  klineOnly: CoverageGap[]
}

export interface VapWindow {
  coin: string
  marketType: MarketType
  start: number
  end: number
  exchange?: ExchangeId
}

const keyOf = (q: VapWindow) => `${q.coin}|${q.marketType}|${q.exchange ?? ''}|${Math.ceil(q.start / MINUTE_MS)}|${Math.ceil(q.end / MINUTE_MS)}`

/** merged volume at price of one coin over [start, end), once per data version and minute */
export function coinVap(market: MarketState, q: VapWindow): Promise<MergedVap> {
  return cacheOf<Promise<MergedVap>>(market, 'vap-merges').get(keyOf(q), market.reader.version('candles'), () => mergeVap(market, q))
}

/** the HVN zones of that merged volume at price (they depend on nothing else) */
export function coinHvnZones(market: MarketState, q: VapWindow): Promise<ReturnType<typeof hvnZones>> {
  return cacheOf<Promise<ReturnType<typeof hvnZones>>>(market, 'vap-zones').get(keyOf(q), market.reader.version('candles'), async () => hvnZones(volumeProfile((await coinVap(market, q)).vap).levels))
}

async function mergeVap(market: MarketState, q: VapWindow): Promise<MergedVap> {
  const bars = await loadBars(market, { ...q, withVap: true, hourly: true })
  const vap: Vap = new Map()
  const exchanges = new Set<ExchangeId>()
  // a bar built from klines alone holds no volume at price: its venue is not in the profile for it (klineOnly says so)
  const traded = bars.filter((b) => b.klineMinutes === 0 || b.vap.size > 0)
  for (const b of traded) {
    vapMerge(vap, b.vap)
    if (b.volume > 0) exchanges.add(b.exchange)
  }
  // loadBars reads whole hours [h0, h1) as hour rollups and the edges as minutes
  const h0 = Math.ceil(q.start / HOUR_MS) * HOUR_MS
  const h1 = floorTo(q.end, HOUR_MS)
  const length = (b: { ts: number }) => (b.ts >= h0 && b.ts < h1 && h1 > h0 ? HOUR_MS : MINUTE_MS)
  const ranges = rangesOf(traded, length)
  return { vap, exchanges, ranges, klineOnly: lackGaps(bars, 'kline_only', length, { from: q.start, to: q.end }) }
}
