// /v1/liquidations/heatmap output types
import type { Coverage } from '../../analytics/coverage.js'
import type { VenueCalibration } from '../../analytics/liquidation-calibration.js'
import type { LiquidationCoverage } from '../../analytics/liquidation-coverage.js'
import type { ExchangeNote } from '../../read/coverage.js'
import { builder } from '../builder.js'
import { CoverageRef, ExchangeNoteRef } from './common.js'
import { LiquidationCoverageRef } from './liquidation-coverage.js'
import { VenueCalibrationRef } from './profile.js'
import { exchangeFirst, seriesHeaderFields, type SeriesHeader } from './series.js'

interface Bucket {
  ts: number
  longUsd: number[]
  shortUsd: number[]
  outsideUsd: number
  totalUsd: number
  modelledUsd: number
  observedUsd: number
}

interface Fit {
  kind: 'observed' | 'modelled'
  exchanges: string[]
  buckets: number
  observedUsd: number
  modelledUsd: number
  calibratedUsd: number
  correlation: number | null
}

export type HeatmapOut = SeriesHeader & {
  priceBins: { low: number; high: number }[]
  buckets: Bucket[]
  fit: Fit
  exchanges: { exchange: string; calibration: VenueCalibration }[]
  missing: ExchangeNote[]
  coverage: Coverage
  liquidationCoverage: LiquidationCoverage
}

const BinRef = builder.objectRef<{ low: number; high: number }>('PriceBin').implement({
  fields: (t) => ({ low: t.exposeFloat('low', { description: 'inclusive' }), high: t.exposeFloat('high', { description: 'exclusive (the last bin: inclusive)' }) }),
})

const BucketRef = builder.objectRef<Bucket>('HeatmapBucket').implement({
  description: 'One time bucket: the estimated liquidation USD per price bin as the maps stood at its end',
  fields: (t) => ({
    ts: t.field({ type: 'Timestamp', description: 'bucket start (UTC-aligned)', resolve: (b) => b.ts }),
    longUsd: t.floatList({ description: 'per price bin, USD of long positions whose liquidation price falls there', resolve: (b) => b.longUsd }),
    shortUsd: t.floatList({ description: 'per price bin, USD of short positions', resolve: (b) => b.shortUsd }),
    outsideUsd: t.exposeFloat('outsideUsd', { description: 'USD of levels outside the price axis (Σ bins + outside = totalUsd)' }),
    totalUsd: t.exposeFloat('totalUsd', { description: 'every estimated level of the bucket' }),
    modelledUsd: t.exposeFloat('modelledUsd', { description: "the model's liquidations in the bucket (positions its price range crossed), calibrated, venues publishing a feed" }),
    observedUsd: t.exposeFloat('observedUsd', { description: 'liquidations the venues published in the bucket' }),
  }),
})

const FitRef = builder.objectRef<Fit>('HeatmapFit').implement({
  description: 'How the model compares with the observed liquidations over the window (venues publishing a feed)',
  fields: (t) => ({
    kind: t.exposeString('kind', { description: 'observed when at least one venue is calibrated against its published liquidations, else modelled' }),
    exchanges: t.exposeStringList('exchanges', { description: 'the calibrated venues' }),
    buckets: t.exposeInt('buckets', { description: 'time buckets in the window' }),
    observedUsd: t.exposeFloat('observedUsd'),
    modelledUsd: t.exposeFloat('modelledUsd', { description: 'before calibration' }),
    calibratedUsd: t.exposeFloat('calibratedUsd', { description: 'after calibration (equals observedUsd for calibrated venues within the factor bound, except a sample venue the model exceeds, which is not scaled down)' }),
    correlation: t.exposeFloat('correlation', { nullable: true, description: 'Pearson correlation of calibrated modelled and observed USD across buckets; null with fewer than 3 buckets or no variance' }),
  }),
})

const HeatmapVenueRef = builder.objectRef<{ exchange: string; calibration: VenueCalibration }>('HeatmapVenue').implement({
  fields: (t) => ({ exchange: t.exposeString('exchange'), calibration: t.field({ type: VenueCalibrationRef, resolve: (v) => v.calibration }) }),
})

export const HeatmapRef = builder.objectRef<HeatmapOut>('LiquidationHeatmap').implement({
  description: 'Estimated liquidation levels over price × time, calibrated against observed liquidations (docs/methodology.md#liquidation-heatmap)',
  fields: (t) => ({
    ...exchangeFirst(seriesHeaderFields(t)),
    priceBins: t.field({ type: [BinRef], description: 'the price axis, ascending; empty without build-up data', resolve: (h) => h.priceBins }),
    buckets: t.field({ type: [BucketRef], resolve: (h) => h.buckets }),
    fit: t.field({ type: FitRef, resolve: (h) => h.fit }),
    exchanges: t.field({ type: [HeatmapVenueRef], description: 'per selected venue, its calibration over the window', resolve: (h) => h.exchanges }),
    missing: t.field({ type: [ExchangeNoteRef], resolve: (h) => h.missing }),
    coverage: t.field({ type: CoverageRef, description: 'the open-interest build-up the model reads', resolve: (h) => h.coverage }),
    liquidationCoverage: t.field({ type: LiquidationCoverageRef, description: 'the observed side: which venues published every liquidation of the window, a lower bound, or none', resolve: (h) => h.liquidationCoverage }),
  }),
})
