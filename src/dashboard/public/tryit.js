// "Try it": the form is built from /openapi.json (every GET /v1 path that costs credits), the call goes out
// with the signed-in key like any other client's, and the answer is shown as JSON, drawn by the endpoint's
// view when it has one.
import { STATUS_TEXT, loadSpec, problemMessage, request } from './api.js'
import { releaseCharts } from './chart-kit.js'
import { creditsLabel, fmtInt } from './format.js'
import { renderJson, setAllOpen } from './json-view.js'
import { paramFields } from './params-form.js'
import { VIEWS } from './views/registry.js'

const $ = (id) => document.getElementById(id)

/**
 * @param {{getKey: () => string | null, onAnswer: (r: {remaining: number | null, charged: number}) => void, announce: (msg: string, kind?: string) => void}} hooks
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

  const specRes = await loadSpec()
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

  let params = null
  function renderParams() {
    const e = current()
    fields.textContent = ''
    params = null
    if (!e) return
    desc.textContent = `${e.op.summary ?? ''}. Costs ${creditsLabel(e.cost)}, charged only when the call succeeds.${e.unavailable ? ' Not available in this deployment yet: expect 503 (nothing is charged).' : ''}`
    send.textContent = `Send · ${creditsLabel(e.cost)}`
    paramsBox.hidden = !(e.op.parameters ?? []).length
    params = paramFields(e.op.parameters ?? [], { idPrefix: 'param' })
    fields.append(...params.element.childNodes)
    updateUrl()
  }

  function buildUrl() {
    const e = current()
    if (!e) return null
    const qs = new URLSearchParams(params?.values() ?? {}).toString()
    return qs ? `${e.path}?${qs}` : e.path
  }

  function updateUrl() {
    urlLine.textContent = `GET ${buildUrl() ?? ''}`
  }

  select.addEventListener('change', renderParams)
  fields.addEventListener('input', updateUrl)
  fields.addEventListener('change', updateUrl)

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault()
    const e = current()
    const key = hooks.getKey()
    if (!e || !key || !params?.read()) return
    const url = buildUrl()
    send.disabled = true
    const label = send.textContent
    send.textContent = 'Sending…'
    const r = await request(url, { key })
    send.disabled = false
    send.textContent = label
    showResult(e, r, url)
    const charged = Number(r.headers.get('x-credits-charged') ?? 0)
    const remainingHeader = r.headers.get('x-credits-remaining')
    hooks.onAnswer({ charged, remaining: remainingHeader === null ? null : Number(remainingHeader) })
  })

  function showResult(e, r, url) {
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

    // the endpoint's own view draws a successful answer; a failed one leaves nothing drawn
    const host = $('try-view')
    releaseCharts(host)
    host.textContent = ''
    const view = VIEWS.find((v) => v.path === e.path)
    const data = r.ok ? r.json?.data : undefined
    host.hidden = !view || data === undefined
    if (!host.hidden) {
      try {
        view.render(host, data, { meta: r.json.meta ?? null, params: Object.fromEntries(new URL(url, location.origin).searchParams), asOf: r.json.meta?.as_of ?? r.at })
      } catch (err) {
        host.textContent = `This answer could not be drawn (${err instanceof Error ? err.message : String(err)}); the JSON is below.`
      }
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
