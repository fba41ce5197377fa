// GET /v1/signals/regime (3 credits): one coin's current market regime with the inputs and thresholds that decided it,
// and its regime history at the chosen interval (the series window and paging parameters).
import { z } from 'zod'
import type { Coverage } from '../analytics/coverage.js'
import type { ExchangeId } from '../domain/exchanges.js'
import { REGIME_THRESHOLDS } from '../analytics/regime.js'
import { coinParam, enumParam } from '../domain/params.js'
import { pageOf, seriesRules, windowParams } from '../domain/series.js'
import { HOUR_MS, floorTo } from '../domain/time.js'
import { HourlyInterval, INTERVAL_MS } from '../domain/windows.js'
import { builder } from '../graphql/builder.js'
import { CoverageRef } from '../graphql/schema/common.js'
import { coverageOf } from '../read/coverage.js'
import { closeHourRanges, closeOutlierGaps, coinRegime, hourCloseOutliers, REGIME_SPAN_MS, regimeHistory, type RegimePoint } from '../read/signal-inputs.js'
import { defineEndpoint } from './define.js'
import { venuesOf, windowRows } from './work.js'
import { fragmentList } from '../graphql/list-fragments.js'

const params = z
  .object({
    coin: coinParam(true),
    interval: enumParam(HourlyInterval, { description: 'spacing of the history: 1h, 4h or 1d (the classifier reads hourly closes, so nothing finer)', default: '1h' }),
    ...windowParams(),
  })
  .superRefine(seriesRules)

interface Payload {
  coin: string
  interval: string
  start: number
  end: number
  asOf: number
  current: RegimePoint
  history: RegimePoint[]
  coverage: Coverage
  next: string | null
}

const RegimePointRef = builder.objectRef<RegimePoint>('RegimePoint').implement({
  description: 'The regime of the 24 complete hours before asOf (docs/methodology.md#regime)',
  fields: (t) => ({
    ts: t.field({ type: 'Timestamp', description: 'interval start (current: the current hour)', resolve: (p) => p.ts }),
    asOf: t.field({ type: 'Timestamp', description: 'classified on the complete hours before this', resolve: (p) => p.asOf }),
    regime: t.exposeString('regime', { nullable: true, description: 'trending_up, trending_down, ranging, high_volatility or squeeze; null with too little history' }),
    efficiencyRatio: t.exposeFloat('efficiencyRatio', { nullable: true, description: '|Σ r| / Σ |r| over the 24 hourly log returns' }),
    netMove: t.exposeFloat('netMove', { nullable: true, description: 'Σ r: log change over the window' }),
    realizedVol: t.exposeFloat('realizedVol', { nullable: true, description: 'sample stdev of the 24 hourly log returns' }),
    volPercentile: t.exposeFloat('volPercentile', { nullable: true, description: 'percentile of realizedVol among the rolling 24 h windows of the 30 days before' }),
    oiChange: t.exposeFloat('oiChange', { nullable: true, description: 'ln(OI now / OI 24 h before), chain-linked over the same venues' }),
    exchanges: t.stringList({ description: 'venues whose closes entered the window', resolve: (r) => r.exchanges }),
    oiExchanges: t.stringList({ description: 'venues the OI change was measured over', resolve: (r) => r.oiExchanges }),
    note: t.exposeString('reason', { nullable: true }),
  }),
})

const ThresholdsRef = builder.objectRef<typeof REGIME_THRESHOLDS>('RegimeThresholds').implement({
  description: 'The classifier\'s rules, checked in order: trend (ER and move), high volatility, squeeze (low vol and OI build), else ranging',
  fields: (t) => ({
    trendEfficiencyRatio: t.exposeFloat('trendEfficiencyRatio'),
    minTrendMove: t.exposeFloat('minTrendMove', { description: '|netMove| at least this (log)' }),
    highVolPercentile: t.exposeFloat('highVolPercentile'),
    lowVolPercentile: t.exposeFloat('lowVolPercentile'),
    oiBuild: t.exposeFloat('oiBuild', { description: 'oiChange at least this for a squeeze (log)' }),
    windowHours: t.exposeInt('windowHours'),
    minHistoryWindows: t.exposeInt('minHistoryWindows'),
  }),
})

const RegimeRef = builder.objectRef<Payload>('CoinRegime').implement({
  description: 'A coin\'s current regime and its history (docs/methodology.md#regime-history)',
  fields: (t) => ({
    coin: t.exposeString('coin'),
    interval: t.exposeString('interval'),
    start: t.field({ type: 'Timestamp', resolve: (p) => p.start }),
    end: t.field({ type: 'Timestamp', resolve: (p) => p.end }),
    asOf: t.field({ type: 'Timestamp', resolve: (p) => p.asOf }),
    thresholds: t.field({ type: ThresholdsRef, resolve: () => REGIME_THRESHOLDS }),
    current: t.field({ type: RegimePointRef, resolve: (p) => p.current }),
    history: t.field({ type: [RegimePointRef], description: 'ascending; an interval without an hourly close is absent', resolve: fragmentList((p) => p.history) }),
    coverage: t.field({ type: CoverageRef, resolve: (p) => p.coverage }),
    next: t.exposeString('next', { nullable: true, description: 'cursor of the next page; null on the last' }),
  }),
})

export const regime = defineEndpoint({
  path: '/v1/signals/regime',
  field: 'regime',
  operation: 'regime',
  cost: 3,
  summary: 'Market regime of one coin now, with the inputs that decided it, and its regime history at an interval',
  description: 'Current market regime of one coin with its inputs and thresholds, and its regime history at the chosen interval.',
  params,
  // hourly closes of every venue from the in-memory series
  work: (v, now) => windowRows(v, now, HOUR_MS) * venuesOf({}),
  type: RegimeRef,
  resolve: (v, ctx) => {
    const { market } = ctx.services
    const intervalMs = INTERVAL_MS[v.interval]
    const page = pageOf(v, intervalMs, ctx.now)
    const history = regimeHistory(market, v.coin, page.slots, intervalMs, ctx.now)
    const hour = floorTo(ctx.now, HOUR_MS)
    const current = { ...coinRegime(market, v.coin, ctx.now), ts: hour, asOf: hour }
    // the classifier reads complete hours only: the hour in progress enters no regime, so it is no coverage either
    const used = new Set<string>()
    for (const p of history) for (const e of p.exchanges) used.add(e)
    // venues left out of the hourly closes the classifications read (each reads REGIME_SPAN_MS of hours before its end)
    const gaps = closeOutlierGaps(hourCloseOutliers(market, v.coin, page.start - REGIME_SPAN_MS, Math.min(page.end, hour)))
    const coverage = coverageOf(ctx, {
      coin: v.coin,
      used: used as Set<ExchangeId>, gaps, noData: () => `no complete hour of ${v.coin} perp candles in the window`,
      requested: { from: page.start, to: page.end }, ranges: closeHourRanges(market, v.coin, page.start, Math.min(page.end, hour)), toleranceMs: HOUR_MS,
    })
    return { coin: v.coin, interval: v.interval, start: page.start, end: page.end, asOf: Math.min(page.end, ctx.now), current, history, coverage, next: page.next }
  },
})
