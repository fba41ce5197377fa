// Types several analytics share.
import type { Stat } from '../../analytics/stats.js'
import { EXCHANGES } from '../../market/exchanges.js'
import type { ExchangeId, MarketType } from '../../market/events.js'
import { builder } from '../builder.js'

export const FundingKindEnum = builder.enumType('FundingKind', {
  description: 'predicted: the rate the next settlement will use, as it stands now (what tickers carry); settled: a past settlement (docs/methodology.md#funding-kind)',
  values: ['predicted', 'settled'] as const,
})

export interface ExchangeNote {
  exchange: string
  reason: string
}

export const ExchangeNoteRef = builder.objectRef<ExchangeNote>('ExchangeNote').implement({
  description: 'An exchange left out of a result, and why (not listed, no data in the window, stale feed)',
  fields: (t) => ({ exchange: t.exposeString('exchange'), reason: t.exposeString('reason') }),
})

/** exchanges listing the market type that contributed nothing, with the reason */
export function missingExchanges(marketType: MarketType, present: Iterable<ExchangeId | string>, reason: (e: ExchangeId) => string, only?: ExchangeId): ExchangeNote[] {
  const have = new Set(present)
  return EXCHANGES.filter((e) => (only ? e.id === only : true))
    .filter((e) => !have.has(e.id))
    .map((e) => ({ exchange: e.id, reason: e.marketTypes.includes(marketType) ? reason(e.id) : `${e.name} has no ${marketType} market` }))
}

export const statFields = {
  value: (s: Stat) => s.value,
  reason: (s: Stat) => s.reason,
  points: (s: Stat) => s.points,
}

/** missing venues of a per-coin result: stale when the venue has data (only too old), else no data */
export function missingOrStale(present: readonly { exchange: string; ts: number | null }[], seen: ReadonlySet<string>, what: string, maxAge: string): ExchangeNote[] {
  const have = present.filter((e) => e.ts !== null).map((e) => e.exchange)
  return missingExchanges('perp', have, (e) => (seen.has(e) ? `latest ${what} older than ${maxAge} (stale feed)` : `no ${what}`))
}
