// /v1/structure/volume-profile and /v1/signals/liquidation-cascade: both read the coin's volume at price.
import { estimateLiquidationLevels, simulateCascade, type CascadePhase, type CascadeResult } from '../../analytics/liquidation-cascade.js'
import { hvnZones, volumeProfile, type VolumeProfile, type VolumeProfileLevel } from '../../analytics/volume-profile.js'
import { DAY_MS, HOUR_MS, MINUTE_MS, floorTo } from '../../market/bars.js'
import { EXCHANGE_IDS, type ExchangeId, type MarketType } from '../../market/events.js'
import { vapMerge, type Vap } from '../../market/volume-at-price.js'
import { LOOKBACK_MS, type Lookback } from '../../analytics/ohlc.js'
import { unavailable } from '../../errors.js'
import type { MarketState } from '../../market/state.js'
import { parseRouteArgs, routeArgs } from '../args.js'
import { builder } from '../builder.js'
import { loadAll, loadBars, memoByVersion } from '../market-data.js'
import { memoized, oiBuildUp } from '../signal-inputs.js'
import { ExchangeNoteRef, missingExchanges, type ExchangeNote } from './common.js'

interface MergedVap {
  vap: Vap
  exchanges: Set<ExchangeId>
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
  return { vap, exchanges }
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

type ProfileOut = VolumeProfile & { coin: string; exchange: string; exchanges: string[]; lookback: string; bins: number; marketType: string; start: number; end: number; asOf: number; missing: ExchangeNote[] }

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
      const { vap, exchanges } = await coinVap(ctx.services.market, { coin, marketType, start, end, exchange })
      const profile = volumeProfile(vap, v.bins as number)
      const present = EXCHANGE_IDS.filter((e) => exchanges.has(e))
      return {
        ...profile, coin, exchange: exchange ?? 'all', exchanges: present, marketType, lookback: v.lookback as string, bins: v.bins as number, start, end, asOf: Math.min(end, ctx.now),
        missing: missingExchanges(marketType, present, () => 'no trades in the window', exchange),
      }
    },
  }),
)

// ---- liquidation cascade ----

const PhaseRef = builder.objectRef<CascadePhase>('CascadePhase').implement({
  fields: (t) => ({
    phase: t.exposeInt('phase'),
    fromPrice: t.exposeFloat('fromPrice'),
    toPrice: t.exposeFloat('toPrice'),
    liquidatedUsd: t.exposeFloat('liquidatedUsd'),
    stalled: t.exposeBoolean('stalled'),
  }),
})
const ZoneRef = builder.objectRef<{ low: number; high: number }>('PriceZone').implement({
  fields: (t) => ({ low: t.exposeFloat('low'), high: t.exposeFloat('high') }),
})

type CascadeOut = CascadeResult & { coin: string; exchanges: string[]; liquidationLevels: number; estimatedLiquidationsUsd: number; asOf: number; missing: ExchangeNote[] }

const CascadeRef = builder.objectRef<CascadeOut>('LiquidationCascade').implement({
  description: 'Simulated liquidation cascade from the current price to a trigger price (docs/methodology.md#liquidation-cascade)',
  fields: (t) => ({
    coin: t.exposeString('coin'),
    exchanges: t.stringList({ description: 'exchanges whose fresh order books the forced orders walk (open-interest history and HVN zones use every selected exchange)', resolve: (c) => c.exchanges }),
    startPrice: t.exposeFloat('startPrice', { description: 'current mark price' }),
    triggerPrice: t.exposeFloat('triggerPrice'),
    direction: t.exposeString('direction', { description: 'down or up' }),
    phases: t.field({ type: [PhaseRef], description: 'at most 5; none when the trigger is the current price', resolve: (c) => c.phases }),
    finalPrice: t.exposeFloat('finalPrice'),
    totalLiquidatedUsd: t.exposeFloat('totalLiquidatedUsd'),
    stalledAt: t.field({ type: ZoneRef, nullable: true, description: 'the HVN zone that absorbed the forced flow', resolve: (c) => c.stalledAt }),
    endedBy: t.exposeString('endedBy', { description: 'no_move, stalled or phase_limit' }),
    liquidationLevels: t.exposeInt('liquidationLevels', { description: 'estimated liquidation price buckets' }),
    estimatedLiquidationsUsd: t.exposeFloat('estimatedLiquidationsUsd', { description: 'notional of every estimated liquidation, both sides' }),
    asOf: t.field({ type: 'Timestamp', resolve: (c) => c.asOf }),
    missing: t.field({ type: [ExchangeNoteRef], resolve: (c) => c.missing }),
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
      // the liquidation map changes only with the series (or the hour): once per data refresh, not per request
      const liquidations = memoized(market, `cascade-levels|${coin}|${exchange ?? ''}`, floorTo(ctx.now, HOUR_MS), () => estimateLiquidationLevels(oiBuildUp(market, coin, ctx.now, exchange)))
      const merged = await coinVap(market, { coin, marketType: 'perp', start: ctx.now - DAY_MS, end: ctx.now, exchange })
      // the HVN zones depend only on the merged volume at price: computed once per memoized merge
      const zones = (merged.hvnZones ??= hvnZones(volumeProfile(merged.vap).levels))
      const result = simulateCascade({
        currentPrice: startPrice,
        triggerPrice: v.trigger_price as number,
        liquidations,
        book: { bids: bookList.flatMap((b) => b.bids), asks: bookList.flatMap((b) => b.asks) },
        hvnZones: zones,
      })
      const used = bookList.map((b) => b.exchange)
      return {
        ...result, coin, exchanges: used, liquidationLevels: liquidations.length, estimatedLiquidationsUsd: liquidations.reduce((s, l) => s + l.notionalUsd, 0), asOf: ctx.now,
        missing: missingExchanges('perp', used, () => `no fresh ${coin} order book`, exchange),
      }
    },
  }),
)
