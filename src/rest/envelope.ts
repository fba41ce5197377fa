// The REST response envelope (docs/contract.md#envelope): {data, meta{request_id, credits_charged, credits_remaining, as_of}}.
import type { Request, Response } from 'express'
import Negotiator from 'negotiator'
import { gzipPieces } from './gzip-pieces.js'
import type { ApiError } from '../errors.js'
import { camelToSnake } from '../domain/case.js'

// field names are few and repeat in every response: convert each once
const snakeNames = new Map<string, string>()
const snake = (k: string) => {
  let s = snakeNames.get(k)
  if (s === undefined) {
    s = camelToSnake(k)
    if (snakeNames.size < 10_000) snakeNames.set(k, s)
  }
  return s
}

/** GraphQL camelCase → REST snake_case, deeply; arrays and primitives as they are */
export function snakeKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeKeys)
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    const out: Record<string, unknown> = {}
    for (const k in value) out[snake(k)] = snakeKeys((value as Record<string, unknown>)[k])
    return out
  }
  return value instanceof Date ? value.getTime() : value
}

/** how a REST answer writes a value: snake_case keys, JSON */
export const restJson = (value: unknown): string => JSON.stringify(snakeKeys(value)) ?? 'null'

export interface Meta {
  requestId: string
  creditsCharged: number
  creditsRemaining: number | null
  asOf: number
  /** paged answers: the cursor of the next page, null on the last (docs/contract.md#paging) */
  next?: string | null
}

/** answers whose kept pieces are at least this long are gzipped from pieces compressed once (gzip-pieces.ts) */
const GZIP_PIECES_FROM = 16 * 1024

/**
 * `dataJson`: the data as REST writes it (restJson), written once per answer — a kept answer (src/rest/shim.ts) is
 * written once for all its calls, and only the envelope is new. `pieces`: the serialised body with what was kept
 * serialised apart put back (long lists, src/graphql/list-fragments.ts): strings, and the kept pieces as bytes. When those are long and the caller takes
 * gzip at least as gladly as any other encoding, the answer is gzipped here, the kept pieces compressed once; otherwise
 * the compression middleware encodes it as it does every answer (docs/contract.md#compression).
 */
export function sendData(res: Response, status: number, dataJson: string, meta: Meta, opts: { pieces?: (json: string) => (string | Buffer)[] } = {}): void {
  const metaJson = JSON.stringify({
    request_id: meta.requestId, credits_charged: meta.creditsCharged, credits_remaining: meta.creditsRemaining, as_of: meta.asOf,
    ...(meta.next !== undefined ? { next: meta.next } : {}),
  })
  const body = `{"data":${dataJson},"meta":${metaJson}}`
  res.status(status).set('Content-Type', 'application/json; charset=utf-8')
  const pieces = opts.pieces?.(body)
  if (!pieces || pieces.length === 1) {
    res.end(pieces?.[0] ?? body)
    return
  }
  const kept = pieces.reduce((n, p) => n + (typeof p === 'string' ? 0 : p.length), 0)
  if (kept >= GZIP_PIECES_FROM && takesGzip(res.req)) {
    res.vary('Accept-Encoding').set('Content-Encoding', 'gzip').end(gzipPieces(pieces))
    return
  }
  res.end(Buffer.concat(pieces.map((p) => (typeof p === 'string' ? Buffer.from(p) : p))))
}

/** negotiator 1.x's encodings(available, { preferred }): among equally wanted encodings, `preferred` first (@types/negotiator still describes 0.6) */
type Encodings = (available: readonly string[], opts: { preferred: readonly string[] }) => string[]

/** gzip is among the encodings the caller wants most (of those the service writes; equal wishes go to gzip) */
function takesGzip(req: Request): boolean {
  const negotiator = new Negotiator(req)
  return (negotiator.encodings as unknown as Encodings).call(negotiator, ['gzip', 'br', 'deflate', 'identity'], { preferred: ['gzip'] })[0] === 'gzip'
}

export function sendProblem(res: Response, err: ApiError, requestId: string): void {
  if (typeof err.extra.retry_after === 'number') res.set('Retry-After', String(err.extra.retry_after))
  res
    .status(err.status)
    .set('Content-Type', 'application/problem+json; charset=utf-8')
    .end(JSON.stringify({ ...err.toProblem(), request_id: requestId }))
}
