// Everything the page shows as text: times in the reader's time zone (Intl.DateTimeFormat, never raw
// milliseconds), prices, sizes, rates and durations in the reader's locale.

const ZONE_PREF = 'perp-analytics.time-zone'

/** the browser's own zone (what "local" means) */
export const BROWSER_ZONE = new Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC'

function storedZone() {
  try {
    return localStorage.getItem(ZONE_PREF) === 'UTC' ? 'UTC' : BROWSER_ZONE
  } catch {
    return BROWSER_ZONE
  }
}

let zone = storedZone()

/** the zone times are shown in: the browser's, or UTC when the reader chose it */
export const timeZone = () => zone

/** switch zones; everything that shows times listens for 'timezonechange' on window and redraws */
export function setTimeZone(choice) {
  zone = choice === 'UTC' ? 'UTC' : BROWSER_ZONE
  try {
    if (choice === 'UTC') localStorage.setItem(ZONE_PREF, 'UTC')
    else localStorage.removeItem(ZONE_PREF)
  } catch {
    /* private mode: the choice lasts for this page */
  }
  window.dispatchEvent(new Event('timezonechange'))
}

/** the service's intervals in ms (src/domain/windows.ts) */
export const INTERVAL_MS = { '1m': 60_000, '5m': 300_000, '15m': 900_000, '1h': 3_600_000, '4h': 14_400_000, '1d': 86_400_000 }

const formatters = new Map()
function dtf(options) {
  const key = `${zone}|${JSON.stringify(options)}`
  let f = formatters.get(key)
  if (!f) {
    f = new Intl.DateTimeFormat(undefined, { ...options, timeZone: zone })
    formatters.set(key, f)
  }
  return f
}

const FULL = { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23', timeZoneName: 'short' }
const SHORT = { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }
const MINUTE = { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }
const DATE = { year: 'numeric', month: 'short', day: 'numeric' }

const valid = (ms) => ms !== null && ms !== undefined && ms !== '' && Number.isFinite(Number(ms))

/** "Mar 2, 2026, 17:30:30 GMT+5:30" */
const fmtTimeFull = (ms) => (valid(ms) ? dtf(FULL).format(Number(ms)) : '–')
/** "Mar 2, 17:30:30" (the zone is named once, in the page header) */
export const fmtTime = (ms) => (valid(ms) ? dtf(SHORT).format(Number(ms)) : '–')
/** "Mar 2, 17:30" */
export const fmtMinute = (ms) => (valid(ms) ? dtf(MINUTE).format(Number(ms)) : '–')
/** "Mar 2, 2026" */
export const fmtDate = (ms) => (valid(ms) ? dtf(DATE).format(Number(ms)) : '–')
/** a calendar day as the service buckets it (UTC), e.g. "Mar 2" */
export const fmtUtcDay = (ms) => new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' }).format(Number(ms))
export const fmtUtcDate = (ms) => new Intl.DateTimeFormat(undefined, { ...DATE, timeZone: 'UTC' }).format(Number(ms))

/** the zone's short name as the reader sees it, e.g. "GMT+5:30" or "UTC" */
export function zoneLabel(at = Date.now()) {
  const part = dtf({ timeZoneName: 'short' }).formatToParts(at).find((p) => p.type === 'timeZoneName')
  return part?.value ?? zone
}

/** a <time> element: human text in the reader's zone, the instant in ISO form for machines, the full form on hover */
export function timeEl(ms, format = fmtTime) {
  const el = document.createElement('time')
  if (!valid(ms)) {
    el.textContent = '–'
    return el
  }
  el.dateTime = new Date(Number(ms)).toISOString()
  el.textContent = format(ms)
  el.title = fmtTimeFull(ms)
  return el
}

/** "1 h 20 min", "45 s", "3 d 4 h" (two largest units) */
export function fmtDuration(ms) {
  if (!valid(ms)) return '–'
  let s = Math.round(Math.abs(Number(ms)) / 1000)
  const parts = []
  for (const [unit, size] of [['d', 86_400], ['h', 3600], ['min', 60], ['s', 1]]) {
    const n = Math.floor(s / size)
    if (n > 0 || (unit === 's' && parts.length === 0)) parts.push(`${n} ${unit}`)
    s -= n * size
  }
  return parts.slice(0, 2).join(' ')
}

/** "in 1 h 20 min" / "5 s ago", relative to `reference` (the server's as_of, so a skewed client clock does not matter) */
export function fmtRelative(ms, reference) {
  if (!valid(ms) || !valid(reference)) return '–'
  const d = Number(ms) - Number(reference)
  if (Math.abs(d) < 1000) return 'now'
  return d > 0 ? `in ${fmtDuration(d)}` : `${fmtDuration(d)} ago`
}

const num = (v) => (v === null || v === undefined || v === '' || !Number.isFinite(Number(v)) ? null : Number(v))
const nf = (opts) => new Intl.NumberFormat(undefined, opts)
const INT = nf({ maximumFractionDigits: 0 })

export const fmtInt = (v) => (num(v) === null ? '–' : INT.format(num(v)))

/** a price with as many decimals as its size needs */
export function fmtPrice(p) {
  const v = num(p)
  if (v === null) return '–'
  const a = Math.abs(v)
  const digits = a >= 1000 ? 1 : a >= 100 ? 2 : a >= 1 ? 3 : a >= 0.01 ? 5 : 8
  return v.toLocaleString(undefined, { maximumFractionDigits: digits })
}

/** a size compactly: 1.2K, 3.4M */
export const fmtCompact = (v) => (num(v) === null ? '–' : nf({ notation: 'compact', maximumFractionDigits: 2 }).format(num(v)))
/** US dollars compactly: $13.64B */
export const fmtUsd = (v) => (num(v) === null ? '–' : nf({ style: 'currency', currency: 'USD', notation: 'compact', maximumFractionDigits: 2 }).format(num(v)))
/** a number already in percent: "-0.08 %" (a change: sign shown), or "83.8 %" with signed = false */
export const fmtPct = (v, digits = 2, signed = true) =>
  num(v) === null ? '–' : `${nf({ maximumFractionDigits: digits, minimumFractionDigits: Math.min(digits, 2), signDisplay: signed ? 'exceptZero' : 'auto' }).format(num(v))} %`
/**
 * a fraction shown as percent with three significant digits (funding rates span 0.0004 % to 0.1 %):
 * 0.00022327 → "+0.0223 %" (a rate: sign shown), or "37.3 %" with signed = false
 */
export function fmtRate(v, signed = true) {
  if (num(v) === null) return '–'
  const pct = num(v) * 100
  const opts = Math.abs(pct) >= 100 ? { maximumFractionDigits: 0 } : { maximumSignificantDigits: 3 }
  return `${nf({ ...opts, signDisplay: signed ? 'exceptZero' : 'auto' }).format(pct)} %`
}
/** basis points */
export const fmtBps = (v) => (num(v) === null ? '–' : `${nf({ maximumFractionDigits: 1, minimumFractionDigits: 1 }).format(num(v))} bps`)
/** a z-score or ratio: two decimals, sign shown */
export const fmtZ = (v) => (num(v) === null ? '–' : nf({ maximumFractionDigits: 2, minimumFractionDigits: 2, signDisplay: 'exceptZero' }).format(num(v)))
export const fmtRatio = (v) => (num(v) === null ? '–' : nf({ maximumFractionDigits: 2, minimumFractionDigits: 2 }).format(num(v)))

const plural = (n, one, many = `${one}s`) => `${fmtInt(n)} ${Number(n) === 1 ? one : many}`
export const creditsLabel = (n) => plural(n, 'credit')

/** the zone's offset from UTC at an instant, in ms */
function zoneOffsetMs(ms, tz) {
  const f = new Intl.DateTimeFormat('en-US', { timeZone: tz, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' })
  const p = Object.fromEntries(f.formatToParts(ms).map((x) => [x.type, Number(x.value)]))
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - Math.floor(ms / 1000) * 1000
}

/** a datetime-local value ("2026-03-02T17:30") read as wall time in the shown zone → Unix ms, or null */
export function wallTimeToMs(value, tz = zone) {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value ?? '')
  if (!m) return null
  const wall = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +(m[6] ?? 0))
  // two passes settle the offset across a daylight-saving change
  const first = wall - zoneOffsetMs(wall, tz)
  return wall - zoneOffsetMs(first, tz)
}
