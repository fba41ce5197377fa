// Errors as data: every failure a caller can cause maps to one stable code and HTTP status (docs/contract.md#errors).
// REST renders them as RFC 9457 problem+json; GraphQL puts the same fields in the error's extensions.

import { PROBLEM_CODES, type ProblemCode } from './domain/problems.js'

export { PROBLEM_CODES }
export type ErrorCode = ProblemCode

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
  new ApiError('insufficient_credits', `This call costs ${required} credit${required === 1 ? '' : 's'} and the account has ${remaining}. Buy credits to continue.`, {
    credits_required: required,
    credits_remaining: remaining,
  })

export const unavailable = (detail: string) => new ApiError('unavailable', detail)

// SQLSTATE classes that mean "the store cannot serve this now", whatever the statement: 08 connection exception,
// 53 insufficient resources (53300 too many connections), 57 operator intervention (57014 statement timeout,
// 57P01 terminated, 57P04 database dropped), 58 system error. Single codes: 3D000 database does not exist,
// 55P03 lock not available (lock_timeout), 40001/40P01 serialization failure and deadlock (safe to retry),
// 25P03 idle-in-transaction timeout.
const UNAVAILABLE_SQLSTATE_CLASSES = ['08', '53', '57', '58']
const UNAVAILABLE_SQLSTATES = ['3D000', '55P03', '40001', '40P01', '25P03']
// Node's socket errors, and Prisma's codes for an unreachable, missing or timed-out database (P1001 can't reach,
// P1002 timed out, P1003 database does not exist, P1008 operation timed out, P1017 connection closed,
// P2024 timed out waiting for a pooled connection, P2034 write conflict or deadlock)
const UNAVAILABLE_CODES = ['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'P1001', 'P1002', 'P1003', 'P1008', 'P1017', 'P2024', 'P2034']
// the driver adapters' own kinds for the same conditions (@prisma/driver-adapter-utils)
const UNAVAILABLE_KINDS = ['DatabaseNotReachable', 'DatabaseDoesNotExist', 'ConnectionClosed', 'TooManyConnections', 'SocketTimeout', 'TransactionWriteConflict']
const UNAVAILABLE_MESSAGE =
  /Connection terminated|Cannot use a pool after calling end|connect ECONNREFUSED|Client has encountered a connection error|PGlite is closed|database system is shutting down|timeout exceeded when trying to connect|Query read timeout|Can't reach database|canceling statement due to (statement|lock) timeout|database "[^"]*" does not exist|too many clients/i

const isSqlState = (code: string) => /^[0-9A-Z]{5}$/.test(code)
// the store answers but lacks the service's tables: 42P01 undefined table, 3F000 no such schema; Prisma's P2021 (the
// table does not exist) and the driver adapters' kind for it (a database re-created or emptied under the service)
const NO_SCHEMA_CODES = ['42P01', '3F000', 'P2021']
const NO_SCHEMA_KINDS = ['TableDoesNotExist']

/** walks an error, its causes and the driver's error underneath, until `test` says yes */
function anyCause(e: unknown, test: (err: { code?: unknown; message?: unknown; kind?: unknown; originalCode?: unknown }) => boolean): boolean {
  const seen = new Set<unknown>()
  const queue: unknown[] = [e]
  while (queue.length) {
    const cur = queue.shift()
    if (!cur || typeof cur !== 'object' || seen.has(cur)) continue
    seen.add(cur)
    const err = cur as { code?: unknown; message?: unknown; cause?: unknown; kind?: unknown; originalCode?: unknown; meta?: { driverAdapterError?: unknown } }
    if (test(err)) return true
    queue.push(err.cause, err.meta?.driverAdapterError)
  }
  return false
}

const isStoreWithoutSchema = (e: unknown) =>
  anyCause(e, (err) => [err.code, err.originalCode].some((c) => typeof c === 'string' && NO_SCHEMA_CODES.includes(c)) || (typeof err.kind === 'string' && NO_SCHEMA_KINDS.includes(err.kind)))

/** Errors from the store's drivers (connection refused or lost, database gone, timeouts, lock waits) mean the store cannot serve now. */
function isStoreUnavailable(e: unknown): boolean {
  return anyCause(e, (err) => {
    for (const c of [err.code, err.originalCode]) {
      if (typeof c !== 'string') continue
      if (UNAVAILABLE_CODES.includes(c) || UNAVAILABLE_SQLSTATES.includes(c)) return true
      if (isSqlState(c) && UNAVAILABLE_SQLSTATE_CLASSES.includes(c.slice(0, 2))) return true
    }
    return (typeof err.kind === 'string' && UNAVAILABLE_KINDS.includes(err.kind)) || (typeof err.message === 'string' && UNAVAILABLE_MESSAGE.test(err.message))
  })
}

/** seconds a caller should wait before retrying a 503 from the store */
const STORE_RETRY_AFTER_S = 5

/** the store did not answer within the call's bound: 503, nothing charged */
export const storeUnavailable = () => new ApiError('unavailable', 'The data store is unreachable or did not answer in time; nothing was charged. Retry shortly.', { retry_after: STORE_RETRY_AFTER_S })

/** Any error → ApiError; unknown failures become 503 when the store is down, else a generic 500 (never leaked). */
export function toApiError(e: unknown): ApiError {
  if (e instanceof ApiError) return e
  if (isStoreWithoutSchema(e))
    return new ApiError('unavailable', 'The data store answers but holds none of the service\'s tables: it was re-created or emptied under the running service. Nothing was charged; /healthz says the same. Restart the service to migrate it.', { retry_after: STORE_RETRY_AFTER_S })
  if (isStoreUnavailable(e)) return storeUnavailable()
  return new ApiError('internal', 'An unexpected error occurred; nothing was charged. It has been logged with this request id.')
}
