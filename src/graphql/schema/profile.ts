// /v1/structure/volume-profile and /v1/signals/liquidation-cascade: both read the coin's volume at price.
import { simulateCascade, type CascadePhase, type CascadeResult, type ExchangeLiquidation } from '../../analytics/liquidation-cascade.js'
import type { TierTable } from '../../analytics/leverage-tiers.js'
import { hvnZones, volumeProfile, type VolumeProfile, type VolumeProfileLevel } from '../../analytics/volume-profile.js'
import { DAY_MS, HOUR_MS, MINUTE_MS, floorTo } from '../../domain/time.js'
import { EXCHANGE_IDS, type ExchangeId, type MarketType } from '../../domain/exchanges.js'
import { vapMerge } from '../../market/volume-at-price.js'
import { type Vap } from '../../domain/volume-at-price.js'
import { LOOKBACK_MS, type Lookback } from '../../analytics/ohlc.js'
import { unavailable } from '../../errors.js'
import type { MarketState } from '../../market/state.js'
import { parseRouteArgs, routeArgs } from '../args.js'
import { builder } from '../builder.js'
import { loadAll, loadBars, memoByVersion } from '../market-data.js'
import { CASCADE_OI_HOURS, venueLiquidationMap } from '../signal-inputs.js'
import type { Coverage, CoverageGap, WindowRange } from '../../analytics/coverage.js'
import { CoverageRef, coverageOf, ExchangeNoteRef, missingExchanges, rangesOf, type ExchangeNote } from './common.js'
import { WINDOW_TOLERANCE_MS } from './markets.js'

interface MergedVap {
  vap: Vap
  exchanges: Set<ExchangeId>
  /** each venue's span in the window (hour rollups for whole hours, minutes at the edges) */
  ranges: Map<ExchangeId, WindowRange>
  /** filled on first use by the cascade */
  hvnZones?: ReturnType<typeof hvnZones>
}
const vapMemo = new WeakMap<object, Map<string, { version: number; value: Promise<MergedVap> }>>()

/** merged volume at price of one coin over [start, end) (hourly rollups for whole hours), once per data version and minute */
function coinVap(market: MarketState, q: { coin: string; marketType: MarketType; start: number; end: number; exchange?: ExchangeId }) {
  const key = `${q.coin}|${q.marketType}|${q.exchange ?? ''}|${Math.ceil(q.start / MINUTE_MS)}|${Math.ceil(q.end / MINUTE_MS)}`
  return memoByVersion(market, 'candles', vapMemo, key, () => mergeVap(market, q))
}

async function mergeVap(market: MarketState, q: { coin: string; marketType: MarketType; start: number; end: number; exchange?: ExchangeId }): Promise<MergedVap> {
  const bars = await loadBars(market, { ...q, withVap: true, hourly: true })
  const vap: Vap = new Map()
  const exchanges = new Set<ExchangeId>()
  for (const b of bars) {
    vapMerge(vap, b.vap)
    if (b.volume > 0) exchanges.add(b.exchange)
  }
  // loadBars reads whole hours [h0, h1) as hour rollups and the edges as minutes
  const h0 = Math.ceil(q.start / HOUR_MS) * HOUR_MS
  const h1 = floorTo(q.end, HOUR_MS)
  const ranges = rangesOf(bars, (b) => (b.ts >= h0 && b.ts < h1 && h1 > h0 ? HOUR_MS : MINUTE_MS))
  return { vap, exchanges, ranges }
}

const LevelRef = builder.objectRef<VolumeProfileLevel>('VolumeLevel').implement({
  fields: (t) => ({
    priceLow: t.exposeFloat('priceLow'),
    priceHigh: t.exposeFloat('priceHigh'),
    volume: t.exposeFloat('volume'),
    buyVolume: t.exposeFloat('buyVolume'),
    sellVolume: t.exposeFloat('sellVolume'),
    node: t.exposeString('node', { description: 'HVN when the level\'s volume is at least the mean level volume, else LVN' }),
  }),
})

const PocRef = builder.objectRef<{ price: number; volume: number }>('PointOfControl').implement({
  fields: (t) => ({ price: t.exposeFloat('price'), volume: t.exposeFloat('volume') }),
})
const ValueAreaRef = builder.objectRef<{ low: number; high: number; volumePct: number }>('ValueArea').implement({
  fields: (t) => ({ low: t.exposeFloat('low'), high: t.exposeFloat('high'), volumePct: t.exposeFloat('volumePct', { description: 'share of the total volume inside, %' }) }),
})

type ProfileOut = VolumeProfile & { coin: string; exchange: string; exchanges: string[]; lookback: string; bins: number; marketType: string; start: number; end: number; asOf: number; missing: ExchangeNote[]; coverage: Coverage }

const VolumeProfileRef = builder.objectRef<ProfileOut>('VolumeProfile').implement({
  description: 'Volume per price level from stored per-minute volume at price (docs/methodology.md#volume-profile)',
  fields: (t) => ({
    coin: t.exposeString('coin'),
    exchange: t.exposeString('exchange', { description: 'the exchange, or "all"' }),
    exchanges: t.stringList({ resolve: (p) => p.exchanges }),
    marketType: t.exposeString('marketType'),
    lookback: t.exposeString('lookback'),
    bins: t.exposeInt('bins', { description: 'requested bins (the profile never has more, and fewer when the range spans fewer 1-bp levels)' }),
    start: t.field({ type: 'Timestamp', resolve: (p) => p.start }),
    end: t.field({ type: 'Timestamp', resolve: (p) => p.end }),
    asOf: t.field({ type: 'Timestamp', resolve: (p) => p.asOf }),
    totalVolume: t.exposeFloat('totalVolume'),
    poc: t.field({ type: PocRef, nullable: true, resolve: (p) => p.poc }),
    valueArea: t.field({ type: ValueAreaRef, nullable: true, resolve: (p) => p.valueArea }),
    levels: t.field({ type: [LevelRef], description: 'ascending by price', resolve: (p) => p.levels }),
    missing: t.field({ type: [ExchangeNoteRef], resolve: (p) => p.missing }),
    coverage: t.field({ type: CoverageRef, resolve: (p) => p.coverage }),
  }),
})

builder.queryField('volumeProfile', (t) =>
  t.field({
    type: VolumeProfileRef,
    description: 'Volume profile with HVN/LVN levels, point of control and 70 % value area. Costs 3 credits (GET /v1/structure/volume-profile).',
    args: routeArgs(t.arg, 'volumeProfile'),
    resolve: async (_r, args, ctx) => {
      const v = parseRouteArgs('volumeProfile', args, ctx)
      const coin = v.coin as string
      const marketType = v.market_type as MarketType
      const exchange = v.exchange as ExchangeId | undefined
      const end = (v.end as number | undefined) ?? ctx.now
      const start = end - LOOKBACK_MS[v.lookback as Lookback]
      const { vap, exchanges, ranges } = await coinVap(ctx.services.market, { coin, marketType, start, end, exchange })
      const profile = volumeProfile(vap, v.bins as number)
      const present = EXCHANGE_IDS.filter((e) => exchanges.has(e))
      return {
        ...profile, coin, exchange: exchange ?? 'all', exchanges: present, marketType, lookback: v.lookback as string, bins: v.bins as number, start, end, asOf: Math.min(end, ctx.now),
        missing: missingExchanges(marketType, present, () => 'no trades in the window', exchange),
        coverage: coverageOf(ctx, { marketType, used: present, noData: () => 'no trades in the window', only: exchange, requested: { from: start, to: end }, ranges, toleranceMs: WINDOW_TOLERANCE_MS }),
      }
    },
  }),
)

// ---- liquidation cascade ----

const ExchangeLiquidationRef = builder.objectRef<ExchangeLiquidation>('ExchangeLiquidation').implement({
  description: 'Liquidated notional of one venue\'s positions, USD',
  fields: (t) => ({ exchange: t.exposeString('exchange'), liquidatedUsd: t.exposeFloat('liquidatedUsd') }),
})

const PhaseRef = builder.objectRef<CascadePhase>('CascadePhase').implement({
  fields: (t) => ({
    phase: t.exposeInt('phase'),
    fromPrice: t.exposeFloat('fromPrice'),
    toPrice: t.exposeFloat('toPrice'),
    liquidatedUsd: t.exposeFloat('liquidatedUsd'),
    byExchange: t.field({ type: [ExchangeLiquidationRef], description: 'the phase\'s liquidations per venue (Σ = liquidatedUsd), every selected venue listed', resolve: (p) => p.byExchange }),
    stalled: t.exposeBoolean('stalled', { description: 'true only for a last phase whose forced orders an HVN zone absorbed (stalledAt)' }),
  }),
})
const ZoneRef = builder.objectRef<{ low: number; high: number }>('PriceZone').implement({
  fields: (t) => ({ low: t.exposeFloat('low'), high: t.exposeFloat('high') }),
})

interface CascadeVenue extends ExchangeLiquidation {
  estimatedLiquidationsUsd: number
  liquidationLevels: number
  tiers: TierTable
}

const CascadeVenueRef = builder.objectRef<CascadeVenue>('CascadeVenue').implement({
  description: 'One venue\'s part of a cascade: what it liquidated in total, its own liquidation map, and the leverage tiers that map used',
  fields: (t) => ({
    exchange: t.exposeString('exchange'),
    liquidatedUsd: t.exposeFloat('liquidatedUsd', { description: 'Σ of this venue over the phases' }),
    estimatedLiquidationsUsd: t.exposeFloat('estimatedLiquidationsUsd', { description: 'notional of every estimated liquidation on this venue, both sides' }),
    liquidationLevels: t.exposeInt('liquidationLevels', { description: 'this venue\'s estimated liquidation price buckets' }),
    tierSource: t.string({ description: 'live (fetched from the venue), recorded (a shipped copy of a real venue payload) or default (documented values)', resolve: (v) => v.tiers.source }),
    tierNote: t.string({ description: 'where the tier table comes from', resolve: (v) => v.tiers.note }),
    tiersAsOf: t.field({ type: 'Timestamp', nullable: true, description: 'when the tier table was fetched or recorded', resolve: (v) => v.tiers.asOf }),
  }),
})

type CascadeOut = Omit<CascadeResult, 'byExchange'> & { coin: string; exchanges: string[]; byExchange: CascadeVenue[]; liquidationLevels: number; estimatedLiquidationsUsd: number; asOf: number; missing: ExchangeNote[]; coverage: Coverage }

const CascadeRef = builder.objectRef<CascadeOut>('LiquidationCascade').implement({
  description: 'Simulated liquidation cascade from the current price to a trigger price, from each venue\'s own liquidation map (docs/methodology.md#liquidation-cascade)',
  fields: (t) => ({
    coin: t.exposeString('coin'),
    exchanges: t.stringList({ description: 'exchanges whose fresh order books the forced orders walk (open-interest history and HVN zones use every selected exchange)', resolve: (c) => c.exchanges }),
    startPrice: t.exposeFloat('startPrice', { description: 'current mark price' }),
    triggerPrice: t.exposeFloat('triggerPrice'),
    direction: t.exposeString('direction', { description: 'down or up' }),
    phases: t.field({ type: [PhaseRef], description: 'at most 5; none when the trigger is the current price', resolve: (c) => c.phases }),
    finalPrice: t.exposeFloat('finalPrice'),
    totalLiquidatedUsd: t.exposeFloat('totalLiquidatedUsd', { description: 'Σ of the phases (= Σ of byExchange)' }),
    byExchange: t.field({ type: [CascadeVenueRef], description: 'per selected venue, in exchange order: where the forced orders come from', resolve: (c) => c.byExchange }),
    stalledAt: t.field({ type: ZoneRef, nullable: true, description: 'the HVN zone that absorbed the forced flow; set exactly when endedBy is stalled', resolve: (c) => c.stalledAt }),
    endedBy: t.exposeString('endedBy', { description: 'no_move, no_liquidations, stalled, book_absorbed, no_further_liquidations or phase_limit' }),
    liquidationLevels: t.exposeInt('liquidationLevels', { description: 'estimated liquidation price buckets, all venues' }),
    estimatedLiquidationsUsd: t.exposeFloat('estimatedLiquidationsUsd', { description: 'notional of every estimated liquidation, both sides, all venues' }),
    asOf: t.field({ type: 'Timestamp', resolve: (c) => c.asOf }),
    missing: t.field({ type: [ExchangeNoteRef], resolve: (c) => c.missing }),
    coverage: t.field({ type: CoverageRef, description: 'venues in the model: each venue\'s open-interest history (its positions) and fresh order book (the liquidity walked)', resolve: (c) => c.coverage }),
  }),
})

builder.queryField('liquidationCascade', (t) =>
  t.field({
    type: CascadeRef,
    description: 'Liquidation cascade simulation: at most 5 phases, stalling at HVN zones. Costs 5 credits (GET /v1/signals/liquidation-cascade).',
    args: routeArgs(t.arg, 'liquidationCascade'),
    resolve: async (_r, args, ctx) => {
      const v = parseRouteArgs('liquidationCascade', args, ctx)
      const coin = v.coin as string
      const exchange = v.exchange as ExchangeId | undefined
      const market = ctx.services.market
      const [tickers, books] = await Promise.all([loadAll(ctx.loaders.tickers, [coin]), loadAll(ctx.loaders.books, [coin])])
      const fresh = (ts: number) => ctx.now - ts <= 60_000
      const marks = tickers[0]!.filter((r) => (!exchange || r.exchange === exchange) && r.markPrice && fresh(r.ts))
      const bookList = books[0]!.filter((b) => (!exchange || b.exchange === exchange) && fresh(b.ts))
      if (!marks.length || !bookList.length)
        throw unavailable(`No live ${exchange ? `${exchange} ` : ''}market data for ${coin} (a current mark price and order book are needed). Nothing was charged.`)
      const startPrice = marks.reduce((s, r) => s + r.markPrice!, 0) / marks.length
      // each venue's positions are liquidated by its own build-up and its own tiers: no netting across venues
      const venues = EXCHANGE_IDS.filter((e) => !exchange || e === exchange)
      const maps = venues.map((e) => venueLiquidationMap(market, coin, e, ctx.now))
      const merged = await coinVap(market, { coin, marketType: 'perp', start: ctx.now - DAY_MS, end: ctx.now, exchange })
      // the HVN zones depend only on the merged volume at price: computed once per memoized merge
      const zones = (merged.hvnZones ??= hvnZones(volumeProfile(merged.vap).levels))
      const result = simulateCascade({
        currentPrice: startPrice,
        triggerPrice: v.trigger_price as number,
        liquidations: maps.flatMap((m) => m.levels),
        book: { bids: bookList.flatMap((b) => b.bids), asks: bookList.flatMap((b) => b.asks) },
        hvnZones: zones,
        exchanges: venues,
      })
      const used = bookList.map((b) => b.exchange)
      const byExchange = maps.map((m) => ({
        exchange: m.exchange,
        liquidatedUsd: result.byExchange.find((b) => b.exchange === m.exchange)?.liquidatedUsd ?? 0,
        estimatedLiquidationsUsd: m.estimatedUsd,
        liquidationLevels: m.levels.length,
        tiers: m.tiers,
      }))
      return {
        ...result, coin, exchanges: used, byExchange,
        liquidationLevels: maps.reduce((s, m) => s + m.levels.length, 0),
        estimatedLiquidationsUsd: maps.reduce((s, m) => s + m.estimatedUsd, 0),
        asOf: ctx.now,
        missing: missingExchanges('perp', used, () => `no fresh ${coin} order book`, exchange),
        coverage: cascadeCoverage(ctx, coin, used, exchange),
      }
    },
  }),
)

/**
 * The cascade's venues: those with open-interest history (positions to liquidate) or a fresh book (liquidity to walk).
 * The window is the build-up the maps are estimated from; a venue missing one of the two is in only in part.
 */
function cascadeCoverage(ctx: Parameters<typeof coverageOf>[0], coin: string, booked: readonly ExchangeId[], only?: ExchangeId): Coverage {
  const to = floorTo(ctx.now, HOUR_MS) + HOUR_MS
  const from = to - (CASCADE_OI_HOURS + 1) * HOUR_MS
  const samples = ctx.services.market.series.hours.perpSamples(coin, from, to).filter((c) => c.oi !== null && (!only || c.exchange === only))
  const ranges = rangesOf(samples.map((c) => ({ exchange: c.exchange, ts: floorTo(c.ts, HOUR_MS) })), HOUR_MS)
  const gaps: CoverageGap[] = []
  for (const e of booked) if (!ranges.has(e)) gaps.push({ exchange: e, status: 'no_data', reason: `no ${coin} open-interest history: none of its positions are modelled` })
  for (const e of ranges.keys()) if (!booked.includes(e)) gaps.push({ exchange: e, status: 'stale', reason: `no fresh ${coin} order book: its liquidity is not walked` })
  return coverageOf(ctx, { used: booked, gaps, noData: () => `no ${coin} open-interest history or order book`, only, requested: { from, to }, ranges, toleranceMs: HOUR_MS })
}
