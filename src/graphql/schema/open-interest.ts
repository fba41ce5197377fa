// /v1/oi/changes
import { buildOiChanges, OI_CHANGE_HORIZONS, OI_HORIZON_MS, OI_SAMPLE_TOLERANCE_MS, type AggregateOi, type CoinOiChanges, type ExchangeOi, type OiChange } from '../../analytics/oi-changes.js'
import { coinsOf, parseRouteArgs, routeArgs } from '../args.js'
import { builder } from '../builder.js'
import { loadAll } from '../market-data.js'
import type { Coverage, CoverageGap } from '../../analytics/coverage.js'
import type { ExchangeId } from '../../domain/exchanges.js'
import { CoverageRef, coverageOf, ExchangeNoteRef, missingOrStale, rangesOf, type ExchangeNote } from './common.js'

type Changes = Record<(typeof OI_CHANGE_HORIZONS)[number], OiChange>

const ChangeRef = builder.objectRef<OiChange & { exchanges?: string[] }>('OiChange').implement({
  fields: (t) => ({
    pct: t.exposeFloat('pct', { nullable: true, description: 'change in % of open interest in coin units' }),
    referenceTs: t.field({ type: 'Timestamp', nullable: true, resolve: (c) => c.referenceTs }),
    note: t.exposeString('reason', { nullable: true }),
  }),
})

const ChangesRef = builder.objectRef<Changes>('OiChanges').implement({
  fields: (t) => ({
    change1h: t.field({ type: ChangeRef, resolve: (c) => c['1h'] }),
    change4h: t.field({ type: ChangeRef, resolve: (c) => c['4h'] }),
    change24h: t.field({ type: ChangeRef, resolve: (c) => c['24h'] }),
  }),
})

const ExchangeOiRef = builder.objectRef<ExchangeOi>('ExchangeOi').implement({
  fields: (t) => ({
    exchange: t.exposeString('exchange'),
    ts: t.field({ type: 'Timestamp', nullable: true, resolve: (e) => e.ts }),
    oi: t.exposeFloat('oi', { nullable: true, description: 'open interest in coins (one side)' }),
    oiUsd: t.exposeFloat('oiUsd', { nullable: true }),
    changes: t.field({ type: ChangesRef, resolve: (e) => e.changes }),
    note: t.exposeString('reason', { nullable: true }),
  }),
})

const AggregateOiRef = builder.objectRef<AggregateOi>('AggregateOi').implement({
  fields: (t) => ({
    oi: t.exposeFloat('oi', { nullable: true }),
    oiUsd: t.exposeFloat('oiUsd', { nullable: true }),
    exchanges: t.stringList({ resolve: (a) => a.exchanges }),
    changes: t.field({ type: ChangesRef, description: 'over the exchanges present at both ends of each horizon', resolve: (a) => a.changes }),
    note: t.exposeString('reason', { nullable: true }),
  }),
})

type Out = CoinOiChanges & { missing: ExchangeNote[]; coverage: Coverage }

const CoinOiRef = builder.objectRef<Out>('CoinOiChanges').implement({
  description: 'Open interest and its change over 1h, 4h, 24h (docs/methodology.md#oi-changes)',
  fields: (t) => ({
    coin: t.exposeString('coin'),
    ts: t.field({ type: 'Timestamp', resolve: (o) => o.ts }),
    aggregate: t.field({ type: AggregateOiRef, resolve: (o) => o.aggregate }),
    exchanges: t.field({ type: [ExchangeOiRef], resolve: (o) => o.exchanges.filter((e) => e.ts !== null) }),
    missing: t.field({ type: [ExchangeNoteRef], resolve: (o) => o.missing }),
    coverage: t.field({ type: CoverageRef, description: 'venues with a current open interest; the window reaches back to the 24 h reference', resolve: (o) => o.coverage }),
  }),
})

builder.queryField('oiChanges', (t) =>
  t.field({
    type: [CoinOiRef],
    description: 'Open interest per exchange and aggregated, in coins and USD, with change % over 1h, 4h, 24h. Costs 3 credits (GET /v1/oi/changes).',
    args: routeArgs(t.arg, 'oiChanges'),
    resolve: async (_r, args, ctx) => {
      const coins = coinsOf(parseRouteArgs('oiChanges', args, ctx), ctx)
      const samples = await loadAll(ctx.loaders.oiSamples, coins)
      return coins.map((coin, i) => {
        const o = buildOiChanges({ coin, samples: samples[i]!, now: ctx.now })
        const seen = new Set(samples[i]!.filter((x) => x.ts <= ctx.now).map((x) => x.exchange as string))
        const current = o.exchanges.filter((e) => e.oi !== null).map((e) => e.exchange)
        const gaps: CoverageGap[] = o.exchanges
          .filter((e) => e.oi === null && seen.has(e.exchange))
          .map((e) => ({ exchange: e.exchange, status: 'stale', reason: `latest ${coin} open interest older than 5 minutes` }))
        const withOi = samples[i]!.filter((x) => x.ts <= ctx.now && x.openInterest !== null && current.includes(x.exchange as ExchangeId))
        const coverage = coverageOf(ctx, {
          used: current, gaps, noData: () => `no ${coin} perp open interest sample`,
          requested: { from: ctx.now - OI_HORIZON_MS['24h'], to: ctx.now },
          // a venue's span: its samples, each good for the tolerance the reference lookup allows
          ranges: rangesOf(withOi, OI_SAMPLE_TOLERANCE_MS),
          toleranceMs: OI_SAMPLE_TOLERANCE_MS,
        })
        return { ...o, missing: missingOrStale(o.exchanges, seen, `${coin} perp open interest sample`, '5 minutes'), coverage }
      })
    },
  }),
)
