// What a figure lacks, exactly as the payload's `coverage` object says it (docs/methodology.md#coverage): a note only
// when `partial` is true, naming the venues left out and those in only in part. A venue without the market
// (`not_listed`) or one that publishes no such data (`not_published`) is not a shortfall, so it is never "without".
// Payloads without a coverage object fall back to their `missing` list. Unknown fields are ignored.
import { h } from './dom.js'
import { fmtMinute } from './format.js'

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v)
const NOT_A_SHORTFALL = new Set(['not_listed', 'not_published'])

/**
 * What one figure's coverage says, as plain data (no DOM): whether it is partial, the venues it is without, those in it
 * only in part, those that are not part of it by nature (no market, nothing published), and its span against the window.
 * @returns {{ partial: boolean, without: Gap[], inPart: Gap[], notApplicable: Gap[], from: number|null, to: number|null, requestedFrom: number|null, requestedTo: number|null, spanShort: boolean, note: string|null } | null}
 * @typedef {{ exchange: string, status: string|null, reason: string|null }} Gap
 * @public test/dashboard/coverage.test.ts reads it in Node
 */
export function coverageSummary(obj) {
  if (!isObject(obj)) return null
  const cov = isObject(obj.coverage) ? obj.coverage : null
  const gap = (m) => ({ exchange: String(m.exchange ?? m.venue ?? 'unknown venue'), status: typeof m.status === 'string' ? m.status : null, reason: typeof m.reason === 'string' ? m.reason : null })
  const num = (v) => (Number.isFinite(v) ? v : null)
  if (!cov) {
    // an older payload: its `missing` list is all it says
    const without = (Array.isArray(obj.missing) ? obj.missing : []).filter(isObject).map(gap)
    return { partial: without.length > 0, without, inPart: [], notApplicable: [], from: null, to: null, requestedFrom: null, requestedTo: null, spanShort: false, note: null }
  }
  const used = new Set(Array.isArray(cov.exchanges) ? cov.exchanges.map(String) : [])
  const out = { without: [], inPart: [], notApplicable: [] }
  const seen = new Set()
  for (const m of Array.isArray(cov.missing) ? cov.missing : []) {
    if (!isObject(m)) continue
    const g = gap(m)
    if (seen.has(g.exchange)) continue
    seen.add(g.exchange)
    if (g.status !== null && NOT_A_SHORTFALL.has(g.status)) out.notApplicable.push(g)
    else if (used.has(g.exchange)) out.inPart.push(g)
    else out.without.push(g)
  }
  const [from, to, requestedFrom, requestedTo] = [num(cov.from), num(cov.to), num(cov.requested_from), num(cov.requested_to)]
  const spanShort = from !== null && requestedFrom !== null && (from > requestedFrom || (to !== null && requestedTo !== null && to < requestedTo))
  return { partial: cov.partial === true, ...out, from, to, requestedFrom, requestedTo, spanShort, note: typeof cov.note === 'string' && cov.note ? cov.note : null }
}

/**
 * the figures of a payload that carry coverage, each with a label: per coin for lists, per leg for two-legged payloads
 * @public test/dashboard/coverage.test.ts reads it in Node
 */
export function coverageFigures(data) {
  if (Array.isArray(data)) return data.filter(isObject).map((d) => ({ label: d.coin ?? d.exchange ?? null, obj: d }))
  if (!isObject(data)) return []
  const figures = [{ label: null, obj: data }]
  // cvd: a perp and a spot leg, each with its own coverage; basis: the spot leg's coverage beside the premium's
  for (const leg of ['perp', 'spot']) if (isObject(data[leg]) && isObject(data[leg].coverage)) figures.push({ label: leg, obj: data[leg] })
  if (isObject(data.spot_coverage)) figures.push({ label: 'spot basis', obj: { coverage: data.spot_coverage } })
  return figures
}

/** one line per venue a figure lacks: "okx (stale): no book for 3 min" */
function venueLine(m) {
  return h('li', { dataset: { exchange: m.exchange } }, h('strong', null, m.exchange), m.status ? ` (${m.status.replace(/_/g, ' ')})` : '', m.reason ? `: ${m.reason}` : '')
}

/**
 * "without a, b; c in only in part": the venues the coverage names as short, in its words
 * @public test/dashboard/coverage.test.ts reads it in Node
 */
export function shortfallText(c) {
  const parts = []
  if (c.without.length) parts.push(`without ${c.without.map((m) => m.exchange).join(', ')}`)
  if (c.inPart.length) parts.push(`${c.inPart.map((m) => m.exchange).join(', ')} in only in part`)
  return parts.join('; ')
}

/** a note for one partial figure (label: the coin or leg it is about), or null when coverage says it is whole */
function coverageNote(obj, label = null) {
  const c = coverageSummary(obj)
  if (!c || !c.partial) return null
  const short = shortfallText(c)
  const parts = [h('p', null, h('strong', null, `${label ? `${label}: ` : ''}partial`), short ? ` — ${short}` : '', c.note ? `. ${c.note}` : '')]
  if (c.spanShort) parts.push(h('p', null, `Covers ${fmtMinute(c.from)} – ${fmtMinute(c.to)} of the requested ${fmtMinute(c.requestedFrom)} – ${fmtMinute(c.requestedTo)}.`))
  const lines = [...c.without, ...c.inPart]
  if (lines.length) parts.push(h('ul', null, lines.map(venueLine)))
  return h('div', { class: 'coverage-item', dataset: { coin: label ?? '' } }, parts)
}

/** every partial figure of a payload (an object, or a list of per-coin objects), or null when all are whole */
export function coverageBlock(data) {
  const notes = coverageFigures(data).map((f) => coverageNote(f.obj, f.label)).filter(Boolean)
  if (!notes.length) return null
  return h('div', { class: 'coverage', role: 'note', 'aria-label': 'Coverage' }, h('p', { class: 'coverage-title' }, 'Coverage: some figures lack venues or time'), notes)
}
