// The hook that puts a CCXT instance's REST calls on the venue budget: its own limiter is turned off (the budget
// replaces it), every call draws from the budget at live priority unless a history fetch already paid for it, and
// every answer is read for the venue saying stop (429 with Retry-After, Binance's 418 ban, a venue's own code).
// Also how a history fetch learns the HTTP status and headers of its own call (CCXT's errors carry neither).
import { AsyncLocalStorage } from 'node:async_hooks'
import type { Exchange } from 'ccxt'
import type { Draw, VenueBudget } from './budget.js'

/** the answer of one call, as a history fetch sees it */
export interface CallRecord {
  status: number | null
  headers: Record<string, string>
  body: string | null
}

const calls = new AsyncLocalStorage<CallRecord>()

/** the venue asked us to wait: until when (Unix ms) and whether it is a ban */
export interface StopSignal {
  until: number
  kind: 'rate_limited' | 'banned'
}

/** a venue's rule for reading "stop" out of an answer (default: HTTP 429/418 with Retry-After) */
export type StopRule = (status: number, headers: Record<string, string>, body: string, now: number) => StopSignal | null

const header = (h: Record<string, string>, name: string): string | undefined => {
  const k = Object.keys(h).find((x) => x.toLowerCase() === name)
  return k === undefined ? undefined : h[k]
}

/** Retry-After in seconds (or an HTTP date), as ms from now; null when absent or unreadable */
export function retryAfterMs(headers: Record<string, string>, now: number): number | null {
  const v = header(headers, 'retry-after')
  if (v === undefined) return null
  const s = Number(v)
  if (Number.isFinite(s) && s >= 0) return s * 1000
  const t = Date.parse(v)
  return Number.isFinite(t) ? Math.max(0, t - now) : null
}

/** when nothing says how long: a minute (Binance's weight window; Bybit's and OKX's are shorter) */
const DEFAULT_STOP_MS = 60_000

/**
 * 429: rate limited until Retry-After; 418 (Binance: an address that kept going after 429s is banned): until the ban
 * ends, which Binance states in the body ("IP banned until 1659146400000") and in Retry-After.
 */
export const httpStopRule: StopRule = (status, headers, body, now) => {
  if (status !== 429 && status !== 418) return null
  const until = /banned until (\d{12,})/.exec(body)?.[1]
  const after = retryAfterMs(headers, now)
  const end = until ? Math.max(Number(until), now + (after ?? 0)) : now + (after ?? DEFAULT_STOP_MS)
  return { until: end, kind: status === 418 ? 'banned' : 'rate_limited' }
}

interface Hookable {
  fetch2: (path: string, api?: unknown, method?: string, params?: Record<string, unknown>, headers?: unknown, body?: unknown, config?: Record<string, unknown>) => Promise<unknown>
  onRestResponse: (status: number, statusText: string, url: string, method: string, resHeaders: Record<string, string>, body: string, reqHeaders: unknown, reqBody: unknown) => string
  throttle: (cost?: number) => Promise<unknown>
  calculateRateLimiterCost: (api: unknown, method: string, path: string, params: Record<string, unknown>, config: Record<string, unknown>) => number
}

/**
 * Draw every REST call of `ex` from `budget` (`price`: the draws of one call from CCXT's api, path and own cost).
 * Idempotent per instance.
 */
export function drawFromBudget(ex: Exchange, budget: VenueBudget, price: (api: string, path: string, ccxtCost: number) => Draw[], stop: StopRule = httpStopRule): void {
  const h = ex as unknown as Hookable & { __budget?: VenueBudget }
  if (h.__budget) return
  h.__budget = budget
  const fetch2 = h.fetch2.bind(ex)
  const onRest = h.onRestResponse.bind(ex)
  // the budget is the limiter now (CCXT's own one would wait a second time, at its own, stricter, idea of the limit)
  h.throttle = () => Promise.resolve()
  h.fetch2 = async (path, api = 'public', method = 'GET', params = {}, headers, body, config = {}) => {
    if (!calls.getStore()) {
      const apiName = Array.isArray(api) ? api.join('') : String(api)
      const cost = Number(h.calculateRateLimiterCost(api, method, path, params, config)) || 1
      await budget.acquire(price(apiName, path, cost), 'live')
    }
    return fetch2(path, api, method, params, headers, body, config)
  }
  h.onRestResponse = (status, statusText, url, method, resHeaders, body, reqHeaders, reqBody) => {
    const text = onRest(status, statusText, url, method, resHeaders, body, reqHeaders, reqBody)
    const rec = calls.getStore()
    if (rec) {
      rec.status = status
      rec.headers = resHeaders ?? {}
      rec.body = typeof text === 'string' ? text : null
    }
    const s = stop(status, resHeaders ?? {}, typeof text === 'string' ? text : '', budget.now())
    if (s) budget.pause(s.until, s.kind)
    return text
  }
}

/** run a call that the caller already drew from the budget, and record its answer's status and headers */
export async function paidCall<T>(fn: () => Promise<T>): Promise<{ value: T; record: CallRecord } | { error: unknown; record: CallRecord }> {
  const record: CallRecord = { status: null, headers: {}, body: null }
  try {
    return { value: await calls.run(record, fn), record }
  } catch (error) {
    return { error, record }
  }
}
