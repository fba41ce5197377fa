// GET /v1/signals/snapshot (10 credits): every model over every coin, ranked. Expensive, so computed ahead after each
// data tick (as the other all-coins views are) and served from the cache, saying when it was computed: a request
// after a refresh gets the latest computed one at once while the new one is computed, never one older than a refresh
// period plus one tick: then it waits for the new one.
import { z } from 'zod'
import { divergenceLookbackMinutes } from '../analytics/divergence.js'
import { buildWeightedFunding } from '../analytics/funding.js'
import { buildOiChanges } from '../analytics/oi-changes.js'
import { buildSnapshot, type SnapshotCoinInput, type VenueQuote } from '../analytics/snapshot.js'
import { buildSpread } from '../analytics/spread.js'
import { SnapshotRef, type SnapshotResult } from '../graphql/schema/signals.js'
import { DAY_MS, HOUR_MS, MINUTE_MS, floorTo } from '../domain/time.js'
import { EXCHANGE_IDS, type ExchangeId } from '../domain/exchanges.js'
import { tradablePriceSource } from '../domain/venue-prices.js'
import type { CoverageGap } from '../analytics/coverage.js'
import { coverageOf, hourRanges } from '../read/coverage.js'
import type { MinuteBar } from '../domain/minute-bars.js'
import { lastTradeRows, latestBooks, latestTickers, markRows, noMarkTradeBars } from '../read/market-data.js'
import { closeOutlierGaps, coinDivergence, coinRegime, hourCloseOutliers, priceChange24h, REGIME_SPAN_MS, seriesHistory } from '../read/signal-inputs.js'
import { tickViewLatest } from '../read/tick-views.js'
import { mapInSlices } from '../read/time-slices.js'
import type { Services } from '../services.js'
import { defineEndpoint } from './define.js'

export const snapshot = defineEndpoint({
  path: '/v1/signals/snapshot',
  field: 'snapshot',
  operation: 'snapshot',
  cost: 10,
  summary: 'All coins ranked, active divergences, regime distribution and top arbitrage',
  description: 'Full market snapshot.',
  params: z.object({}),
  type: SnapshotRef,
  resolve: (_v, ctx) => getSnapshot(ctx.services),
})

/** a ticker, book or last trade older than this is not a quote anyone can trade on */
const QUOTE_MAX_AGE_MS = 60_000
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z')

/** every listed coin's snapshot as of `now` (exported for the tests, which compare a served one with it) */
export async function computeSnapshot(services: Services, now: number): Promise<SnapshotResult> {
  const { market } = services
  const version = market.series.version
  const coins = [...market.listedCoins()]
    // tickers and books come from the live cache; the history comes from the hot series, not the store, so a
  // refresh reads nothing from disk and never stalls other requests
  // venues without a mark of their own are priced by their last trades in the spread, as /v1/structure/spread does
  const [tickers, books] = await Promise.all([latestTickers(market, coins, now), latestBooks(market, coins)])
  // venues left out of a figure as outliers, with the coin and figure
  const aside: { exchange: ExchangeId; reason: string }[] = []
  // computed ahead on the tick while callers are served: a coin at a time, giving the loop a turn whenever one slice
  // of CPU (timeSlices' 20 ms) has passed, so the computation never holds it for the whole snapshot
  // (a coin's day of last trades too: read for all coins at once they held the loop about two coins long)
  const inputs = await mapInSlices(coins, async (coin, i) => coinInput(coin, i, await noMarkTradeBars(market, coin, now - DAY_MS - MINUTE_MS, now + 1)))
  function coinInput(coin: string, i: number, trades: MinuteBar[]): SnapshotCoinInput {
    const h = seriesHistory(market, coin, now)
    const lastTrades = lastTradeRows(trades)
    const spread = buildSpread({ coin, current: [...markRows(tickers[i]!), ...lastTrades], history: [...markRows(h.oiSamples), ...lastTrades], now })
    const funding = buildWeightedFunding({ coin, samples: h.fundingSamples, now })
    const oi = buildOiChanges({ coin, samples: h.oiSamples, now })
    const { price, changePct, outliers } = priceChange24h(market, coin, now)
    for (const o of outliers) aside.push({ exchange: o.exchange, reason: `${coin} close of ${iso(o.ts)}: ${o.reason}` })
    for (const o of spread.prices.filter((p) => p.outlier)) aside.push({ exchange: o.exchange, reason: `${coin} spread: ${o.outlierReason}` })
    const venues: VenueQuote[] = tickers[i]!.filter((t) => now - t.ts <= QUOTE_MAX_AGE_MS).map((t) => {
      const book = books[i]!.find((b) => b.exchange === t.exchange && now - b.ts <= QUOTE_MAX_AGE_MS)
      // a venue without a mark of its own is priced by its last trade (current as of its minute's end), never its oracle
      const priceSource = tradablePriceSource(t.exchange)
      const trade = lastTrades.filter((r) => r.exchange === t.exchange && r.ts + MINUTE_MS <= now && now - (r.ts + MINUTE_MS) <= QUOTE_MAX_AGE_MS).sort((a, b) => a.ts - b.ts).at(-1)
      return {
        exchange: t.exchange,
        price: priceSource === 'mark' ? t.markPrice : (trade?.price ?? null),
        priceSource,
        bid: book?.bids[0]?.price ?? null,
        ask: book?.asks[0]?.price ?? null,
        fundingRate: t.fundingRate,
        fundingIntervalHours: t.fundingIntervalHours,
      }
    })
    const regime = coinRegime(market, coin, now)
    const divergence = coinDivergence(market, coin, now)
    const hour = floorTo(now, HOUR_MS)
    for (const [what, o] of [['divergence', divergence.closeOutliers], ['regime', hourCloseOutliers(market, coin, hour - REGIME_SPAN_MS, hour)]] as const)
      for (const g of closeOutlierGaps(o)) aside.push({ exchange: g.exchange, reason: `${coin} ${what}: ${g.reason}` })
    return {
      coin,
      price,
      fundingZ: funding.zScore.value,
      spreadZ: spread.zScore.value,
      oiChange24hPct: oi.aggregate.changes['24h'].pct,
      priceChange24hPct: changePct,
      regime: regime.regime,
      regimeExchanges: EXCHANGE_IDS.filter((e) => regime.exchanges.includes(e) || regime.oiExchanges.includes(e)),
      divergence,
      venues,
    }
  }
  // every venue with a fresh ticker for some coin, against the longest history the snapshot reads (the 4h divergence)
  const used = new Set(inputs.flatMap((c) => c.venues.map((v) => v.exchange)))
  const from = floorTo(now, MINUTE_MS) - divergenceLookbackMinutes('4h') * MINUTE_MS
  const closes = coins.flatMap((coin) => market.series.hours.perpCloses(coin, from, now)).filter((c) => used.has(c.exchange))
  const ranges = hourRanges(closes)
  const snap = buildSnapshot(inputs)
  for (const o of snap.quoteOutliers) aside.push({ exchange: o.exchange, reason: `${o.coin} price arbitrage: ${o.reason}` })
  const gaps = EXCHANGE_IDS.flatMap((exchange): CoverageGap[] => {
    const mine = aside.filter((a) => a.exchange === exchange)
    return mine.length ? [{ exchange, status: 'outlier', reason: mine.map((a) => a.reason).join('; ') }] : []
  })
  const coverage = coverageOf({ services, now }, { used, gaps, noData: () => 'no fresh ticker for any coin', requested: { from, to: now }, ranges, toleranceMs: HOUR_MS })
  return { ...snap, computedAt: services.clock(), asOf: now, version, coverage }
}

/**
 * The snapshot, computed ahead after every data tick with the other all-coins views (src/read/tick-views.ts):
 * a caller is served the latest computed one at once, also while the next is under way, never one older than a
 * refresh period plus one tick (LATEST_MAX_AGE_MS): then it waits for the new one.
 */
function getSnapshot(services: Services): Promise<SnapshotResult> {
  return tickViewLatest(services.market, 'snapshot', services.clock(), (now) => {
    const computing = computeSnapshot(services, now)
    // keep the rejection of a precomputation from going unhandled (a caller that waits on it gets the error)
    computing.catch((err: unknown) => services.logger.warn({ err }, 'snapshot computation failed'))
    return computing
  })
}
