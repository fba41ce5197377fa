// The market views: one panel per module in views/registry.js, and a generic one (generic-view.js) for an endpoint
// without its own module; parameters and costs from /openapi.json, a table of contents, and what the auto-refresh
// turned on costs an hour in all.
import { loadSpec, problemMessage } from './api.js'
import { h } from './dom.js'
import { BROWSER_ZONE, fmtDuration, fmtInt, setTimeZone, timeZone } from './format.js'
import { genericView } from './generic-view.js'
import { createPanel } from './panel.js'
import { creditsPerHour } from './refresh.js'
import { VIEWS } from './views/registry.js'

const $ = (id) => document.getElementById(id)

/**
 * @param {{ getKey(): string | null, getBalance(): number | null, onAnswer(a: { charged: number, remaining: number | null }): void, onUnauthorized(): void, announce(text: string, kind?: string): void }} ctx
 */
export async function initViews(ctx) {
  const zoneSelect = $('time-zone')
  zoneSelect.append(h('option', { value: 'local' }, `Local (${BROWSER_ZONE})`), h('option', { value: 'UTC' }, 'UTC'))
  zoneSelect.value = timeZone() === 'UTC' && BROWSER_ZONE !== 'UTC' ? 'UTC' : 'local'
  zoneSelect.addEventListener('change', () => setTimeZone(zoneSelect.value))

  const specRes = await loadSpec()
  const paths = specRes.ok ? specRes.json.paths : {}
  if (!specRes.ok) ctx.announce(`Could not load /openapi.json (${problemMessage(specRes)}): the views cannot be built.`, 'error')

  const panels = []
  const hooks = {
    getKey: ctx.getKey,
    onAnswer: ctx.onAnswer,
    onUnauthorized: ctx.onUnauthorized,
    onInsufficient() {
      if (!panels.some((p) => p.autoEnabled)) return
      stopAll()
      ctx.announce('Auto-refresh is off: the balance does not cover the next call.', 'error')
    },
    onAutoChange: () => summarize(),
  }
  // every paid endpoint the service offers gets a panel: its own view module, else the generic one
  const covered = new Set(VIEWS.map((v) => v.path))
  const generic = Object.entries(paths).filter(([p, item]) => p.startsWith('/v1/') && Number(item.get?.['x-credits']) > 0 && !covered.has(p)).map(([p, item]) => genericView(p, item.get))
  for (const view of [...VIEWS, ...generic]) panels.push(createPanel(view, paths[view.path]?.get ?? null, hooks))
  $('views').append(...panels.map((p) => p.section))
  $('views-toc').append(h('ul', null, panels.map((p) => h('li', null, h('a', { href: `#${p.section.id}` }, p.view.title)))))

  function summarize() {
    const on = panels.filter((p) => p.autoEnabled)
    const perHour = on.reduce((s, p) => s + creditsPerHour(p.period(), p.cost), 0)
    const balance = ctx.getBalance()
    let text = 'Auto-refresh is off for every view: nothing is charged unless you load a view.'
    if (on.length) {
      text = `Auto-refresh is on for ${on.map((p) => p.view.title).join(', ')}: about ${fmtInt(perHour)} credits an hour while this tab is visible.`
      if (balance !== null && perHour > 0) text += ` The balance of ${fmtInt(balance)} credits lasts about ${fmtDuration((balance / perHour) * 3_600_000)} at that rate.`
    }
    const box = $('auto-summary')
    if (box.textContent !== text) box.textContent = text
    box.dataset.creditsPerHour = String(perHour)
    $('stop-auto').hidden = on.length === 0
  }

  function stopAll() {
    for (const p of panels) p.stopAuto()
    summarize()
  }

  $('stop-auto').addEventListener('click', () => {
    stopAll()
    ctx.announce('Auto-refresh is off for every view.', 'info')
  })
  window.addEventListener('balancechange', summarize)
  summarize()

  return {
    panels,
    stopAll,
    reset() {
      for (const p of panels) p.reset()
      summarize()
    },
  }
}
