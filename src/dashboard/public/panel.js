// One analytics view on the page: its parameters (from /openapi.json), a Load button that says what a call
// costs, auto-refresh at the view's own period with its hourly cost shown before it is turned on, and one
// result region that holds either the latest answer or the error that replaced it, never both.
import { problemOf, request } from './api.js'
import { releaseCharts } from './chart-kit.js'
import { coverageBlock } from './coverage.js'
import { h } from './dom.js'
import { creditsLabel, fmtDuration, fmtInt, timeEl } from './format.js'
import { paramFields } from './params-form.js'
import { problemBox } from './problem.js'
import { AutoRefresh, creditsPerHour } from './refresh.js'

/**
 * @param {object} view a module of views/ (path, title, period, render, …)
 * @param {object | null} op its GET operation in /openapi.json (null: not served by this deployment)
 * @param {{ getKey(): string | null, onAnswer(a: { charged: number, remaining: number | null, automatic: boolean }): void, onUnauthorized(): void, onInsufficient(): void, onAutoChange(): void }} hooks
 */
export function createPanel(view, op, hooks) {
  const id = `view-${view.id}`
  const cost = Number(op?.['x-credits'] ?? 0)
  const available = !!op && !/not available/i.test(op.description ?? '')
  const form = paramFields(op?.parameters ?? [], { idPrefix: id, presets: view.presets ?? {} })
  const periodFor = () => view.period(form.values())

  const title = h('h3', { id: `${id}-title` }, view.title)
  const loadButton = h('button', { type: 'submit', class: 'btn btn-primary' }, `Load · ${creditsLabel(cost)}`)
  const autoBox = h('input', { type: 'checkbox', id: `${id}-auto`, 'aria-describedby': `${id}-auto-cost` })
  const autoLabel = h('label', { for: autoBox.id })
  const autoCost = h('p', { class: 'hint auto-cost', id: `${id}-auto-cost` })
  const status = h('p', { class: 'view-status', id: `${id}-status` }, available ? 'Not loaded yet: nothing is charged until you load it.' : 'Not available in this deployment.')
  // not a live region: a refresh every few seconds would talk over the reader; failures announce themselves (role=alert)
  const body = h('div', { class: 'view-body', id: `${id}-body`, 'aria-busy': 'false' })
  const formEl = h(
    'form',
    { class: 'view-form', novalidate: true, 'aria-label': `${view.title} parameters` },
    form.controls.length ? form.element : null,
    h('div', { class: 'view-actions' }, loadButton, h('div', { class: 'auto' }, h('div', { class: 'auto-toggle' }, autoBox, autoLabel), autoCost)),
  )
  const section = h(
    'section',
    { class: 'card view', id, 'aria-labelledby': title.id, dataset: { view: view.id, path: view.path, state: available ? 'idle' : 'unavailable', auto: 'off' } },
    h('div', { class: 'card-head' }, title, h('code', { class: 'view-path' }, view.path)),
    h('p', { class: 'lede' }, view.description ?? op?.summary ?? ''),
    formEl,
    status,
    body,
  )

  let last = null // { data, meta, at, params } of the answer on screen
  let inFlight = false
  let autoState = { state: 'off', nextAt: null }

  const auto = new AutoRefresh({
    period: periodFor,
    run: () => load({ auto: true }),
    onState: (s) => {
      autoState = s
      section.dataset.auto = s.state
      renderStatus()
      hooks.onAutoChange()
    },
  })

  function describeCost() {
    const period = periodFor()
    autoBox.disabled = !available || !period
    if (!period) {
      autoLabel.textContent = 'Auto-refresh'
      autoCost.textContent = 'A window that ends at a fixed time does not change: nothing to refresh.'
      return
    }
    const calls = Math.ceil(3_600_000 / period)
    autoLabel.textContent = `Auto-refresh every ${fmtDuration(period)}`
    autoCost.textContent = `Costs about ${fmtInt(creditsPerHour(period, cost))} credits an hour (${fmtInt(calls)} calls × ${creditsLabel(cost)}) while this tab is visible; paused when it is hidden. ${view.periodNote ?? ''}`.trim()
    autoCost.dataset.creditsPerHour = String(creditsPerHour(period, cost))
  }

  function renderStatus() {
    if (!last && section.dataset.state !== 'error') return // nothing on screen to describe yet
    const parts = []
    if (last) parts.push('Updated ', timeEl(last.at), last.meta?.as_of ? [' · data as of ', timeEl(last.meta.as_of)] : null, ` · ${creditsLabel(last.meta?.credits_charged ?? cost)}`)
    else parts.push('Last call failed')
    if (autoState.state === 'on' && autoState.nextAt) parts.push(' · next refresh at ', timeEl(autoState.nextAt))
    if (autoState.state === 'paused') parts.push(' · auto-refresh paused while this tab is hidden')
    status.textContent = ''
    status.append(...parts.flat().filter(Boolean))
  }

  function clearBody() {
    releaseCharts(body)
    body.textContent = ''
  }

  function showData() {
    clearBody()
    const cov = coverageBlock(last.data)
    if (cov) body.append(cov)
    const host = h('div', { class: 'view-content' })
    body.append(host)
    try {
      view.render(host, last.data, { meta: last.meta, params: last.params, asOf: last.meta?.as_of ?? last.at })
    } catch (err) {
      // a payload this page cannot draw is reported as such, never as a blank or a half-drawn view
      releaseCharts(host)
      host.textContent = ''
      host.append(h('p', { class: 'problem' }, `This answer could not be drawn (${err instanceof Error ? err.message : String(err)}). The raw answer is in "Try the API".`))
    }
    section.dataset.state = 'ok'
    delete section.dataset.errorCode
    renderStatus()
  }

  function showError(problem, charged) {
    last = null
    clearBody()
    const box = problemBox(problem, { charged })
    // announce a new failure once; a repeat of the same one during auto-refresh stays quiet
    const code = problem.code ?? String(problem.status)
    if (section.dataset.errorCode !== code) box.setAttribute('role', 'alert')
    body.append(box)
    section.dataset.state = 'error'
    section.dataset.errorCode = code
    renderStatus()
  }

  async function load({ auto: automatic = false } = {}) {
    const key = hooks.getKey()
    if (!available || !key || inFlight) return
    const query = form.read()
    if (!query) return
    inFlight = true
    section.dataset.state = 'loading'
    body.setAttribute('aria-busy', 'true')
    loadButton.disabled = true
    const qs = query.toString()
    const r = await request(qs ? `${view.path}?${qs}` : view.path, { key })
    inFlight = false
    body.setAttribute('aria-busy', 'false')
    loadButton.disabled = false
    // signed out (or in as someone else) while the call was out: its answer belongs to nobody on this page now
    if (hooks.getKey() !== key) return
    const charged = Number(r.headers.get('x-credits-charged') ?? 0)
    const remaining = r.headers.get('x-credits-remaining')
    hooks.onAnswer({ charged, remaining: remaining === null ? null : Number(remaining), automatic })
    if (r.status === 401) return hooks.onUnauthorized()
    let retryAfterMs = null
    if (r.ok && r.json && typeof r.json === 'object' && 'data' in r.json) {
      last = { data: r.json.data, meta: r.json.meta ?? null, at: r.at, params: Object.fromEntries(query) }
      showData()
    } else {
      const problem = problemOf(r)
      retryAfterMs = problem.retryAfterMs
      showError(problem, charged)
      if (r.status === 402) hooks.onInsufficient()
    }
    // a counter of answers drawn, for anyone (a test, a script) waiting for the next one
    section.dataset.answers = String(Number(section.dataset.answers ?? 0) + 1)
    auto.answered(r.at, retryAfterMs)
  }

  formEl.addEventListener('submit', (ev) => {
    ev.preventDefault()
    void load()
  })
  formEl.addEventListener('change', (ev) => {
    if (ev.target === autoBox) return
    describeCost()
    auto.restart()
  })
  autoBox.addEventListener('change', () => {
    if (autoBox.checked) auto.enable()
    else auto.disable()
    autoBox.checked = auto.enabled
  })
  window.addEventListener('timezonechange', () => {
    if (last) showData()
  })
  describeCost()
  if (!available) loadButton.disabled = true

  return {
    view,
    section,
    cost,
    load,
    get autoEnabled() {
      return auto.enabled
    },
    period: periodFor,
    stopAuto() {
      auto.disable()
      autoBox.checked = false
    },
    /** signed out: forget the answer on screen */
    reset() {
      this.stopAuto()
      last = null
      clearBody()
      section.dataset.state = available ? 'idle' : 'unavailable'
      status.textContent = 'Not loaded yet: nothing is charged until you load it.'
    },
  }
}
