// The dashboard's only way to talk to the service: the public HTTP API, with the key as a Bearer token.

const STORAGE_KEY = 'perp-analytics.api-key'

/** the key this browser signs in with (localStorage; never sent anywhere but this origin's API) */
export const keyStore = {
  get() {
    try {
      return localStorage.getItem(STORAGE_KEY)
    } catch {
      return null
    }
  },
  set(key) {
    try {
      localStorage.setItem(STORAGE_KEY, key)
    } catch {
      /* private mode: the key lives for this page only */
    }
  },
  clear() {
    try {
      localStorage.removeItem(STORAGE_KEY)
    } catch {
      /* nothing stored */
    }
  },
}

/**
 * One API call. Never throws: a network failure comes back as status 0.
 * @returns {Promise<{ok: boolean, status: number, headers: Headers, json: any, text: string, ms: number, at: number}>}
 */
export async function request(path, { method = 'GET', key, body } = {}) {
  const headers = { accept: 'application/json' }
  if (key) headers.authorization = `Bearer ${key}`
  if (body !== undefined) headers['content-type'] = 'application/json'
  const started = performance.now()
  try {
    const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store', credentials: 'omit' })
    const text = await res.text()
    let json = null
    if (text) {
      try {
        json = JSON.parse(text)
      } catch {
        json = null
      }
    }
    return { ok: res.ok, status: res.status, headers: res.headers, json, text, ms: Math.round(performance.now() - started), at: Date.now() }
  } catch (e) {
    return { ok: false, status: 0, headers: new Headers(), json: null, text: String(e), ms: Math.round(performance.now() - started), at: Date.now() }
  }
}

let spec = null
/** /openapi.json, fetched once: the views and "try it" take parameters and costs from it */
export function loadSpec() {
  spec ??= request('/openapi.json').then((r) => {
    if (!r.ok || !r.json?.paths) spec = null
    return r
  })
  return spec
}

/**
 * An RFC 9457 problem answer as the page shows it: what went wrong, its stable code and the request id to
 * quote to support. A network failure or a non-problem body still gets a title.
 */
export function problemOf(r) {
  const p = r.json && typeof r.json === 'object' && !Array.isArray(r.json) ? r.json : {}
  const retry = Number(r.headers.get('retry-after'))
  return {
    status: r.status,
    title: r.status === 0 ? 'Network error' : p.title || `${r.status} ${STATUS_TEXT[r.status] ?? ''}`.trim(),
    detail: problemMessage(r),
    code: typeof p.code === 'string' ? p.code : null,
    requestId: p.request_id || r.headers.get('x-request-id') || null,
    parameter: typeof p.parameter === 'string' ? p.parameter : null,
    allowed: Array.isArray(p.allowed) ? p.allowed : null,
    creditsRequired: Number.isFinite(p.credits_required) ? p.credits_required : null,
    creditsRemaining: Number.isFinite(p.credits_remaining) ? p.credits_remaining : null,
    retryAfterMs: Number.isFinite(retry) && retry > 0 ? retry * 1000 : null,
  }
}

/** the human part of an RFC 9457 problem, or a fallback */
export function problemMessage(r) {
  if (r.status === 0) return 'The service could not be reached. Check your connection and try again.'
  const p = r.json
  if (p && typeof p === 'object') return p.detail || p.title || `HTTP ${r.status}`
  return `HTTP ${r.status}`
}

export const STATUS_TEXT = {
  200: 'OK', 201: 'Created', 400: 'Bad Request', 401: 'Unauthorized', 402: 'Payment Required', 404: 'Not Found',
  405: 'Method Not Allowed', 409: 'Conflict', 429: 'Too Many Requests', 500: 'Internal Server Error', 503: 'Service Unavailable',
}
