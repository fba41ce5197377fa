// The market snapshot is expensive (every model over every coin), so it is computed once per refresh of the
// underlying data and served from memory, saying when it was computed. A request after a refresh gets the previous
// result at once while the new one is computed (stale-while-revalidate), but never one older than a refresh period
// plus one tick: then it waits for the new one.
import { buildOiChanges } from '../analytics/oi-changes.js'
import { buildSnapshot, type Snapshot, type SnapshotCoinInput, type VenueQuote } from '../analytics/snapshot.js'
import { buildSpread } from '../analytics/spread.js'
import { buildWeightedFunding } from '../analytics/funding.js'
import { EXCHANGE_IDS } from '../domain/exchanges.js'
import type { Services } from '../services.js'
import type { Coverage } from '../analytics/coverage.js'
import { divergenceLookbackMinutes } from '../analytics/divergence.js'
import { HOUR_MS, MINUTE_MS, floorTo } from '../domain/time.js'
import { coverageOf, rangesOf } from './schema/common.js'
import { DATA_TICK_MS } from '../market/state.js'
import { createMarketLoaders, loadAll, markRows } from './market-data.js'
import { coinDivergence, coinRegime, priceChange24h, seriesHistory } from './signal-inputs.js'

export interface SnapshotResult extends Snapshot {
  /** the venues the snapshot covers and the history its statistics read */
  coverage: Coverage
  /** when this snapshot was computed, Unix ms */
  computedAt: number
  /** the newest data it includes */
  asOf: number
  /** series version it was computed from */
  version: number
}

interface Slot {
  current: SnapshotResult | null
  pending: Promise<SnapshotResult> | null
}
const slots = new WeakMap<Services, Slot>()

export async function computeSnapshot(services: Services, now: number): Promise<SnapshotResult> {
  const { market } = services
  const version = market.series.version
  const coins = [...market.coins()]
  const loaders = createMarketLoaders(market, now)
  // tickers and books come from the live cache; the history comes from the hot series, not the store, so a
  // refresh reads nothing from disk and never stalls other requests
  const [tickers, books] = await Promise.all([loadAll(loaders.tickers, coins), loadAll(loaders.books, coins)])
  const inputs: SnapshotCoinInput[] = coins.map((coin, i) => {
    const h = seriesHistory(market, coin, now)
    const spread = buildSpread({ coin, current: markRows(tickers[i]!), history: markRows(h.oiSamples), now })
    const funding = buildWeightedFunding({ coin, samples: h.fundingSamples, now })
    const oi = buildOiChanges({ coin, samples: h.oiSamples, now })
    const { price, changePct } = priceChange24h(market, coin, now)
    const venues: VenueQuote[] = tickers[i]!.filter((t) => now - t.ts <= 60_000).map((t) => {
      const book = books[i]!.find((b) => b.exchange === t.exchange && now - b.ts <= 60_000)
      return {
        exchange: t.exchange,
        price: t.markPrice,
        bid: book?.bids[0]?.price ?? null,
        ask: book?.asks[0]?.price ?? null,
        fundingRate: t.fundingRate,
        fundingIntervalHours: t.fundingIntervalHours,
      }
    })
    const regime = coinRegime(market, coin, now)
    return {
      coin,
      price,
      fundingZ: funding.zScore.value,
      spreadZ: spread.zScore.value,
      oiChange24hPct: oi.aggregate.changes['24h'].pct,
      priceChange24hPct: changePct,
      regime: regime.regime,
      regimeExchanges: EXCHANGE_IDS.filter((e) => regime.exchanges.includes(e) || regime.oiExchanges.includes(e)),
      divergence: coinDivergence(market, coin, now),
      venues,
    }
  })
  // every venue with a fresh ticker for some coin, against the longest history the snapshot reads (the 4h divergence)
  const used = new Set(inputs.flatMap((c) => c.venues.map((v) => v.exchange)))
  const from = floorTo(now, MINUTE_MS) - divergenceLookbackMinutes('4h') * MINUTE_MS
  const closes = coins.flatMap((coin) => market.series.hours.perpCloses(coin, from, now)).filter((c) => used.has(c.exchange))
  const ranges = rangesOf(closes.map((c) => ({ exchange: c.exchange, ts: floorTo(c.ts, HOUR_MS) })), HOUR_MS)
  const coverage = coverageOf({ services, now }, { used, noData: () => 'no fresh ticker for any coin', requested: { from, to: now }, ranges, toleranceMs: HOUR_MS })
  return { ...buildSnapshot(inputs), computedAt: services.clock(), asOf: now, version, coverage }
}

/** the snapshot is recomputed when the data moved or when it is older than this */
export const SNAPSHOT_REFRESH_MS = DATA_TICK_MS
/** a cached snapshot is served only while no older than one refresh period plus one tick */
export const SNAPSHOT_MAX_AGE_MS = SNAPSHOT_REFRESH_MS + DATA_TICK_MS

export function getSnapshot(services: Services): Promise<SnapshotResult> {
  let slot = slots.get(services)
  if (!slot) slots.set(services, (slot = { current: null, pending: null }))
  const s = slot
  const cur = s.current
  const age = cur ? services.clock() - cur.computedAt : Infinity
  const upToDate = cur !== null && cur.version === services.market.series.version && age <= SNAPSHOT_REFRESH_MS
  if (!upToDate && !s.pending) {
    s.pending = computeSnapshot(services, services.clock()).then(
      (r) => ((s.current = r), (s.pending = null), r),
      (e: unknown) => {
        s.pending = null
        throw e
      },
    )
    // keep the rejection of a background refresh from going unhandled
    s.pending.catch((err: unknown) => services.logger.warn({ err }, 'snapshot refresh failed'))
  }
  return cur && age <= SNAPSHOT_MAX_AGE_MS ? Promise.resolve(cur) : s.pending!
}
