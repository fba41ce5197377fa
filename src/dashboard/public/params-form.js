// Form controls for an endpoint's query parameters, built from its /openapi.json entry: enumerations and
// listed coins/exchanges as selects, numbers with their bounds, timestamps as a date-time in the shown zone.
import { h } from './dom.js'
import { timeZone, wallTimeToMs, zoneLabel } from './format.js'

/** "one of BTC, ETH, SOL (case-insensitive)" → ['BTC', 'ETH', 'SOL'] (the document lists coins and exchanges so) */
function listedValues(schema) {
  const m = /^one of (.+?)(?: \(case-insensitive\))?$/.exec(schema?.description ?? '')
  return m ? m[1].split(',').map((s) => s.trim()).filter(Boolean) : null
}

const isTimestamp = (s) => s?.type === 'integer' && /epoch milliseconds/i.test(s.description ?? '')

function control(param, id, preset) {
  const s = param.schema ?? {}
  const listed = s.enum ?? listedValues(s)
  let el
  if (listed) {
    el = h('select')
    if (!param.required && s.default === undefined)
      el.append(h('option', { value: '' }, param.name === 'coin' ? '(all coins)' : param.name === 'exchange' ? '(all exchanges)' : '(not set)'))
    for (const v of listed) el.append(h('option', { value: v }, v === s.default ? `${v} (default)` : v))
    el.value = preset ?? s.default ?? (param.required ? (listed.includes('BTC') ? 'BTC' : listed[0]) : '')
  } else if (isTimestamp(s)) {
    // the reader types a time in the zone the page shows; the request carries Unix ms
    el = h('input', { type: 'datetime-local', step: '60' })
    el.dataset.kind = 'timestamp'
  } else {
    el = h('input', { type: s.type === 'integer' || s.type === 'number' ? 'number' : 'text' })
    if (el.type === 'number') {
      el.inputMode = s.type === 'integer' ? 'numeric' : 'decimal'
      el.step = s.type === 'integer' ? '1' : 'any'
      if (s.minimum !== undefined) el.min = String(s.minimum)
      if (s.maximum !== undefined) el.max = String(s.maximum)
      if (s.exclusiveMinimum !== undefined) el.min = String(s.exclusiveMinimum)
    } else el.spellcheck = false
    if (preset !== undefined) el.value = String(preset)
    else if (s.default !== undefined) el.value = String(s.default)
  }
  el.id = id
  el.name = param.name
  el.required = !!param.required
  return el
}

/** the hint under a field: the document's description, in words for timestamps */
function hintText(param) {
  if (isTimestamp(param.schema)) return `${param.description ?? ''}`.replace(/Unix ms/gi, 'time') + ` (in ${zoneLabel()}; empty = now)`
  return param.description ?? ''
}

/**
 * Fields for the parameters of one operation.
 * @returns {{ element: HTMLElement, read(): URLSearchParams | null, values(): Record<string, string>, controls: HTMLElement[] }}
 *   read() validates (marking and focusing the first bad field) and returns the query, or null
 */
export function paramFields(parameters, { idPrefix, presets = {} }) {
  const element = h('div', { class: 'params-grid' })
  const controls = []
  for (const p of parameters) {
    const id = `${idPrefix}-${p.name}`
    const el = control(p, id, presets[p.name])
    const hint = h('p', { class: 'hint', id: `${id}-hint` }, hintText(p))
    const err = h('p', { class: 'field-error', id: `${id}-error` })
    el.setAttribute('aria-describedby', `${hint.id} ${err.id}`)
    const label = h('label', { for: id }, p.name)
    if (p.required) label.append(h('span', { class: 'required-mark', 'aria-hidden': 'true' }, ' *'), h('span', { class: 'visually-hidden' }, ' (required)'))
    element.append(h('div', { class: 'field' }, label, el, hint, err))
    controls.push(el)
  }

  const valueOf = (el) => {
    const v = el.value.trim()
    if (el.dataset.kind === 'timestamp' && v !== '') return String(wallTimeToMs(v, timeZone()) ?? '')
    return v
  }

  return {
    element,
    controls,
    values() {
      return Object.fromEntries(controls.map((el) => [el.name, valueOf(el)]).filter(([, v]) => v !== ''))
    },
    read() {
      let firstBad = null
      for (const el of controls) {
        const missing = el.required && el.value.trim() === ''
        const bad = missing || (el instanceof HTMLInputElement && !el.checkValidity())
        el.setAttribute('aria-invalid', bad ? 'true' : 'false')
        const err = document.getElementById(`${el.id}-error`)
        if (err) err.textContent = missing ? `${el.name} is required.` : bad ? el.validationMessage : ''
        if (bad && !firstBad) firstBad = el
      }
      if (firstBad) {
        firstBad.focus()
        return null
      }
      return new URLSearchParams(this.values())
    },
  }
}
