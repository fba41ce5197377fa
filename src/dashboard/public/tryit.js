// "Try it": the form is built from /openapi.json (every GET /v1 path that costs credits), the call goes out
// with the signed-in key like any other client's, and the answer is shown as JSON (and as a chart where one helps).
import { STATUS_TEXT, fmtInt, problemMessage, request } from './api.js'
import { candleChart, volumeProfileChart } from './charts.js'
import { renderJson, setAllOpen } from './json-view.js'

const $ = (id) => document.getElementById(id)

/** "one of BTC, ETH, SOL (case-insensitive)" → ['BTC', 'ETH', 'SOL'] (the document lists coins and exchanges so) */
function listedValues(schema) {
  const m = /^one of (.+?)(?: \(case-insensitive\))?$/.exec(schema?.description ?? '')
  return m ? m[1].split(',').map((s) => s.trim()).filter(Boolean) : null
}

function creditsLabel(n) {
  return `${n} credit${n === 1 ? '' : 's'}`
}

/**
 * @param {{getKey: () => string | null, onResult: (r: {remaining: number | null, charged: number}) => void, announce: (msg: string, kind?: string) => void}} hooks
 */
export async function initTryIt(hooks) {
  const select = $('try-endpoint')
  const fields = $('try-params-fields')
  const paramsBox = $('try-params')
  const desc = $('try-endpoint-desc')
  const send = $('try-send')
  const urlLine = $('try-url')
  const form = $('try-form')
  let lastJson = null

  const specRes = await request('/openapi.json')
  if (!specRes.ok || !specRes.json?.paths) {
    desc.textContent = `Could not load /openapi.json (${problemMessage(specRes)}).`
    send.disabled = true
    return
  }
  const endpoints = Object.entries(specRes.json.paths)
    .filter(([path, item]) => path.startsWith('/v1/') && item.get && Number(item.get['x-credits']) > 0)
    .map(([path, item]) => ({ path, op: item.get, cost: Number(item.get['x-credits']), unavailable: /not available/i.test(item.get.description ?? '') }))

  select.textContent = ''
  for (const e of endpoints) {
    const opt = document.createElement('option')
    opt.value = e.path
    opt.textContent = `${e.path} · ${creditsLabel(e.cost)}${e.unavailable ? ' · not available yet' : ''}`
    select.append(opt)
  }
  const initial = endpoints.find((e) => e.path === '/v1/markets/ohlc') ?? endpoints[0]
  if (initial) select.value = initial.path

  const current = () => endpoints.find((e) => e.path === select.value)

  function control(param) {
    const s = param.schema ?? {}
    const id = `param-${param.name}`
    const listed = s.enum ?? listedValues(s)
    let el
    if (listed) {
      el = document.createElement('select')
      if (!param.required && s.default === undefined) {
        const none = document.createElement('option')
        none.value = ''
        none.textContent = param.name === 'coin' ? '(all coins)' : param.name === 'exchange' ? '(all exchanges)' : '(not set)'
        el.append(none)
      }
      for (const v of listed) {
        const opt = document.createElement('option')
        opt.value = v
        opt.textContent = v === s.default ? `${v} (default)` : v
        el.append(opt)
      }
      el.value = s.default ?? (param.required ? (listed.includes('BTC') ? 'BTC' : listed[0]) : '')
    } else {
      el = document.createElement('input')
      if (s.type === 'integer' || s.type === 'number') {
        el.type = 'number'
        el.inputMode = s.type === 'integer' ? 'numeric' : 'decimal'
        el.step = s.type === 'integer' ? '1' : 'any'
        if (s.minimum !== undefined) el.min = String(s.minimum)
        if (s.maximum !== undefined) el.max = String(s.maximum)
        if (s.exclusiveMinimum !== undefined) el.min = String(s.exclusiveMinimum)
      } else {
        el.type = 'text'
        el.spellcheck = false
      }
      if (s.default !== undefined) el.value = String(s.default)
      if (s.description === 'Unix epoch milliseconds') el.placeholder = 'Unix ms, e.g. ' + String(Math.floor(Date.now() / 60_000) * 60_000)
    }
    el.id = id
    el.name = param.name
    el.required = !!param.required
    return el
  }

  function renderParams() {
    const e = current()
    fields.textContent = ''
    if (!e) return
    desc.textContent = `${e.op.summary ?? ''}. Costs ${creditsLabel(e.cost)}, charged only when the call succeeds.${e.unavailable ? ' Not available in this deployment yet: expect 503 (nothing is charged).' : ''}`
    send.textContent = `Send · ${creditsLabel(e.cost)}`
    const params = e.op.parameters ?? []
    paramsBox.hidden = params.length === 0
    for (const p of params) {
      const wrap = document.createElement('div')
      wrap.className = 'field'
      const label = document.createElement('label')
      label.htmlFor = `param-${p.name}`
      label.textContent = p.name
      if (p.required) {
        const mark = document.createElement('span')
        mark.className = 'required-mark'
        mark.textContent = ' *'
        mark.setAttribute('aria-hidden', 'true')
        const sr = document.createElement('span')
        sr.className = 'visually-hidden'
        sr.textContent = ' (required)'
        label.append(mark, sr)
      }
      const el = control(p)
      const hint = document.createElement('p')
      hint.className = 'hint'
      hint.id = `param-${p.name}-hint`
      hint.textContent = p.description ?? ''
      const err = document.createElement('p')
      err.className = 'field-error'
      err.id = `param-${p.name}-error`
      el.setAttribute('aria-describedby', `${hint.id} ${err.id}`)
      wrap.append(label, el, hint, err)
      fields.append(wrap)
    }
    updateUrl()
  }

  function buildUrl() {
    const e = current()
    if (!e) return null
    const q = new URLSearchParams()
    for (const el of fields.querySelectorAll('input, select')) {
      const v = el.value.trim()
      if (v !== '') q.set(el.name, v)
    }
    const qs = q.toString()
    return qs ? `${e.path}?${qs}` : e.path
  }

  function updateUrl() {
    urlLine.textContent = `GET ${buildUrl() ?? ''}`
  }

  function validate() {
    let firstBad = null
    for (const el of fields.querySelectorAll('input, select')) {
      const err = $(`${el.id}-error`)
      const missing = el.required && el.value.trim() === ''
      const bad = missing || (el instanceof HTMLInputElement && !el.checkValidity())
      el.setAttribute('aria-invalid', bad ? 'true' : 'false')
      if (err) err.textContent = missing ? `${el.name} is required.` : bad ? el.validationMessage : ''
      if (bad && !firstBad) firstBad = el
    }
    if (firstBad) firstBad.focus()
    return !firstBad
  }

  select.addEventListener('change', renderParams)
  fields.addEventListener('input', updateUrl)
  fields.addEventListener('change', updateUrl)

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault()
    const e = current()
    const key = hooks.getKey()
    if (!e || !key || !validate()) return
    const url = buildUrl()
    send.disabled = true
    const label = send.textContent
    send.textContent = 'Sending…'
    const r = await request(url, { key })
    send.disabled = false
    send.textContent = label
    showResult(e, r)
    const charged = Number(r.headers.get('x-credits-charged') ?? 0)
    const remainingHeader = r.headers.get('x-credits-remaining')
    hooks.onResult({ charged, remaining: remainingHeader === null ? null : Number(remainingHeader) })
  })

  function showResult(e, r) {
    $('try-result').hidden = false
    const status = $('try-status')
    status.textContent = ''
    const code = document.createElement('span')
    code.className = r.ok ? 'code-ok' : 'code-err'
    code.textContent = r.status ? `${r.status} ${STATUS_TEXT[r.status] ?? ''}`.trim() : 'Network error'
    const charged = r.headers.get('x-credits-charged')
    const remaining = r.headers.get('x-credits-remaining')
    const parts = [
      charged !== null ? `charged ${creditsLabel(Number(charged))}` : null,
      remaining !== null ? `${fmtInt(remaining)} credits left` : null,
      `${r.ms} ms`,
    ].filter(Boolean)
    status.append(code, document.createTextNode(` · ${parts.join(' · ')}`))
    status.dataset.status = String(r.status)
    status.dataset.charged = charged ?? ''
    if (!r.ok) {
      const msg = document.createElement('span')
      msg.className = 'code-err'
      msg.textContent = ` — ${problemMessage(r)}`
      status.append(msg)
    }

    lastJson = r.json ?? r.text
    renderJson($('try-json'), lastJson)

    const fig = $('try-chart-figure')
    const chartEl = $('try-chart')
    const data = r.ok ? r.json?.data : null
    fig.hidden = true
    chartEl.className = 'chart chart-tall'
    if (data && e.path === '/v1/markets/ohlc' && Array.isArray(data.candles)) {
      fig.hidden = false
      const where = data.exchange === 'composite' ? `composite of ${(data.exchanges ?? []).join(', ') || 'no exchange'}` : data.exchange
      $('try-chart-caption').textContent = `${data.coin} ${data.market_type ?? ''} · ${where} · ${data.interval} candles over ${data.lookback} (UTC)`
      candleChart(chartEl, $('try-chart-legend'), $('try-chart-desc'), data)
    } else if (data && e.path === '/v1/structure/volume-profile' && Array.isArray(data.levels)) {
      fig.hidden = false
      $('try-chart-caption').textContent = `Volume profile${data.coin ? ` · ${data.coin}` : ''}${data.lookback ? ` · ${data.lookback}` : ''}`
      volumeProfileChart(chartEl, $('try-chart-legend'), $('try-chart-desc'), data)
    }
  }

  $('try-copy-json').addEventListener('click', async () => {
    const text = typeof lastJson === 'string' ? lastJson : JSON.stringify(lastJson, null, 2)
    try {
      await navigator.clipboard.writeText(text)
      hooks.announce('Response JSON copied to the clipboard.', 'ok')
    } catch {
      hooks.announce('Copying failed: select the JSON and copy it by hand.', 'error')
    }
  })
  $('try-expand-json').addEventListener('click', () => setAllOpen($('try-json'), true))
  $('try-collapse-json').addEventListener('click', () => setAllOpen($('try-json'), false))

  renderParams()
}
