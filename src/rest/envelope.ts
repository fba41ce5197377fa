// The REST response envelope (decisions.md): {data, meta{request_id, credits_charged, credits_remaining, as_of}}.
import type { Response } from 'express'
import type { ApiError } from '../errors.js'
import { camelToSnake } from './params.js'

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

export interface Meta {
  requestId: string
  creditsCharged: number
  creditsRemaining: number | null
  asOf: number
}

/**
 * JSON of pure fragments by key, least recently used first out: a large memoized part of a payload (30 days of
 * candles) is serialized once per data version instead of once per request.
 */
export class FragmentCache {
  private readonly entries = new Map<string, string>()
  constructor(private readonly maxEntries = 32) {}

  /** the JSON written for key, if still held */
  peek(key: string): string | undefined {
    const text = this.entries.get(key)
    if (text !== undefined) {
      this.entries.delete(key)
      this.entries.set(key, text)
    }
    return text
  }

  /** the JSON written for key, written now from value if not held */
  json(key: string, value: unknown): string {
    const held = this.peek(key)
    if (held !== undefined) return held
    const text = JSON.stringify(snakeKeys(value))
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!)
    this.entries.set(key, text)
    return text
  }
}

export interface Fragments {
  /** property → its key, and the JSON already held for it (then the property's value is a placeholder) */
  entries: ReadonlyMap<string, { key: string; json?: string }>
  cache: FragmentCache
}

/** `data` as REST JSON; properties named in `fragments` are written once per key and reused */
export function dataJson(data: unknown, fragments?: Fragments): string {
  if (!fragments?.entries.size || !data || typeof data !== 'object' || Array.isArray(data)) return JSON.stringify(snakeKeys(data)) ?? 'null'
  const rest: Record<string, unknown> = {}
  const parts: string[] = []
  for (const [k, v] of Object.entries(data)) {
    const f = fragments.entries.get(k)
    if (f && v !== null && v !== undefined) parts.push(`${JSON.stringify(snake(k))}:${f.json ?? fragments.cache.json(f.key, v)}`)
    else rest[k] = v
  }
  const head = JSON.stringify(snakeKeys(rest))
  if (!parts.length) return head
  return head === '{}' ? `{${parts.join(',')}}` : `${head.slice(0, -1)},${parts.join(',')}}`
}

export function sendData(res: Response, status: number, data: unknown, meta: Meta, alreadySnake = false, fragments?: Fragments): void {
  const metaJson = JSON.stringify({ request_id: meta.requestId, credits_charged: meta.creditsCharged, credits_remaining: meta.creditsRemaining, as_of: meta.asOf })
  const body = `{"data":${alreadySnake ? JSON.stringify(data) : dataJson(data, fragments)},"meta":${metaJson}}`
  res.status(status).set('Content-Type', 'application/json; charset=utf-8').end(body)
}

export function sendProblem(res: Response, err: ApiError, requestId: string): void {
  if (typeof err.extra.retry_after === 'number') res.set('Retry-After', String(err.extra.retry_after))
  res
    .status(err.status)
    .set('Content-Type', 'application/problem+json; charset=utf-8')
    .end(JSON.stringify({ ...err.toProblem(), request_id: requestId }))
}
