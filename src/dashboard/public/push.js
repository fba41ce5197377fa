// Live tickers from GET /v1/stream (Server-Sent Events read with fetch, since EventSource cannot send the key as a
// header; 1 credit per minute while on, off until the reader starts it) and the caller's alert rules (create with
// the signing secret shown once, list with the last delivery, delete): POST/GET/DELETE /v1/alerts, free to manage.
import { problemMessage, request } from './api.js'
import { h } from './dom.js'

const $ = (id) => document.getElementById(id)

/** read an event stream; onEvent({id, event, data}) per event; resolves when it ends */
async function readStream(res, onEvent, signal) {
  const reader = res.body.getReader()
  const dec = new TextDecoder()
  let buf = ''
  while (!signal.aborted) {
    const { value, done } = await reader.read().catch(() => ({ done: true }))
    if (done) break
    buf += dec.decode(value, { stream: true })
    let i
    while ((i = buf.indexOf('\n\n')) >= 0) {
      const block = buf.slice(0, i)
      buf = buf.slice(i + 2)
      const ev = { id: null, event: 'message', data: '' }
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue
        const at = line.indexOf(':')
        const k = at < 0 ? line : line.slice(0, at)
        const v = at < 0 ? '' : line.slice(at + 1).replace(/^ /, '')
        if (k === 'id') ev.id = v
        else if (k === 'event') ev.event = v
        else if (k === 'data') ev.data += (ev.data ? '\n' : '') + v
      }
      if (ev.data) onEvent(ev)
    }
  }
}

/**
 * @param {{ getKey(): string | null, announce(text: string, kind?: string): void, onUnauthorized(): void, onAnswer(a: {charged: number, remaining: number | null}): void }} ctx
 */
export function initPush(ctx) {
  let controller = null
  let lastId = null
  const marks = new Map()

  function drawTickers() {
    const tbody = $('live-table').tBodies[0]
    tbody.textContent = ''
    const rows = [...marks.values()].sort((a, b) => (a.coin + a.exchange).localeCompare(b.coin + b.exchange))
    for (const t of rows)
      tbody.append(h('tr', null, h('th', { scope: 'row' }, t.coin), h('td', null, t.exchange), h('td', { class: 'num' }, t.mark_price ?? '–'), h('td', { class: 'num' }, t.funding_rate ?? '–'), h('td', null, new Date(t.ts).toLocaleTimeString())))
    if (!rows.length) tbody.append(h('tr', null, h('td', { colspan: 5, class: 'empty' }, controller ? 'Waiting for the first ticker…' : 'Not streaming.')))
  }

  async function start() {
    if (controller) return
    const coins = $('live-coins').value.trim()
    controller = new AbortController()
    const signal = controller.signal
    $('live-toggle').textContent = 'Stop live tickers'
    drawTickers()
    const headers = { authorization: `Bearer ${ctx.getKey()}`, accept: 'text/event-stream' }
    if (lastId) headers['last-event-id'] = lastId
    try {
      const res = await fetch(`/v1/stream?channels=ticker${coins ? `&coin=${encodeURIComponent(coins)}` : ''}`, { headers, signal, cache: 'no-store', credentials: 'omit' })
      if (!res.ok) {
        const text = await res.text()
        const r = { ok: false, status: res.status, headers: res.headers, json: JSON.parse(text || 'null'), text }
        if (res.status === 401) ctx.onUnauthorized()
        else ctx.announce(`Live tickers refused: ${problemMessage(r)}`, 'error')
        return stop()
      }
      ctx.onAnswer({ charged: Number(res.headers.get('x-credits-charged') ?? 0), remaining: Number(res.headers.get('x-credits-remaining')) })
      $('live-note').textContent = 'Streaming: 1 credit per minute while on.'
      await readStream(res, (ev) => {
        if (ev.id) lastId = ev.id
        const data = JSON.parse(ev.data)
        if (ev.event === 'end') {
          $('live-note').textContent = `The stream ended: ${data.detail ?? data.reason}`
          return
        }
        if (ev.event === 'ticker' && data.market_type === 'perp') {
          marks.set(`${data.coin}:${data.exchange}`, data)
          drawTickers()
        }
      }, signal)
    } catch {
      /* stopped, or the connection dropped */
    }
    stop()
  }

  function stop() {
    controller?.abort()
    controller = null
    $('live-toggle').textContent = 'Start live tickers'
    drawTickers()
  }

  $('live-toggle').addEventListener('click', () => (controller ? stop() : start()))

  // ---------- alerts ----------
  const typeSel = $('alert-type')
  const showFields = () => {
    const t = typeSel.value
    $('alert-value-field').hidden = t === 'divergence_active'
    $('alert-pair-field').hidden = t !== 'divergence_active'
    $('alert-band-field').hidden = !t.startsWith('imbalance')
  }
  typeSel.addEventListener('change', showFields)
  showFields()

  async function loadAlerts() {
    const r = await request('/v1/alerts', { key: ctx.getKey() })
    if (r.status === 401) return ctx.onUnauthorized()
    const tbody = $('alerts-table').tBodies[0]
    tbody.textContent = ''
    if (!r.ok) return ctx.announce(`Could not load alerts: ${problemMessage(r)}`, 'error')
    for (const a of r.json.data) {
      const c = a.condition
      const what = c.type === 'divergence_active' ? `${c.type} ${c.pair} ${c.timeframe}` : `${c.type}${c.band ? ` ±${c.band} %` : ''} ${c.value}`
      const last = a.last_delivery ? `${a.last_delivery.status}${a.last_delivery.last_error ? ` (${a.last_delivery.last_error})` : ''}` : '–'
      tbody.append(
        h('tr', null,
          h('th', { scope: 'row' }, a.name), h('td', null, a.coin), h('td', { class: 'mono' }, what), h('td', null, a.status, a.status_reason ? h('br') : null, a.status_reason ?? ''), h('td', null, last),
          h('td', null, h('button', { type: 'button', class: 'btn btn-quiet', onclick: () => removeAlert(a) }, 'Delete'))),
      )
    }
    if (!r.json.data.length) tbody.append(h('tr', null, h('td', { colspan: 6, class: 'empty' }, 'No alert rules yet.')))
  }

  async function removeAlert(a) {
    if (!window.confirm(`Delete the alert "${a.name}"?`)) return
    const r = await request(`/v1/alerts/${encodeURIComponent(a.alert_id)}`, { method: 'DELETE', key: ctx.getKey() })
    if (!r.ok) ctx.announce(`Could not delete: ${problemMessage(r)}`, 'error')
    else ctx.announce(`Alert "${a.name}" deleted.`)
    await loadAlerts()
  }

  $('alert-form').addEventListener('submit', async (ev) => {
    ev.preventDefault()
    const type = typeSel.value
    const condition = { type }
    if (type === 'divergence_active') Object.assign(condition, { pair: $('alert-pair').value, timeframe: $('alert-timeframe').value })
    else condition.value = Number($('alert-value').value)
    if (type.startsWith('imbalance')) condition.band = Number($('alert-band').value)
    const body = { coin: $('alert-coin').value.trim(), condition, url: $('alert-url').value.trim() }
    const name = $('alert-name').value.trim()
    if (name) body.name = name
    const r = await request('/v1/alerts', { method: 'POST', key: ctx.getKey(), body })
    if (!r.ok) return ctx.announce(`Alert not created: ${problemMessage(r)}`, 'error')
    $('alert-secret').hidden = false
    $('alert-secret-value').textContent = r.json.data.secret
    ctx.announce('Alert created. Its signing secret is shown once: copy it now.')
    await loadAlerts()
  })

  return { loadAlerts, stop }
}
