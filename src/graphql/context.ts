// The per-request context, built in exactly one place for REST and GraphQL alike.
import type { Principal } from '../accounts/authenticate.js'
import { authenticate } from '../accounts/authenticate.js'
import type { Services } from '../services.js'
import { createMarketLoaders, type MarketLoaders } from './market-data.js'

export interface RequestContext {
  services: Services
  requestId: string
  /** the Authorization header as received (authentication is lazy: introspection needs no key) */
  authorization: string | undefined
  /** the authenticated caller, once requirePrincipal() has run */
  principal: Principal | null
  requirePrincipal(): Promise<Principal>
  /** time the request started, Unix ms: every analytic in one request sees the same "now" */
  now: number
  /** per-request dataloaders over market data (created on first use) */
  readonly loaders: MarketLoaders
  /**
   * properties of the root field's result that are a pure function of a key, declared by resolvers that serve a
   * memoized payload (property → key, and the JSON already written for that key when the caller has it)
   */
  readonly pureFragments: Map<string, { key: string; json?: string }>
  /** REST only: the JSON the REST shim wrote before, by fragment key (a resolver may then skip that part) */
  readonly fragmentCache?: { peek(key: string): string | undefined }
}

export function createContext(
  services: Services,
  req: { requestId: string; authorization: string | undefined; principal?: Principal | null; fragmentCache?: RequestContext['fragmentCache'] },
): RequestContext {
  let pending: Promise<Principal> | null = null
  let loaders: MarketLoaders | undefined
  const ctx: RequestContext = {
    services,
    requestId: req.requestId,
    authorization: req.authorization,
    principal: req.principal ?? null,
    now: services.clock(),
    pureFragments: new Map(),
    fragmentCache: req.fragmentCache,
    get loaders() {
      return (loaders ??= createMarketLoaders(services.market, ctx.now))
    },
    requirePrincipal() {
      if (ctx.principal) return Promise.resolve(ctx.principal)
      pending ??= authenticate(services.db.sql, req.authorization).then((p) => (ctx.principal = p))
      return pending
    },
  }
  return ctx
}
