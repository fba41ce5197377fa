import type { ExchangeId } from '../../domain/exchanges.js'
import { POSITIONING_FEEDS } from '../../domain/liquidations.js'
import { builder } from '../builder.js'
import { FeedInfoRef } from './liquidations.js'
import { LiquidationFeedRef } from './liquidation-coverage.js'
import type { MarketState } from '../../read/state.js'
import { liquidationFeeds } from '../../read/liquidation-coverage.js'
import { unansweredVenues } from '../../sources/source-choice.js'

const ExchangeTypeEnum = builder.enumType('ExchangeType', { values: ['CEX', 'DEX'] as const })
const MarketSourceKindEnum = builder.enumType('MarketSourceKind', {
  description: "Where a venue's data comes from: the venue itself (live), the market simulator, or a replayed recording of the venue (docs/connectors.md#auto)",
  values: ['simulator', 'live', 'replay'] as const,
})
const ExchangeStatusEnum = builder.enumType('ExchangeStatus', {
  description: 'Derived from the freshness of the exchange feed (docs/data.md)',
  values: ['operational', 'degraded', 'down'] as const,
})

builder.prismaObject('Exchange', {
  description: 'A supported venue',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    type: t.field({ type: ExchangeTypeEnum, resolve: (e) => e.type as 'CEX' | 'DEX' }),
    status: t.field({ type: ExchangeStatusEnum, resolve: (e, _a, ctx) => ctx.services.market.status(e.id as ExchangeId, ctx.now) }),
    statusReason: t.string({
      nullable: true,
      description: 'why the status is not operational (a quiet feed, a replay that could not answer a call, a venue this deployment does not collect)',
      resolve: (e, _a, ctx) => statusReason(ctx.services.market, e.id as ExchangeId, ctx.now),
    }),
    lastUpdate: t.field({
      type: 'Timestamp',
      nullable: true,
      description: 'time of the newest market event seen from this exchange',
      resolve: (e, _a, ctx) => ctx.services.market.lastEventAt(e.id as ExchangeId) ?? e.lastEventAt?.getTime() ?? null,
    }),
    liquidations: t.field({
      type: LiquidationFeedRef,
      description: 'the venue\'s liquidation feed: from where, complete or a sample, which price, and its own stream\'s status (Hyperliquid publishes none; docs/methodology.md#liquidations)',
      resolve: async (e, _a, ctx) => (await liquidationFeeds(ctx)).get(e.id as ExchangeId)!,
    }),
    positioning: t.field({
      type: FeedInfoRef,
      description: 'whether the venue publishes long/short ratios, and from where (the DEXs publish none; docs/methodology.md#positioning)',
      resolve: (e) => POSITIONING_FEEDS[e.id as ExchangeId],
    }),
    source: t.field({
      type: MarketSourceKindEnum,
      nullable: true,
      description: "where this venue's data comes from: live (the venue), simulator (simulated, not real prices) or replay (a recording); null when nothing feeds it here. One deployment never mixes them (MARKET_SOURCE, docs/connectors.md#auto)",
      resolve: (e, _a, ctx) => ctx.services.market.sourceOf(e.id as ExchangeId),
    }),
  }),
})

function statusReason(market: MarketState, id: ExchangeId, now: number): string | null {
  const status = market.status(id, now)
  if (status === 'operational') return null
  const refused = market.refusal(id)
  if (refused) return refused
  const marked = status === 'degraded' ? market.degradedReason(id) : null
  if (marked) return marked
  const last = market.lastEventAt(id)
  if (last === null) return market.enabled.has(id) ? 'no market event received yet' : (unansweredVenues(market.sourceChoice).get(id) ?? 'not collected by this deployment (MARKET_SOURCE)')
  return `no market event for ${Math.round((now - last) / 1000)} s`
}

