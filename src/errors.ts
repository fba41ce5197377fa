// Errors as data: every failure a caller can cause maps to one stable code and HTTP status (decisions.md).
// REST renders them as RFC 9457 problem+json; GraphQL puts the same fields in the error's extensions.

export type ErrorCode =
  | 'invalid_parameter'
  | 'invalid_request'
  | 'unauthorized'
  | 'insufficient_credits'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limited'
  | 'unavailable'
  | 'internal'

const STATUS: Record<ErrorCode, number> = {
  invalid_parameter: 400,
  invalid_request: 400,
  unauthorized: 401,
  insufficient_credits: 402,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  unavailable: 503,
  internal: 500,
}

const TITLE: Record<ErrorCode, string> = {
  invalid_parameter: 'Invalid parameter',
  invalid_request: 'Invalid request',
  unauthorized: 'Unauthorized',
  insufficient_credits: 'Insufficient credits',
  not_found: 'Not found',
  method_not_allowed: 'Method not allowed',
  conflict: 'Conflict',
  payload_too_large: 'Payload too large',
  unsupported_media_type: 'Unsupported media type',
  rate_limited: 'Too many requests',
  unavailable: 'Service unavailable',
  internal: 'Internal error',
}

export class ApiError extends Error {
  readonly status: number
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    /** extra top-level fields: parameter, allowed, credits_required, ... (snake_case, as sent) */
    readonly extra: Record<string, unknown> = {},
  ) {
    super(detail)
    this.status = STATUS[code]
  }

  get title(): string {
    return TITLE[this.code]
  }

  toProblem(): Record<string, unknown> {
    return { type: `urn:perp-analytics:problem:${this.code}`, title: this.title, status: this.status, detail: this.detail, code: this.code, ...this.extra }
  }
}

export const invalidParameter = (parameter: string, detail: string, allowed?: readonly (string | number)[]) =>
  new ApiError('invalid_parameter', detail, allowed ? { parameter, allowed: [...allowed] } : { parameter })

export const unauthorized = (detail = 'A valid API key is required: send it as "Authorization: Bearer <key>".') => new ApiError('unauthorized', detail)

export const insufficientCredits = (required: number, remaining: number) =>
  new ApiError('insufficient_credits', `This call costs ${required} credits and the account has ${remaining}. Buy credits to continue.`, {
    credits_required: required,
    credits_remaining: remaining,
  })

export const unavailable = (detail: string) => new ApiError('unavailable', detail)

/** Errors from the store's drivers (connection refused, terminated, pool closed) mean the store is unreachable. */
export function isStoreUnavailable(e: unknown): boolean {
  const seen = new Set<unknown>()
  let cur: unknown = e
  while (cur && typeof cur === 'object' && !seen.has(cur)) {
    seen.add(cur)
    const err = cur as { code?: unknown; message?: unknown; cause?: unknown; kind?: unknown }
    const code = typeof err.code === 'string' ? err.code : ''
    const msg = typeof err.message === 'string' ? err.message : ''
    if (['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08006', 'P1001', 'P1002', 'P1017', 'P2024'].includes(code)) return true
    if (/Connection terminated|Cannot use a pool after calling end|connect ECONNREFUSED|Client has encountered a connection error|PGlite is closed|database system is shutting down|timeout exceeded when trying to connect|Can't reach database/i.test(msg)) return true
    cur = err.cause
  }
  return false
}

/** Any error → ApiError; unknown failures become 503 when the store is down, else a generic 500 (never leaked). */
export function toApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e
  if (isStoreUnavailable(e)) return unavailable('The data store is unreachable; nothing was charged. Retry shortly.')
  return new ApiError('internal', 'An unexpected error occurred; nothing was charged. It has been logged with this request id.')
}
