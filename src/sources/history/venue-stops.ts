// How Bybit, OKX and the dYdX indexer say "stop" (the budget pauses the venue until then; a history page that got it
// waits and is asked again). Hyperliquid says it with a plain 429 (httpStopRule). Sources in docs/connectors.md.
import { httpStopRule, retryAfterMs, type StopRule } from './ccxt-budget.js'

const SECOND = 1000

const header = (h: Record<string, string>, name: string): string | undefined => {
  const k = Object.keys(h).find((x) => x.toLowerCase() === name)
  return k === undefined ? undefined : h[k]
}

/** a JSON body's field, when the body is JSON */
function bodyField(body: string, field: string): unknown {
  if (!body.startsWith('{')) return undefined
  try {
    return (JSON.parse(body) as Record<string, unknown>)[field]
  } catch {
    return undefined
  }
}

/** Bybit's IP ban lasts "at least 10 minutes" */
const BYBIT_BAN_MS = 10 * 60 * SECOND

/**
 * Bybit: "403, access too frequent" is the IP limit's ban (10 minutes at least; any other 403 is a refusal, e.g. a
 * geo-block); retCode 10006 ("Too many visits!", HTTP 200) waits until X-Bapi-Limit-Reset-Timestamp (else a second,
 * the per-second window); 429/418 as HTTP says.
 */
export const bybitStopRule: StopRule = (status, headers, body, now) => {
  if (status === 403 && /access too frequent/i.test(body)) return { until: now + BYBIT_BAN_MS, kind: 'banned' }
  if (Number(bodyField(body, 'retCode')) === 10006) {
    const reset = Number(header(headers, 'x-bapi-limit-reset-timestamp'))
    return { until: Number.isFinite(reset) && reset > now ? reset : now + SECOND, kind: 'rate_limited' }
  }
  return httpStopRule(status, headers, body, now)
}

/** OKX's limits count 2-second windows */
const OKX_WINDOW_MS = 2 * SECOND

/** OKX: HTTP 429 or code 50011 ("Rate limit reached"): until Retry-After, else the end of a 2-second window */
export const okxStopRule: StopRule = (status, headers, body, now) => {
  if (status !== 429 && String(bodyField(body, 'code')) !== '50011') return null
  return { until: now + (retryAfterMs(headers, now) ?? OKX_WINDOW_MS), kind: 'rate_limited' }
}

/** the indexer's window */
const DYDX_WINDOW_MS = 10 * SECOND

/**
 * dYdX indexer (rate-limiter-flexible behind express): 429 until Retry-After, else RateLimit-Reset (seconds from now,
 * or an epoch in seconds or ms), else the end of a 10-second window.
 */
export const dydxStopRule: StopRule = (status, headers, _body, now) => {
  if (status !== 429) return null
  const after = retryAfterMs(headers, now)
  if (after !== null) return { until: now + after, kind: 'rate_limited' }
  const reset = Number(header(headers, 'ratelimit-reset'))
  let until = now + DYDX_WINDOW_MS
  if (Number.isFinite(reset) && reset > 0) until = reset >= 1e12 ? reset : reset >= 1e9 ? reset * SECOND : now + reset * SECOND
  return { until: Math.max(until, now), kind: 'rate_limited' }
}
