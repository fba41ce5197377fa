// The Pothos builder and its plugins; types live in one file per domain under src/graphql/schema/.
import SchemaBuilder from '@pothos/core'
import DataloaderPlugin from '@pothos/plugin-dataloader'
import PrismaPlugin from '@pothos/plugin-prisma'
import SimpleObjectsPlugin from '@pothos/plugin-simple-objects'
import type PrismaTypes from '../generated/pothos-prisma-types.js'
import { getDatamodel } from '../generated/pothos-prisma-types.js'
import type { RequestContext } from './context.js'

export const builder = new SchemaBuilder<{
  PrismaTypes: PrismaTypes
  Context: RequestContext
  DefaultFieldNullability: false
  Scalars: {
    Timestamp: { Input: number; Output: number | Date }
    JSON: { Input: unknown; Output: unknown }
  }
}>({
  plugins: [PrismaPlugin, DataloaderPlugin, SimpleObjectsPlugin],
  defaultFieldNullability: false,
  prisma: {
    // the client is built at run time from configuration, so each request brings it in its context
    client: (ctx) => ctx.services.db.prisma,
    dmmf: getDatamodel(),
    exposeDescriptions: true,
    filterConnectionTotalCount: true,
    onUnusedQuery: null,
  },
})

builder.scalarType('Timestamp', {
  description: 'Unix epoch milliseconds (UTC)',
  serialize: (v) => (v instanceof Date ? v.getTime() : Number(v)),
  parseValue: (v) => {
    const n = Number(v)
    if (!Number.isFinite(n)) throw new TypeError('Timestamp must be Unix epoch milliseconds')
    return n
  },
})

builder.scalarType('JSON', {
  description: 'Arbitrary JSON',
  serialize: (v) => v,
  parseValue: (v) => v,
})

builder.queryType({})
builder.mutationType({})
