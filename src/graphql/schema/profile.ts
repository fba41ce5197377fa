// /v1/structure/volume-profile and /v1/signals/liquidation-cascade: both read the coin's volume at price.
import { type CascadePhase, type CascadeResult, type ExchangeLiquidation } from '../../analytics/liquidation-cascade.js'
import type { CalibrationScore, VenueCalibration } from '../../analytics/liquidation-calibration.js'
import type { LiquidationCoverage } from '../../analytics/liquidation-coverage.js'
import type { TierTable } from '../../analytics/leverage-tiers.js'
import { type VolumeProfile, type VolumeProfileLevel } from '../../analytics/volume-profile.js'
import type { ExchangeNote } from '../../read/coverage.js'
import { builder } from '../builder.js'
import type { Coverage } from '../../analytics/coverage.js'
import { CoverageRef, ExchangeNoteRef } from './common.js'
import { LiquidationCoverageRef } from './liquidation-coverage.js'

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

export type ProfileOut = VolumeProfile & { coin: string; exchange: string; exchanges: string[]; lookback: string; bins: number; marketType: string; start: number; end: number; asOf: number; missing: ExchangeNote[]; coverage: Coverage }

export const VolumeProfileRef = builder.objectRef<ProfileOut>('VolumeProfile').implement({
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
  calibration: VenueCalibration
}

const CalibrationScoreRef = builder.objectRef<CalibrationScore>('CalibrationScore').implement({
  description: "The model's liquidations against the venue's over the window, hour by hour (docs/methodology.md#calibration-score)",
  fields: (t) => ({
    hours: t.exposeInt('hours', { description: 'hours compared: the hours of the window the model ran on' }),
    ratio: t.exposeFloat('ratio', { nullable: true, description: 'observed / modelled USD over the window, unbounded (null without a feed or when the model liquidated nothing)' }),
    correlation: t.exposeFloat('correlation', { nullable: true, description: 'Pearson correlation of hourly modelled and observed USD (null without a feed, with fewer than 3 hours or no variance)' }),
    lowerBound: t.exposeBoolean('lowerBound', { description: "the venue's feed is a sample: observed is a lower bound" }),
  }),
})

export const VenueCalibrationRef = builder.objectRef<VenueCalibration>('VenueCalibration').implement({
  description: "How one venue's liquidation levels relate to the liquidations it published (docs/methodology.md#cascade-calibration)",
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'observed: levels compared with (and scaled by) observed / modelled liquidations over the window; modelled: the model alone' }),
    completeness: t.exposeString('completeness', { description: "the venue's liquidation feed: complete, sample (observed is a lower bound, and so is the factor) or none" }),
    orders: t.exposeInt('orders', { description: 'liquidation orders the venue published in the window' }),
    observedUsd: t.exposeFloat('observedUsd', { description: 'USD of those orders' }),
    modelledUsd: t.exposeFloat('modelledUsd', { description: "USD of estimated positions the window's own price ranges liquidated" }),
    factor: t.exposeFloat('factor', { description: 'what the levels were multiplied by (1 when modelled only; bounded to 0.1..10; never below 1 for a venue whose feed is a sample)' }),
    reason: t.exposeString('reason'),
    score: t.field({ type: CalibrationScoreRef, description: "the model against the venue's observed liquidations, hour by hour", resolve: (c) => c.score }),
  }),
})

interface CascadeCalibration {
  kind: 'observed' | 'modelled'
  exchanges: string[]
  orders: number
  window: { from: number; to: number }
  liquidationCoverage: LiquidationCoverage
}

const CascadeCalibrationRef = builder.objectRef<CascadeCalibration>('CascadeCalibration').implement({
  description: 'Whether the levels are calibrated against observed liquidations or modelled only',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'observed when at least one venue\'s levels are calibrated against its published liquidations, else modelled' }),
    exchanges: t.exposeStringList('exchanges', { description: 'the venues whose levels are observed-calibrated' }),
    orders: t.exposeInt('orders', { description: 'observed liquidation orders in the window, all selected venues' }),
    from: t.field({ type: 'Timestamp', description: 'build-up window start (inclusive)', resolve: (c) => c.window.from }),
    to: t.field({ type: 'Timestamp', description: 'build-up window end (exclusive)', resolve: (c) => c.window.to }),
    liquidationCoverage: t.field({ type: LiquidationCoverageRef, description: 'which venues the observed liquidations of the window are complete for, a lower bound of, or missing', resolve: (c) => c.liquidationCoverage }),
  }),
})

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
    calibration: t.field({ type: VenueCalibrationRef, resolve: (v) => v.calibration }),
  }),
})

export type CascadeOut = Omit<CascadeResult, 'byExchange'> & { coin: string; exchanges: string[]; byExchange: CascadeVenue[]; liquidationLevels: number; estimatedLiquidationsUsd: number; asOf: number; calibration: CascadeCalibration; missing: ExchangeNote[]; coverage: Coverage }

export const CascadeRef = builder.objectRef<CascadeOut>('LiquidationCascade').implement({
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
    calibration: t.field({ type: CascadeCalibrationRef, description: 'observed-calibrated or modelled only (per venue in byExchange[].calibration)', resolve: (c) => c.calibration }),
  }),
})

/**
 * The cascade's venues: those with open-interest history (positions to liquidate) or a fresh book (liquidity to walk).
 * The window is the build-up the maps are estimated from; a venue missing one of the two is in only in part.
 */
