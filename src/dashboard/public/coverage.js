// What a figure lacks: the payload's `coverage` object (venues used, venues missing with a status and a
// reason, the time range covered, `partial`) and the older `missing` arrays, merged per venue. Fields this
// page does not know yet are ignored, so payloads can grow without breaking it.
import { h } from './dom.js'
import { fmtMinute } from './format.js'

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v)

/** @returns {{ partial: boolean, missing: {exchange: string, status: string|null, reason: string|null}[], from, to, requestedFrom, requestedTo, note: string|null } | null} */
function coverageOf(obj) {
  if (!isObject(obj)) return null
  const cov = isObject(obj.coverage) ? obj.coverage : null
  const byVenue = new Map()
  for (const m of [...(Array.isArray(cov?.missing) ? cov.missing : []), ...(Array.isArray(obj.missing) ? obj.missing : [])]) {
    if (!isObject(m)) continue
    const exchange = String(m.exchange ?? m.venue ?? 'unknown venue')
    const prev = byVenue.get(exchange)
    byVenue.set(exchange, { exchange, status: prev?.status ?? m.status ?? null, reason: prev?.reason ?? m.reason ?? null })
  }
  const missing = [...byVenue.values()]
  const num = (v) => (Number.isFinite(v) ? v : null)
  return {
    partial: typeof cov?.partial === 'boolean' ? cov.partial || missing.length > 0 : missing.length > 0,
    missing,
    from: num(cov?.from),
    to: num(cov?.to),
    requestedFrom: num(cov?.requested_from),
    requestedTo: num(cov?.requested_to),
    note: typeof cov?.note === 'string' && cov.note ? cov.note : null,
  }
}

/** one line per venue a figure lacks: "okx (stale): no book for 3 min" */
function venueLine(m) {
  return h('li', { dataset: { exchange: m.exchange } }, h('strong', null, m.exchange), m.status ? ` (${m.status.replace(/_/g, ' ')})` : '', m.reason ? `: ${m.reason}` : '')
}

/** a note for one figure (label: the coin it is about, for list payloads), or null when it is complete */
function coverageNote(obj, label = null) {
  const c = coverageOf(obj)
  if (!c || !c.partial) return null
  const parts = [h('p', null, h('strong', null, `${label ? `${label}: ` : ''}partial`), c.missing.length ? ` — without ${c.missing.map((m) => m.exchange).join(', ')}` : '', c.note ? `. ${c.note}` : '')]
  const window = c.from !== null && c.requestedFrom !== null && (c.from > c.requestedFrom || (c.to !== null && c.requestedTo !== null && c.to < c.requestedTo))
  if (window) parts.push(h('p', null, `Covers ${fmtMinute(c.from)} – ${fmtMinute(c.to)} of the requested ${fmtMinute(c.requestedFrom)} – ${fmtMinute(c.requestedTo)}.`))
  if (c.missing.length) parts.push(h('ul', null, c.missing.map(venueLine)))
  return h('div', { class: 'coverage-item', dataset: { coin: label ?? '' } }, parts)
}

/** every partial figure of a payload (an object, or a list of per-coin objects), or null when all are complete */
export function coverageBlock(data) {
  const items = Array.isArray(data) ? data.map((d) => coverageNote(d, isObject(d) ? (d.coin ?? d.exchange ?? null) : null)) : [coverageNote(data)]
  const notes = items.filter(Boolean)
  if (!notes.length) return null
  return h('div', { class: 'coverage', role: 'note', 'aria-label': 'Coverage' }, h('p', { class: 'coverage-title' }, 'Coverage: some figures lack venues or time'), notes)
}
