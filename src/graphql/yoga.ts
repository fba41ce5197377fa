// graphql-yoga at /graphql: the same key and the same credit rules as REST, graphql-armor limits,
// masked errors with stable codes, and the GraphiQL explorer rendered from npm assets (no CDN).
import { EnvelopArmorPlugin } from '@escape.tech/graphql-armor'
import type { GraphQLSchema } from 'graphql'
import { createYoga, type Plugin } from 'graphql-yoga'
import type { ServerResponse } from 'node:http'
import { GRAPHQL_BODY_LIMIT_BYTES } from '../http/body-limit.js'
import type { Services } from '../services.js'
import { createContext, type RequestContext } from './context.js'
import { toGraphQLError } from './errors.js'
import { executeMetered, type CostTable } from './metering.js'

interface ServerContext {
  req: { headers: Record<string, string | string[] | undefined> }
  res: ServerResponse & { locals?: Record<string, unknown> }
}

const meteringPlugin = (costs: CostTable): Plugin<RequestContext> => ({
  onExecute({ executeFn, setExecuteFn }) {
    setExecuteFn(async (args) => {
      const ctx = args.contextValue as RequestContext & { res?: ServerResponse }
      const metered = await executeMetered(ctx, args, costs, executeFn as never)
      for (const e of metered.result.errors ?? [])
        if (e.extensions?.code === 'internal') ctx.services.logger.error({ err: e.originalError ?? e, requestId: ctx.requestId, path: e.path }, 'graphql resolver failed')
      if (ctx.res && !ctx.res.headersSent) {
        ctx.res.setHeader('X-Credits-Charged', String(metered.charged))
        if (metered.remaining !== null) ctx.res.setHeader('X-Credits-Remaining', String(metered.remaining))
      }
      const credits = metered.remaining === null ? undefined : { charged: metered.charged, remaining: metered.remaining }
      return credits ? { ...metered.result, extensions: { ...metered.result.extensions, credits } } : metered.result
    })
  },
})

export interface GraphQLOptions {
  /** credits per root field (from the endpoint registry) */
  costs: CostTable
  /** what the explorer opens with */
  explorer: { query: string; variables: string }
}

export function createGraphQL(services: Services, schema: GraphQLSchema, opts: GraphQLOptions) {
  return createYoga<ServerContext, RequestContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    // CORS is answered in front of yoga (src/http/cors.ts): yoga's own default reflects any origin with credentials
    cors: false,
    // 64 kB (the explorer's whole document), enforced while the body streams in (a declared length is refused earlier)
    maxRequestBodySize: GRAPHQL_BODY_LIMIT_BYTES,
    multipart: false,
    // the explorer's bundle (tens of MB in memory) is loaded when a browser first asks for it
    renderGraphiQL: async (opts) => (await import('@graphql-yoga/render-graphiql')).renderGraphiQL(opts),
    graphiql: {
      title: 'Perp analytics — GraphQL explorer',
      defaultQuery: opts.explorer.query,
      // render-graphiql passes this through to the Variables pane (not in yoga's option type)
      ...({ variables: opts.explorer.variables } as object),
      headers: JSON.stringify({ Authorization: 'Bearer <your API key>' }, null, 2),
      shouldPersistHeaders: true,
    },
    context: ({ req, res }) => {
      const requestId = (res.locals?.requestId as string | undefined) ?? globalThis.crypto.randomUUID()
      const auth = req.headers.authorization
      return Object.assign(createContext(services, { requestId, authorization: Array.isArray(auth) ? auth[0] : auth }), { res })
    },
    maskedErrors: {
      // internal errors are logged with the request id by the metering plugin, where the context is known
      maskError: (error) => toGraphQLError(error),
    },
    plugins: [
      EnvelopArmorPlugin({
        maxDepth: { n: 10 },
        maxAliases: { n: 20 },
        maxDirectives: { n: 20 },
        // the explorer sends its whole default document (every stored operation, ~100 tokens each) with each run
        maxTokens: { n: 8000 },
        costLimit: { maxCost: 5000 },
        blockFieldSuggestion: { enabled: true },
      }),
      meteringPlugin(opts.costs),
    ],
    logging: false,
  })
}
