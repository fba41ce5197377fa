// GET /v1/signals/backtest (10 credits): each published signal re-evaluated at every stored hour of the window, its
// events, hit rate and mean forward return at 1 h, 4 h and 24 h with 95 % intervals, against a no-signal baseline
// (docs/methodology.md#signal-backtest). The window ends at the last whole hour: the same stored data gives the same table.
import { z } from 'zod'
import { backtestSignal, onsets, type HorizonStats, type SignalBacktest } from '../analytics/backtest.js'
import type { Coverage } from '../analytics/coverage.js'
import { coinParam, enumParam } from '../domain/params.js'
import { HOUR_MS, floorTo } from '../domain/time.js'
import { BACKTEST_LOOKBACK_MS, BacktestLookback } from '../domain/windows.js'
import { builder } from '../graphql/builder.js'
import { CoverageRef } from '../graphql/schema/common.js'
import { backtestInputs } from '../market/read/backtest-inputs.js'
import { closeOutlierGaps } from '../market/read/signal-inputs.js'
import { coverageOf, rangesOf } from '../market/read/coverage.js'
import { defineEndpoint } from './define.js'


const IMBALANCE_NOTE = 'order books are stored as the latest snapshot only: there is no history of imbalance to test'

type Row = SignalBacktest & { family: string; testable: boolean; note: string | null }
type Out = { coin: string; lookback: string; from: number; to: number; asOf: number; rows: Row[]; coverage: Coverage }

const CiRef = builder.objectRef<[number, number]>('ConfidenceInterval').implement({
  description: '95 % interval',
  fields: (t) => ({ low: t.float({ resolve: (c) => c[0] }), high: t.float({ resolve: (c) => c[1] }) }),
})

const HorizonRef = builder.objectRef<HorizonStats>('BacktestHorizon').implement({
  fields: (t) => ({
    hours: t.exposeInt('hours', { description: 'forward horizon' }),
    n: t.exposeInt('n', { description: 'events with a close this many hours later' }),
    hitRate: t.exposeFloat('hitRate', { nullable: true, description: "share of events whose forward return had the signal's sign; null for a signal without a direction" }),
    hitRateCi: t.field({ type: CiRef, nullable: true, description: 'Wilson 95 % interval', resolve: (h) => h.hitRateCi }),
    meanReturn: t.exposeFloat('meanReturn', { nullable: true, description: 'mean forward return (fraction), signed by direction (bearish events count −return)' }),
    meanReturnCi: t.field({ type: CiRef, nullable: true, description: 'mean ± 1.96 standard errors (at least 2 events)', resolve: (h) => h.meanReturnCi }),
    baselineHitRate: t.exposeFloat('baselineHitRate', { nullable: true, description: "every hour of the window, with the events' mix of directions" }),
    baselineMeanReturn: t.exposeFloat('baselineMeanReturn', { nullable: true }),
  }),
})

const RowRef = builder.objectRef<Row>('SignalBacktestRow').implement({
  fields: (t) => ({
    signal: t.exposeString('signal'),
    family: t.exposeString('family', { description: 'divergence, regime, funding or imbalance' }),
    testable: t.exposeBoolean('testable', { description: 'false when the stored history cannot re-create the signal' }),
    note: t.exposeString('note', { nullable: true }),
    events: t.exposeInt('events', { description: 'hours the signal switched on in the window' }),
    horizons: t.field({ type: [HorizonRef], resolve: (r) => r.horizons }),
  }),
})

const BacktestRef = builder.objectRef<Out>('SignalBacktest').implement({
  description: 'Published signals re-evaluated over stored history: events, hit rate and forward returns against a baseline (docs/methodology.md#signal-backtest)',
  fields: (t) => ({
    coin: t.exposeString('coin'),
    lookback: t.exposeString('lookback'),
    from: t.field({ type: 'Timestamp', description: 'window start (inclusive)', resolve: (o) => o.from }),
    to: t.field({ type: 'Timestamp', description: 'window end (exclusive): the last whole hour', resolve: (o) => o.to }),
    asOf: t.field({ type: 'Timestamp', resolve: (o) => o.asOf }),
    signals: t.field({ type: [RowRef], resolve: (o) => o.rows }),
    coverage: t.field({ type: CoverageRef, resolve: (o) => o.coverage }),
  }),
})

export const signalBacktest = defineEndpoint({
  path: '/v1/signals/backtest',
  field: 'signalBacktest',
  operation: 'signal-backtest',
  cost: 10,
  summary: 'Each published signal over stored history: events, hit rate and mean forward return at 1h/4h/24h with 95 % intervals, against a no-signal baseline',
  description: 'Backtest of the published signals over stored history: event count, hit rate and mean forward return at 1h, 4h and 24h with confidence intervals, against a no-signal baseline.',
  params: z.object({
    coin: coinParam(true),
    lookback: enumParam(BacktestLookback, { description: 'how much stored history to test, ending at the last whole hour', default: '30d' }),
  }),
  graphql: (t, f) =>
    t.field({
      type: BacktestRef,
      description: f.description,
      args: f.args,
      resolve: (_r, args, ctx) => {
        const v = f.params(args, ctx)
        const to = floorTo(ctx.now, HOUR_MS)
        const from = to - BACKTEST_LOOKBACK_MS[v.lookback]
        const input = backtestInputs(ctx.services.market, v.coin, from, to, ctx.now)
        const window = { from, to }
        const rows: Row[] = [...input.signals].map(([name, hours]) => ({
          ...backtestSignal(name, onsets(hours), input.closes, window),
          family: name.split('_')[0]!,
          testable: true,
          note: null,
        }))
        rows.push({ ...backtestSignal('imbalance_extreme', [], input.closes, window), family: 'imbalance', testable: false, note: IMBALANCE_NOTE })
        const ranges = rangesOf(input.venueHours, HOUR_MS)
        // venues left out of the hourly closes the signals and forward returns read
        const gaps = closeOutlierGaps(input.closeOutliers)
        const coverage = coverageOf(ctx, { used: ranges.keys(), gaps, noData: () => `no ${v.coin} hourly history in the window`, requested: window, ranges, toleranceMs: HOUR_MS })
        return { coin: v.coin, lookback: v.lookback, from, to, asOf: to, rows, coverage }
      },
    }),
})
