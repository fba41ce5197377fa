// GET /v1/markets/exchanges (1 credit): the five venues, their type and the status of their feeds.
import { z } from 'zod'
import '../graphql/schema/exchanges.js'
import { EXCHANGES } from '../domain/exchanges.js'
import { defineEndpoint } from './define.js'

const ORDER = new Map(EXCHANGES.map((e, i) => [e.id as string, i]))

export const exchanges = defineEndpoint({
  path: '/v1/markets/exchanges',
  field: 'exchanges',
  operation: 'exchanges',
  cost: 1,
  summary: 'The five supported exchanges with type (CEX/DEX) and feed status',
  description: 'All five supported exchanges with their type and feed status.',
  params: z.object({}),
  graphql: (t, f) =>
    t.prismaField({
      type: ['Exchange'],
      description: f.description,
      // the five rows are static but for freshness, which lives in memory and is re-read from the store every 2 s
      resolve: (_query, _root, _args, ctx) => [...ctx.services.market.exchangeRows].sort((a, b) => (ORDER.get(a.id) ?? 99) - (ORDER.get(b.id) ?? 99)),
    }),
})
