// GET /v1/markets/overview (3 credits): the screener. Every coin with price, 1h/4h/24h change, 24h perp volume,
// aggregate OI in USD and its 24h change, OI-weighted funding and 24h liquidations (the stored orders, as
// /v1/liquidations/history sums them), sorted by any column. Computed for all coins at once from the in-memory series,
// the live values and the stored liquidations, once per data version and minute (the one cache), so a call only sorts.
import { z } from 'zod'
import type { Coverage, CoverageGap } from '../analytics/coverage.js'
import { buildLiquidationCoverage, type LiquidationCoverage } from '../analytics/liquidation-coverage.js'
import { liquidationTotalUsd } from '../analytics/liquidations.js'
import { sampleToVenueRate, weightedFunding, FUNDING_MAX_SAMPLE_AGE_MS } from '../analytics/funding.js'
import { buildOiChanges } from '../analytics/oi-changes.js'
import { SAMPLE_FUNDING_KIND } from '../analytics/funding-kind.js'
import { sortOverview, type OverviewRow } from '../analytics/overview.js'
import { latestPerExchange } from '../analytics/ticker.js'
import { enumParam } from '../domain/params.js'
import { OverviewSort, SortOrder } from '../domain/screener.js'
import { DAY_MS, HOUR_MS, MINUTE_MS, floorTo } from '../domain/time.js'
import { CoverageRef, FundingKindEnum } from '../graphql/schema/common.js'
import { LiquidationCoverageRef } from '../graphql/schema/liquidation-coverage.js'
import { builder } from '../graphql/builder.js'
import { coverageOf, rangesOf } from '../read/coverage.js'
import { perpQuoteVolume, priceChanges, seriesHistory, type CloseOutlier } from '../read/signal-inputs.js'
import { EXCHANGE_IDS } from '../domain/exchanges.js'
import { tickView } from '../read/tick-views.js'
import { mapInSlices } from '../read/time-slices.js'
import type { Services } from '../services.js'
import { defineEndpoint } from './define.js'

const HORIZONS = [HOUR_MS, 4 * HOUR_MS, DAY_MS]

interface Overview {
  asOf: number
  rows: OverviewRow[]
  coverage: Coverage
  liquidationsNote: string
  liquidationCoverage: LiquidationCoverage
}

async function computeOverview(services: Services, now: number): Promise<Overview> {
  const { market } = services
  const to = floorTo(now, MINUTE_MS)
  // liquidations: the minutes starting in [now − 24 h, now), as /v1/liquidations/history?interval=1m&lookback=24h reads them
  const liq = { from: Math.ceil((now - DAY_MS) / MINUTE_MS) * MINUTE_MS, to: now }
  // (read up to the minute after now: the same minute rows, and one read per minute rather than per tick)
  const [minutes, spans] = await Promise.all([market.reader.liquidationMinutes([...market.listedCoins()], liq.from, Math.ceil(now / MINUTE_MS) * MINUTE_MS), market.reader.feedSpans('liquidations', liq.from, liq.to)])
  const liquidationsOf = (coin: string) => {
    const c = buildLiquidationCoverage({ venues: EXCHANGE_IDS, spans: spans.filter((s) => s.coins.includes(coin)), window: liq, now }).coverage
    // nothing collected for the coin (no venue's stream up in the window): null, never a 0 that was not observed
    return c.basis === 'none' ? null : liquidationTotalUsd(minutes.filter((m) => m.coin === coin))
  }
  // a coin at a time, giving the loop a turn whenever a 20 ms slice has passed (computed for every coin on the tick:
  // at 100 coins in one go it held the loop ~385 ms; docs/performance.md, ninth round)
  const rows = await mapInSlices(market.listedCoins(), overviewRow)
  function overviewRow(coin: string): OverviewRow & { outliers: CloseOutlier[] } {
    const p = priceChanges(market, coin, now, HORIZONS)
    const vol = perpQuoteVolume(market, coin, to - DAY_MS, to)
    const { oiSamples } = seriesHistory(market, coin, now)
    const oi = buildOiChanges({ coin, samples: oiSamples, now })
    const funding = weightedFunding(latestPerExchange(oiSamples, { at: now, maxAgeMs: FUNDING_MAX_SAMPLE_AGE_MS }).map(sampleToVenueRate))
    const aside = EXCHANGE_IDS.filter((e) => p.outliers.some((o) => o.exchange === e))
    const outlierNote = aside.length ? `${aside.join(', ')} left out of the price or a change's reference close as an outlier (close more than 5 % from the venues' median)` : null
    const notes = [p.price === null ? 'no perp close in the last 30 minutes' : null, outlierNote, vol.noQuote, oi.aggregate.reason, funding.reason].filter((x) => x !== null)
    return {
      coin,
      price: p.price,
      priceTs: p.ts,
      change1hPct: p.changes[0]!,
      change4hPct: p.changes[1]!,
      change24hPct: p.changes[2]!,
      volume24hUsd: vol.usd,
      oiUsd: oi.aggregate.oiUsd,
      oiChange24hPct: oi.aggregate.changes['24h'].pct,
      funding8h: funding.rate8h,
      fundingKind: funding.rate8h === null ? null : SAMPLE_FUNDING_KIND,
      liquidations24hUsd: liquidationsOf(coin),
      exchanges: vol.exchanges,
      note: notes.length ? notes.join('; ') : null,
      priceOutliers: aside,
      outliers: p.outliers,
    }
  }
  // a venue's span: the hours its perp candles of the last day fall in, ending at the current minute (the hour in
  // progress holds closed minutes up to it, not the whole hour)
  const from = to - DAY_MS
  const bars = [...market.listedCoins()].flatMap((coin) => market.series.hours.perpCloses(coin, floorTo(from, HOUR_MS), now))
  const ranges = rangesOf(bars.map((b) => ({ exchange: b.exchange, ts: floorTo(b.ts, HOUR_MS) })), HOUR_MS)
  for (const r of ranges.values()) r.to = Math.min(r.to, to)
  const coverage = coverageOf({ services, now }, { used: new Set(rows.flatMap((r) => r.exchanges)), gaps: outlierGaps(rows), noData: () => 'no perp candle in the last 24 h for any coin', requested: { from, to: now }, ranges, toleranceMs: HOUR_MS })
  const liquidationCoverage = buildLiquidationCoverage({ venues: EXCHANGE_IDS, spans, window: liq, now }).coverage
  const liquidationsNote = `liquidations_24h_usd sums the stored liquidation orders of the minutes starting in the last 24 h (/v1/liquidations/history at 1m); null for a coin no venue's liquidation stream covered; the sums are ${liquidationCoverage.note}`
  return { asOf: now, rows: rows.map(({ outliers: _, ...row }) => row), coverage, liquidationsNote, liquidationCoverage }
}

/** each venue left out of some coin's price or reference close, with every such close named */
function outlierGaps(rows: readonly { coin: string; outliers: readonly CloseOutlier[] }[]): CoverageGap[] {
  return EXCHANGE_IDS.flatMap((exchange) => {
    const closes = rows.flatMap((r) => r.outliers.filter((o) => o.exchange === exchange).map((o) => `${r.coin} close of ${new Date(o.ts).toISOString().replace('.000Z', 'Z')}: ${o.reason}`))
    return closes.length ? [{ exchange, status: 'outlier' as const, reason: closes.join('; ') }] : []
  })
}

/** all coins' rows, precomputed on the data tick (at most a tick old; the windows move with the minute and the stored liquidations) */
const overviewOf = (services: Services, now: number): Promise<Overview> => {
  const reader = services.market.reader
  return tickView(services.market, 'overview', now, (at) => computeOverview(services, at), () => `${reader.version('liquidations')}|${reader.version('feeds')}`)
}

type Payload = Omit<Overview, 'rows'> & { sort: OverviewSort; order: SortOrder; coins: OverviewRow[] }

const RowRef = builder.objectRef<OverviewRow>('OverviewCoin').implement({
  description: 'One coin of the market overview (docs/methodology.md#market-overview)',
  fields: (t) => ({
    coin: t.exposeString('coin'),
    price: t.exposeFloat('price', { nullable: true, description: 'latest composite perp close (volume-weighted across venues, outliers left out: priceOutliers), of the last 30 minutes' }),
    priceTs: t.field({ type: 'Timestamp', nullable: true, description: 'minute of that close', resolve: (r) => r.priceTs }),
    change1hPct: t.exposeFloat('change1hPct', { nullable: true, description: 'price change from the close one hour before, %' }),
    change4hPct: t.exposeFloat('change4hPct', { nullable: true }),
    change24hPct: t.exposeFloat('change24hPct', { nullable: true }),
    volume24hUsd: t.exposeFloat('volume24hUsd', { nullable: true, description: 'perp quote volume of the 24 h before the current minute, every venue, USD' }),
    oiUsd: t.exposeFloat('oiUsd', { nullable: true, description: 'aggregate one-sided open interest × mark, USD' }),
    oiChange24hPct: t.exposeFloat('oiChange24hPct', { nullable: true, description: 'aggregate OI change over 24 h in coin units, venues present at both ends, %' }),
    funding8h: t.exposeFloat('funding8h', { nullable: true, description: 'OI-weighted funding rate per 8 h' }),
    liquidations24hUsd: t.exposeFloat('liquidations24hUsd', { nullable: true, description: 'liquidated USD of the minutes starting in the last 24 h, every venue (the 24 h total of /v1/liquidations/history); null when no venue\'s liquidation stream covered the coin' }),
    exchanges: t.stringList({ description: 'venues whose perp candles entered price or volume', resolve: (r) => r.exchanges }),
    note: t.exposeString('note', { nullable: true }),
    fundingKind: t.field({ type: FundingKindEnum, nullable: true, description: 'predicted: funding8h weights the venues\' current rates for their next settlements; null with funding8h', resolve: (r) => r.fundingKind }),
    priceOutliers: t.stringList({ description: 'venues left out of price or of a change\'s reference close: their close more than 5 % from the median of the venues\' closes of that minute (named in coverage, status outlier)', resolve: (r) => r.priceOutliers }),
  }),
})

const OverviewRef = builder.objectRef<Payload>('MarketOverview').implement({
  description: 'Every coin at once, sorted by one column (docs/methodology.md#market-overview)',
  fields: (t) => ({
    asOf: t.field({ type: 'Timestamp', resolve: (o) => o.asOf }),
    sort: t.exposeString('sort'),
    order: t.exposeString('order'),
    liquidationsNote: t.string({ nullable: true, description: 'what liquidations_24h_usd covers: which venues completely, as a lower bound, or not at all', resolve: (o) => o.liquidationsNote }),
    coins: t.field({ type: [RowRef], description: 'nulls last in either order, ties by coin', resolve: (o) => o.coins }),
    coverage: t.field({ type: CoverageRef, description: 'venues with perp candles in the last 24 h', resolve: (o) => o.coverage }),
    liquidationCoverage: t.field({ type: LiquidationCoverageRef, description: 'liquidations_24h_usd, venue by venue, over its window (every coin)', resolve: (o) => o.liquidationCoverage }),
  }),
})

export const marketsOverview = defineEndpoint({
  path: '/v1/markets/overview',
  field: 'marketsOverview',
  operation: 'markets-overview',
  cost: 3,
  summary: 'Screener: every coin with price, 1h/4h/24h change, 24h volume, OI and its change, OI-weighted funding; sortable',
  description: 'Every coin with price, changes, 24h perp volume, aggregate OI (USD) and its 24h change, OI-weighted funding, sorted by a column.',
  params: z.object({
    sort: enumParam(OverviewSort, { description: 'the column to sort by (its REST field name)', default: 'volume_24h_usd' }),
    order: enumParam(SortOrder, { description: 'asc or desc; nulls sort last either way', default: 'desc' }),
  }),
  type: OverviewRef,
  resolve: async ({ sort, order }, ctx) => {
    const { rows, ...o } = await overviewOf(ctx.services, ctx.now)
    return { ...o, sort, order, coins: sortOverview(rows, sort, order) }
  },
})
