// ApiError ↔ GraphQLError: the same code, status and extra fields in extensions; nothing else leaks.
import { GraphQLError } from 'graphql'
import { ApiError, toApiError } from '../errors.js'

/** httpStatus: put the status in extensions.http (yoga then answers with it) — for whole-operation refusals only */
export function toGraphQLError(e: unknown, opts: { path?: readonly (string | number)[]; httpStatus?: boolean } = {}): GraphQLError {
  const original = e instanceof GraphQLError && e.originalError ? e.originalError : e
  if (original instanceof GraphQLError && !(original.originalError instanceof ApiError) && original.extensions?.code) return original
  const api = original instanceof GraphQLError && !original.originalError ? null : toApiError(original)
  if (!api) return withRequestErrorCode(original as GraphQLError) // a GraphQL validation/parse error: already safe to show
  return new GraphQLError(api.detail, {
    path: opts.path ?? (e instanceof GraphQLError ? e.path : undefined),
    extensions: { code: api.code, ...(opts.httpStatus ? { http: httpOf(api) } : {}), status: api.status, ...api.extra },
  })
}

/** the HTTP status yoga answers with, and Retry-After where the error says when to come back (an unreachable store) */
const httpOf = (api: ApiError) =>
  typeof api.extra.retry_after === 'number' ? { status: api.status, headers: { 'Retry-After': String(api.extra.retry_after) } } : { status: api.status }

/** the ApiError behind a GraphQL error (REST maps it back to problem+json) */
export function apiErrorOf(e: GraphQLError): ApiError {
  if (e.originalError instanceof ApiError) return e.originalError
  const code = e.extensions?.code
  if (typeof code === 'string' && typeof e.extensions?.status === 'number') {
    const { http: _h, code: _c, status: _s, ...extra } = e.extensions as Record<string, unknown>
    return new ApiError(code as ApiError['code'], e.message, extra)
  }
  if (e.originalError) return toApiError(e.originalError)
  return new ApiError('invalid_request', e.message)
}

/**
 * A request error without a code — graphql-armor's alias, depth, token, directive and cost limits — gets the code
 * and the status yoga gives its own validation errors: 400 for a client that accepts
 * application/graphql-response+json, 200 under the legacy application/json (the GraphQL-over-HTTP spec's rule).
 */
function withRequestErrorCode(e: GraphQLError): GraphQLError {
  if (e.extensions?.code) return e
  return new GraphQLError(e.message, {
    nodes: e.nodes,
    source: e.source,
    positions: e.positions,
    path: e.path,
    extensions: { ...e.extensions, code: 'GRAPHQL_VALIDATION_FAILED', http: { status: 400, spec: true } },
  })
}
