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
 * @returns {Promise<{ok: boolean, status: number, headers: Headers, json: any, text: string, ms: number}>}
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
    return { ok: res.ok, status: res.status, headers: res.headers, json, text, ms: Math.round(performance.now() - started) }
  } catch (e) {
    return { ok: false, status: 0, headers: new Headers(), json: null, text: String(e), ms: Math.round(performance.now() - started) }
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

const intFmt = new Intl.NumberFormat('en-US')
export const fmtInt = (n) => (n === null || n === undefined || Number.isNaN(Number(n)) ? '–' : intFmt.format(Number(n)))

/** "2026-03-02 12:00" (UTC), or a dash */
export const fmtTime = (ms) => (ms === null || ms === undefined ? '–' : new Date(Number(ms)).toISOString().slice(0, 16).replace('T', ' '))
export const fmtDay = (ms) => new Date(Number(ms)).toISOString().slice(0, 10)

/** a price with as many decimals as its size needs */
export function fmtPrice(p) {
  if (p === null || p === undefined || !Number.isFinite(Number(p))) return '–'
  const v = Number(p)
  const a = Math.abs(v)
  const digits = a >= 1000 ? 1 : a >= 100 ? 2 : a >= 1 ? 3 : a >= 0.01 ? 5 : 8
  return v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: 0 })
}

/** a size (volume) compactly: 1.2K, 3.4M */
export function fmtCompact(v) {
  if (v === null || v === undefined || !Number.isFinite(Number(v))) return '–'
  return Number(v).toLocaleString('en-US', { notation: 'compact', maximumFractionDigits: 2 })
}
