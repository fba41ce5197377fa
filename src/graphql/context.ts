// The per-request context, built in exactly one place for REST and GraphQL alike.
import { initContextCache } from '@pothos/core'
import type { ServerResponse } from 'node:http'
import type { Principal } from '../accounts/authenticate.js'
import { authenticate } from '../accounts/authenticate.js'
import type { Services } from '../services.js'
import type { ListFragments } from './list-fragments.js'

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
  /** REST only: the endpoint's parameters as the REST shim parsed them, by root field (parsed once) */
  readonly parsedParams?: ReadonlyMap<string, unknown>
  /** REST only: long lists whose JSON is written once per source array (./list-fragments.ts) */
  readonly fragments?: ListFragments
  /** GraphQL over HTTP: the response, whose unsent bytes a subscription watches (./stream-bounds.ts) */
  res?: ServerResponse
}

export function createContext(
  services: Services,
  req: { requestId: string; authorization: string | undefined; principal?: Principal | null; parsedParams?: ReadonlyMap<string, unknown>; fragments?: ListFragments },
): RequestContext {
  let pending: Promise<Principal> | null = null
  const ctx: RequestContext = {
    // the dataloader plugin keeps its per-request loaders here
    ...initContextCache(),
    services,
    requestId: req.requestId,
    authorization: req.authorization,
    principal: req.principal ?? null,
    now: services.clock(),
    parsedParams: req.parsedParams,
    fragments: req.fragments,
    requirePrincipal() {
      if (ctx.principal) return Promise.resolve(ctx.principal)
      pending ??= authenticate(services.db.sql, req.authorization).then((p) => (ctx.principal = p))
      return pending
    },
  }
  return ctx
}
