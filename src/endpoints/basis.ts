// GET /v1/structure/basis (3 credits): per venue, the perp's premium to its index and its basis to the venue's spot
// market, annualised, per interval (docs/methodology.md#basis).
import { z } from 'zod'
import { buildBasis, type BasisPoint, type VenueBasis } from '../analytics/basis.js'
import type { Coverage, CoverageGap, WindowRange } from '../analytics/coverage.js'
import { OI_SAMPLE_TOLERANCE_MS } from '../analytics/oi-changes.js'
import { seriesParams, seriesRules } from '../domain/series.js'
import { EXCHANGE_IDS, hasMarket, type ExchangeId } from '../domain/exchanges.js'
import { noMarkReason } from '../domain/venue-prices.js'
import { HOUR_MS } from '../domain/time.js'
import { builder } from '../graphql/builder.js'
import { CoverageRef, ExchangeNoteRef } from '../graphql/schema/common.js'
import { seriesHeaderFields, type SeriesHeader } from '../graphql/schema/series.js'
import { coverageOf, missingExchanges, seriesRanges, type ExchangeNote } from '../read/coverage.js'
import { loadBars } from '../read/market-data.js'
import { cacheOf } from '../read/versioned-cache.js'
import { defineEndpoint } from './define.js'
import { SAMPLE_RESOLUTION_MS, candleResolution, venuesOf, windowRows } from './work.js'
import { onPage, seriesWindow, windowKey } from './series-kit.js'
import { fragmentList } from '../graphql/list-fragments.js'

const BasisPointRef = builder.objectRef<BasisPoint>('BasisPoint').implement({
  description: 'A venue\'s perp premium and basis at the close of one interval; a part without its inputs is null',
  fields: (t) => ({
    ts: t.field({ type: 'Timestamp', description: 'interval open time (UTC-aligned)', resolve: (p) => p.ts }),
    markPrice: t.exposeFloat('markPrice', { nullable: true }),
    indexPrice: t.exposeFloat('indexPrice', { nullable: true }),
    premiumBps: t.exposeFloat('premiumBps', { nullable: true, description: '(mark / index − 1) × 10 000, the interval\'s last sample with both' }),
    premiumAnnualizedPct: t.exposeFloat('premiumAnnualizedPct', { nullable: true, description: 'premium × the times a year the venue\'s funding formula pays it (8 760 / interval hours on Binance, Bybit, OKX; 1 095 on Hyperliquid and dYdX, which pay one eighth of an 8-hour rate hourly), in %' }),
    perpPrice: t.exposeFloat('perpPrice', { nullable: true, description: 'last perp trade close of the interval' }),
    spotPrice: t.exposeFloat('spotPrice', { nullable: true, description: 'last spot trade close of the interval on the same venue' }),
    basisBps: t.exposeFloat('basisBps', { nullable: true, description: '(perp / spot − 1) × 10 000; null where the venue has no spot market or no spot trade' }),
    basisAnnualizedPct: t.exposeFloat('basisAnnualizedPct', { nullable: true, description: 'basis × the same times a year as the premium, in %' }),
  }),
})

const VenueBasisRef = builder.objectRef<VenueBasis>('VenueBasis').implement({
  fields: (t) => ({
    exchange: t.exposeString('exchange'),
    hasSpot: t.exposeBoolean('hasSpot', { description: 'whether the venue has a spot market (Binance, Bybit, OKX): the basis to spot exists only there' }),
    points: t.field({ type: [BasisPointRef], description: 'ascending; an interval with neither a premium nor a basis is absent', resolve: fragmentList((v) => v.points) }),
  }),
})

type Out = SeriesHeader & { exchanges: VenueBasis[]; missing: ExchangeNote[]; coverage: Coverage; spotCoverage: Coverage }

const BasisRef = builder.objectRef<Out>('BasisSeries').implement({
  description: 'Perp premium to index and basis to spot per venue and interval (docs/methodology.md#basis)',
  fields: (t) => ({
    ...seriesHeaderFields(t),
    exchanges: t.field({ type: [VenueBasisRef], resolve: (o) => o.exchanges }),
    missing: t.field({ type: [ExchangeNoteRef], resolve: (o) => o.missing }),
    coverage: t.field({ type: CoverageRef, description: 'the premium: venues with mark and index samples (dYdX, without a mark apart from its oracle, is not_published)', resolve: (o) => o.coverage }),
    spotCoverage: t.field({ type: CoverageRef, description: 'the basis to spot: venues with a spot market and trades on both legs (Hyperliquid and dYdX are not_listed)', resolve: (o) => o.spotCoverage }),
  }),
})

type Ranges = Map<ExchangeId, WindowRange>

type BasisWindow = { venues: VenueBasis[]; premiumRanges: Ranges; spotRanges: Ranges }

export const basis = defineEndpoint({
  path: '/v1/structure/basis',
  field: 'basis',
  operation: 'basis',
  cost: 3,
  summary: 'Per exchange: perp premium to index and perp vs spot basis (where a spot market exists), annualized, per interval',
  description: 'Per venue and interval: the perp premium to its index and the perp basis to the venue\'s spot market, in bps and annualised.',
  params: z.object(seriesParams()).superRefine(seriesRules),
  // the minute samples bucketed by the store, and perp and spot candles
  work: (v, now) => (windowRows(v, now, SAMPLE_RESOLUTION_MS) + 2 * windowRows(v, now, candleResolution(v.interval))) * venuesOf(v),
  type: BasisRef,
  resolve: async (v, ctx) => {
    const w = seriesWindow(v, ctx.now)
    const { coin, exchange } = v
    const market = ctx.services.market
    const key = `${coin}|${exchange ?? ''}|${windowKey(w)}`
    const version = `${market.reader.version('candles')}.${market.reader.version('samples')}`
    const all = await cacheOf<Promise<BasisWindow>>(market, 'basis', { maxEntries: 256, oneVersion: true }).get(key, version, async () => {
      const bars = (marketType: 'perp' | 'spot') =>
        exchange && !hasMarket(exchange, marketType) ? Promise.resolve([]) : loadBars(market, { coin, marketType, start: w.first, end: w.end, exchange, hourly: w.intervalMs >= HOUR_MS })
      const [premiums, perpBars, spotBars] = await Promise.all([market.reader.sampleBuckets(coin, w.first, w.end, w.intervalMs, exchange), bars('perp'), bars('spot')])
      const venues = buildBasis({ premiums, perpBars, spotBars, intervalMs: w.intervalMs, from: w.first, to: w.end })
      // each venue's data range, once per data version (not per request)
      return { venues, premiumRanges: seriesRanges(venues, w.intervalMs, (p) => p.premiumBps !== null), spotRanges: seriesRanges(venues, w.intervalMs, (p) => p.basisBps !== null) }
    })
    const { premiumRanges, spotRanges } = all
    const noPremium = (e: ExchangeId) => noMarkReason(e) ?? `no ${coin} mark and index sample in the window`
    // a venue without a mark of its own has no premium to give: named, never counted as used
    const unpublished: CoverageGap[] = EXCHANGE_IDS.filter((e) => noMarkReason(e) !== null && (!exchange || e === exchange)).map((e) => ({ exchange: e, status: 'not_published', reason: noMarkReason(e)! }))
    const noSpot = () => `no ${coin} perp and spot trades in the window`
    const requested = { from: w.first, to: w.end }
    return {
      coin, interval: v.interval, exchange: exchange ?? null, start: w.start, end: w.end, asOf: Math.min(w.end, ctx.now), next: w.next,
      exchanges: all.venues.map((e) => ({ ...e, points: onPage(e.points, w) })),
      missing: missingExchanges('perp', all.venues.map((e) => e.exchange), noPremium, exchange),
      coverage: coverageOf(ctx, { coin, used: premiumRanges.keys(), gaps: unpublished, noData: noPremium, only: exchange, requested, ranges: premiumRanges, toleranceMs: OI_SAMPLE_TOLERANCE_MS }),
      spotCoverage: coverageOf(ctx, { coin, marketType: 'spot', used: spotRanges.keys(), noData: noSpot, only: exchange, requested, ranges: spotRanges, toleranceMs: OI_SAMPLE_TOLERANCE_MS }),
    }
  },
})
