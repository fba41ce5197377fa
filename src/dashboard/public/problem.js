// An error answer shown where the data was: the problem's title, detail and stable code, the request id to
// quote, what it cost (nothing), and what to do next. The previous result is never left beside it.
import { h } from './dom.js'
import { creditsLabel, fmtDuration, fmtInt } from './format.js'

export function problemBox(p, { charged = 0 } = {}) {
  const lines = [
    h('p', { class: 'problem-title' }, h('strong', null, p.status ? `${p.status} · ${p.title}` : p.title), p.code ? h('code', { class: 'problem-code' }, p.code) : null),
    h('p', { class: 'problem-detail' }, p.detail),
  ]
  if (p.allowed?.length) lines.push(h('p', null, `Allowed ${p.parameter ?? 'values'}: ${p.allowed.join(', ')}`))
  if (p.creditsRequired !== null) lines.push(h('p', null, `This call needs ${creditsLabel(p.creditsRequired)}; the account has ${fmtInt(p.creditsRemaining)}.`))
  if (p.retryAfterMs) lines.push(h('p', null, `The service asks to wait ${fmtDuration(p.retryAfterMs)} before the next call.`))
  lines.push(h('p', { class: 'problem-meta' }, p.requestId ? ['Request id ', h('code', { class: 'request-id' }, p.requestId), ' · '] : null, charged ? `charged ${creditsLabel(charged)}` : 'nothing was charged'))
  return h('div', { class: 'problem', dataset: { status: String(p.status), code: p.code ?? '' } }, lines)
}
