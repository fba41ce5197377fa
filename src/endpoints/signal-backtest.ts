// GET /v1/signals/backtest (10 credits): each published signal re-evaluated at every stored hour of the window, its
// events, hit rate and mean forward return net of taker fees at 1 h, 4 h and 24 h with 95 % intervals that allow for
// overlapping events, against a no-signal baseline, over the hours where the signal had its full history
// (docs/methodology.md#signal-backtest). The window ends at the last whole hour: the same stored data gives the same table.
import { z } from 'zod'
import { backtestSignal, onsets, type HorizonStats, type SignalBacktest } from '../analytics/backtest.js'
import type { Coverage } from '../analytics/coverage.js'
import { EXCHANGES, type ExchangeId } from '../domain/exchanges.js'
import { coinParam, enumParam } from '../domain/params.js'
import { HOUR_MS, floorTo } from '../domain/time.js'
import { BACKTEST_LOOKBACK_MS, BacktestLookback } from '../domain/windows.js'
import { builder } from '../graphql/builder.js'
import { CoverageRef } from '../graphql/schema/common.js'
import { backtestInputs } from '../read/backtest-inputs.js'
import { closeOutlierGaps } from '../read/signal-inputs.js'
import { coverageOf, rangesOf } from '../read/coverage.js'
import { defineEndpoint } from './define.js'
import { MODEL_HOUR_ROWS, venuesOf } from './work.js'


const IMBALANCE_NOTE = 'order books are stored as the latest snapshot only: there is no history of imbalance to test'
const FUNDING_NOTE = 'returns are net of the round-trip taker fee; funding paid or received while a position is held is not included'

type Row = SignalBacktest & { family: string; testable: boolean; note: string | null }
/** what the returns are net of: the dearest base-tier taker fee of the composite's venues, both ways; no funding */
type Costs = { feeRoundTrip: number; feeExchange: ExchangeId; fundingIncluded: false; note: string }
type Out = { coin: string; lookback: string; from: number; to: number; asOf: number; costs: Costs; rows: Row[]; coverage: Coverage }

const CiRef = builder.objectRef<[number, number]>('ConfidenceInterval').implement({
  description: '95 % interval',
  fields: (t) => ({ low: t.float({ resolve: (c) => c[0] }), high: t.float({ resolve: (c) => c[1] }) }),
})

const HorizonRef = builder.objectRef<HorizonStats>('BacktestHorizon').implement({
  fields: (t) => ({
    hours: t.exposeInt('hours', { description: 'forward horizon' }),
    n: t.exposeInt('n', { description: 'full-history events with a close this many hours later' }),
    effectiveN: t.exposeFloat('effectiveN', { nullable: true, description: 'n discounted for events closer than the horizon (overlapping returns); the intervals use it' }),
    hitRate: t.exposeFloat('hitRate', { nullable: true, description: "share of events whose net forward return had the signal's sign; null for a signal without a direction" }),
    hitRateCi: t.field({ type: CiRef, nullable: true, description: 'Wilson 95 % interval at the effective n', resolve: (h) => h.hitRateCi }),
    meanReturn: t.exposeFloat('meanReturn', { nullable: true, description: 'mean forward return (fraction), signed by direction (bearish events count −return), net of the round-trip taker fee (costs); raw for a signal without a direction' }),
    meanReturnCi: t.field({ type: CiRef, nullable: true, description: 'mean ± 1.96 standard deviations / √effective n (at least 2 events)', resolve: (h) => h.meanReturnCi }),
    grossMeanReturn: t.exposeFloat('grossMeanReturn', { nullable: true, description: 'the signed mean before fees' }),
    baselineHitRate: t.exposeFloat('baselineHitRate', { nullable: true, description: "every full-history hour of the window, with the events' mix of directions, net of the fee" }),
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
    shortHistoryEvents: t.exposeInt('shortHistoryEvents', { description: 'of those, made before the signal had its full history: left out of the statistics' }),
    historyHours: t.exposeInt('historyHours', { description: 'hours of history before an hour that the signal reads in full' }),
    fullHistoryFrom: t.field({ type: 'Timestamp', nullable: true, description: 'first hour of the window with the full history stored before it; null when none', resolve: (r) => r.fullHistoryFrom }),
    fullHistoryShare: t.exposeFloat('fullHistoryShare', { description: "share of the window's hours with the full history (the statistics cover only these)" }),
    horizons: t.field({ type: [HorizonRef], resolve: (r) => r.horizons }),
  }),
})

const CostsRef = builder.objectRef<Costs>('BacktestCosts').implement({
  description: 'what the returns are net of',
  fields: (t) => ({
    feeRoundTrip: t.exposeFloat('feeRoundTrip', { description: '2 × the dearest base-tier taker fee (fraction) among the venues behind the composite closes (fees table)' }),
    feeExchange: t.exposeString('feeExchange'),
    fundingIncluded: t.exposeBoolean('fundingIncluded', { description: 'false: funding paid or received while held is not in the returns' }),
    note: t.exposeString('note'),
  }),
})

const BacktestRef = builder.objectRef<Out>('SignalBacktest').implement({
  description: 'Published signals re-evaluated over stored history: events, hit rate and forward returns against a baseline (docs/methodology.md#signal-backtest)',
  fields: (t) => ({
    coin: t.exposeString('coin'),
    lookback: t.exposeString('lookback'),
    from: t.field({ type: 'Timestamp', description: 'window start (inclusive)', resolve: (o) => o.from }),
    to: t.field({ type: 'Timestamp', description: 'window end (exclusive): the last whole hour', resolve: (o) => o.to }),
    asOf: t.field({ type: 'Timestamp', description: 'when the answer was made', resolve: (o) => o.asOf }),
    costs: t.field({ type: CostsRef, resolve: (o) => o.costs }),
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
  // every signal re-evaluated at every hour of the window, over every venue
  work: (v) => (BACKTEST_LOOKBACK_MS[v.lookback] / HOUR_MS) * venuesOf({}) * MODEL_HOUR_ROWS,
  type: BacktestRef,
  resolve: async (v, ctx) => {
    const to = floorTo(ctx.now, HOUR_MS)
    const from = to - BACKTEST_LOOKBACK_MS[v.lookback]
    const input = await backtestInputs(ctx.services.market, v.coin, from, to, ctx.now)
    const window = { from, to }
    const costs = costsOf(new Set(input.venueHours.map((h) => h.exchange)))
    const rows: Row[] = [...input.signals].map(([name, hours]) => {
      const row = backtestSignal(name, onsets(hours), input.closes, window, { history: input.history.get(name)!, feeRoundTrip: costs.feeRoundTrip })
      return { ...row, family: name.split('_')[0]!, testable: true, note: historyNote(row) }
    })
    const none = { history: { hours: 0, dataFrom: null }, feeRoundTrip: costs.feeRoundTrip }
    rows.push({ ...backtestSignal('imbalance_extreme', [], input.closes, window, none), family: 'imbalance', testable: false, note: IMBALANCE_NOTE })
    const ranges = rangesOf(input.venueHours, HOUR_MS)
    // venues left out of the hourly closes the signals and forward returns read
    const gaps = closeOutlierGaps(input.closeOutliers)
    const coverage = coverageOf(ctx, { coin: v.coin, used: ranges.keys(), gaps, noData: () => `no ${v.coin} hourly history in the window`, requested: window, ranges, toleranceMs: HOUR_MS })
    return { coin: v.coin, lookback: v.lookback, from, to, asOf: ctx.now, costs, rows, coverage }
  },
})

/** the round trip at the dearest base-tier taker fee among the venues behind the composite (all venues when none traded) */
function costsOf(venues: ReadonlySet<string>): Costs {
  const listed = EXCHANGES.filter((e) => e.marketTypes.includes('perp') && (venues.size === 0 || venues.has(e.id)))
  const dearest = listed.reduce((a, b) => (b.takerFee > a.takerFee ? b : a))
  return { feeRoundTrip: 2 * dearest.takerFee, feeExchange: dearest.id, fundingIncluded: false, note: FUNDING_NOTE }
}

/** why a row's statistics cover less than the window, or null */
function historyNote(r: SignalBacktest): string | null {
  if (r.fullHistoryShare >= 1) return null
  const left = r.shortHistoryEvents ? `; ${r.shortHistoryEvents} event(s) before it are left out` : ''
  if (r.fullHistoryFrom === null) return `no hour of the window has the ${r.historyHours} h of stored history before it that the signal reads: nothing tested${left}`
  return `the signal has its ${r.historyHours} h of history only from ${new Date(r.fullHistoryFrom).toISOString()}: the statistics cover ${Math.round(r.fullHistoryShare * 100)} % of the window${left}`
}
