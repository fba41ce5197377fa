// A collapsible, keyboard-usable JSON viewer built from <details>/<summary> (no library); instants (Unix ms
// under time-like keys) also show as times in the reader's zone.
import { fmtTime } from './format.js'

const MAX_ITEMS = 500

/** keys whose numbers are instants (Unix ms): shown with their time in the reader's zone beside them */
const TIME_KEY = /(^|_)(ts|at|time|as_of|start|end|since|update|day)$/

function primitive(value, key) {
  const span = document.createElement('span')
  if (value === null) {
    span.className = 'null'
    span.textContent = 'null'
  } else if (typeof value === 'string') {
    span.className = 'str'
    span.textContent = JSON.stringify(value)
  } else if (typeof value === 'number') {
    span.className = 'num'
    span.textContent = String(value)
    if (typeof key === 'string' && TIME_KEY.test(key) && value > 946_684_800_000 && value < 4_102_444_800_000) {
      const note = document.createElement('span')
      note.className = 'meta'
      note.textContent = ` (${fmtTime(value)})`
      return [span, note]
    }
  } else if (typeof value === 'boolean') {
    span.className = 'bool'
    span.textContent = String(value)
  } else {
    span.textContent = JSON.stringify(value) ?? 'undefined'
  }
  return span
}

function keyLabel(key) {
  if (key === null) return []
  const k = document.createElement('span')
  k.className = 'key'
  k.textContent = typeof key === 'number' ? '' : JSON.stringify(key)
  return typeof key === 'number' ? [] : [k, document.createTextNode(': ')]
}

function node(value, key, depth, last) {
  const comma = last ? '' : ','
  if (value === null || typeof value !== 'object') {
    const row = document.createElement('div')
    row.className = 'row'
    row.append(...keyLabel(key), ...[primitive(value, key)].flat(), document.createTextNode(comma))
    return row
  }
  const isArray = Array.isArray(value)
  const entries = isArray ? value.map((v, i) => [i, v]) : Object.entries(value)
  const [open, close] = isArray ? ['[', ']'] : ['{', '}']
  if (!entries.length) {
    const row = document.createElement('div')
    row.className = 'row'
    row.append(...keyLabel(key), document.createTextNode(`${open}${close}${comma}`))
    return row
  }
  const details = document.createElement('details')
  // open the top levels; long arrays start folded
  details.open = depth < 2 && !(isArray && entries.length > 12 && depth > 0)
  const summary = document.createElement('summary')
  const meta = document.createElement('span')
  meta.className = 'meta'
  meta.textContent = ` ${entries.length} ${isArray ? (entries.length === 1 ? 'item' : 'items') : entries.length === 1 ? 'key' : 'keys'}`
  summary.append(...keyLabel(key), document.createTextNode(open), meta)
  details.append(summary)
  const shown = entries.slice(0, MAX_ITEMS)
  shown.forEach(([k, v], i) => details.append(node(v, k, depth + 1, i === entries.length - 1)))
  if (entries.length > MAX_ITEMS) {
    const more = document.createElement('div')
    more.className = 'row meta'
    more.textContent = `… ${entries.length - MAX_ITEMS} more (use Copy JSON for everything)`
    details.append(more)
  }
  const end = document.createElement('div')
  end.textContent = `${close}${comma}`
  details.append(end)
  return details
}

export function renderJson(container, value) {
  container.textContent = ''
  if (value === undefined) return
  const root = node(value, null, 0, true)
  if (root instanceof HTMLDetailsElement) root.open = true
  container.append(root)
}

export function setAllOpen(container, open) {
  container.querySelectorAll('details').forEach((d, i) => {
    d.open = open || i === 0
  })
}
