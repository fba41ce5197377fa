// The view of an endpoint that has no module of its own in views/: its panel is built like any other (parameters
// and cost from /openapi.json, Load, auto-refresh) and its answer is drawn as a collapsible JSON tree. A new endpoint
// is on the page the day it is served; a dedicated module in views/ replaces this when a table or chart reads better.
import { renderJson } from './json-view.js'
import { MINUTE } from './views/kit.js'

/** refresh period of a generic view: reference data and minute-sampled figures move on that scale */
const GENERIC_PERIOD = MINUTE

/** /v1/markets/coins → "Markets · coins", /v1/funding/history → "Funding · history" */
function titleOf(path) {
  const text = path.replace(/^\/v1\//, '').split('/').join(' · ').replace(/-/g, ' ')
  return text.charAt(0).toUpperCase() + text.slice(1)
}

/**
 * @param {string} path the REST path, as in /openapi.json
 * @param {object | null} op its GET operation
 */
export function genericView(path, op) {
  return {
    id: `generic-${path.replace(/^\/v1\//, '').replace(/[^a-z0-9]+/gi, '-')}`,
    path,
    title: titleOf(path),
    description: op?.summary ?? '',
    period: () => GENERIC_PERIOD,
    periodNote: 'A view without a dedicated layout refreshes once a minute.',
    render(el, data) {
      const box = document.createElement('div')
      box.className = 'json-view'
      renderJson(box, data)
      el.append(box)
    },
  }
}
