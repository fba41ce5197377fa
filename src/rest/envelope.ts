// The REST response envelope (docs/contract.md#envelope): {data, meta{request_id, credits_charged, credits_remaining, as_of}}.
import type { Response } from 'express'
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

/** `splice`: puts back into the serialised body what was kept serialised apart (long lists, src/graphql/list-fragments.ts) */
export function sendData(res: Response, status: number, data: unknown, meta: Meta, opts: { splice?: (json: string) => string | Buffer } = {}): void {
  const metaJson = JSON.stringify({
    request_id: meta.requestId, credits_charged: meta.creditsCharged, credits_remaining: meta.creditsRemaining, as_of: meta.asOf,
    ...(meta.next !== undefined ? { next: meta.next } : {}),
  })
  const body = `{"data":${restJson(data)},"meta":${metaJson}}`
  res.status(status).set('Content-Type', 'application/json; charset=utf-8').end(opts.splice ? opts.splice(body) : body)
}

export function sendProblem(res: Response, err: ApiError, requestId: string): void {
  if (typeof err.extra.retry_after === 'number') res.set('Retry-After', String(err.extra.retry_after))
  res
    .status(err.status)
    .set('Content-Type', 'application/problem+json; charset=utf-8')
    .end(JSON.stringify({ ...err.toProblem(), request_id: requestId }))
}
