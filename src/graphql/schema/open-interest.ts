// /v1/oi/changes
import { OI_CHANGE_HORIZONS, type AggregateOi, type CoinOiChanges, type ExchangeOi, type OiChange } from '../../analytics/oi-changes.js'
import type { ExchangeNote } from '../../read/coverage.js'
import { builder } from '../builder.js'
import type { Coverage } from '../../analytics/coverage.js'
import { CoverageRef, ExchangeNoteRef } from './common.js'

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

export type OiChangesOut = CoinOiChanges & { missing: ExchangeNote[]; coverage: Coverage }

export const CoinOiRef = builder.objectRef<OiChangesOut>('CoinOiChanges').implement({
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

