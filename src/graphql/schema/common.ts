// Types several analytics share.
import type { Stat } from '../../analytics/stats.js'
import { EXCHANGES } from '../../market/exchanges.js'
import type { ExchangeId, MarketType } from '../../market/events.js'
import { builder } from '../builder.js'

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
