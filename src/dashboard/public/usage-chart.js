// The account's credits per day (uPlot bars; days are UTC calendar days, as the service buckets them) and
// credits per endpoint (labelled bars in an ordinary list).
import { axis, COLORS, destroy, fitWidth, uPlot } from './chart-kit.js'
import { fmtInt, fmtUtcDate, fmtUtcDay } from './format.js'

const DAY = 86_400_000
const utc = (ts) => uPlot.tzDate(new Date(ts), 'Etc/UTC')

/**
 * Credits spent per UTC day over `days` days, from GET /v1/account/usage (data.by_day), zeros filled in.
 * The window ends at the later of the server's "now" and the last day with data.
 */
export function usageByDayChart(el, descEl, usage) {
  destroy(el)
  const byDay = new Map(usage.by_day.map((d) => [Math.floor(d.day / DAY) * DAY, d.credits]))
  const serverNowDay = Math.floor((usage.since + usage.days * DAY) / DAY) * DAY
  const lastDataDay = usage.by_day.length ? Math.max(...byDay.keys()) : serverNowDay
  const end = Math.max(serverNowDay, lastDataDay)
  const xs = []
  const ys = []
  for (let d = end - (usage.days - 1) * DAY; d <= end; d += DAY) {
    xs.push(d)
    ys.push(byDay.get(d) ?? 0)
  }
  const height = 220
  const opts = {
    width: el.clientWidth || 600,
    height,
    ms: 1,
    tzDate: utc,
    cursor: { drag: { x: false, y: false }, points: { show: false } },
    legend: { show: true },
    scales: {
      x: { time: true, range: (_u, min, max) => [min - DAY * 0.6, max + DAY * 0.6] },
      y: { range: (_u, _min, max) => [0, Math.max(4, Math.ceil((max || 0) * 1.15))] },
    },
    axes: [axis({ values: (_u, vals) => vals.map((v) => fmtUtcDay(v)) }), axis({ size: 48, values: (_u, vals) => vals.map((v) => (Number.isInteger(v) ? fmtInt(v) : '')) })],
    series: [
      { label: 'Day (UTC)', value: (_u, v) => (v === null ? '–' : fmtUtcDate(v)) },
      { label: 'Credits', stroke: COLORS.accent, fill: 'rgba(11, 92, 173, 0.8)', width: 0, paths: uPlot.paths.bars({ size: [0.7, 36] }), points: { show: false }, value: (_u, v) => (v === null ? '–' : fmtInt(v)) },
    ],
  }
  el._uplot = new uPlot(opts, [xs, ys], el)
  fitWidth(el, (w) => el._uplot?.setSize({ width: w, height }))
  const total = ys.reduce((s, v) => s + v, 0)
  if (descEl) {
    const busiest = ys.reduce((best, v, i) => (v > best.v ? { v, i } : best), { v: 0, i: -1 })
    descEl.textContent = total
      ? `${fmtInt(total)} credits over the ${usage.days} UTC days from ${fmtUtcDate(xs[0])} to ${fmtUtcDate(xs[xs.length - 1])}; the busiest day was ${fmtUtcDate(xs[busiest.i])} with ${fmtInt(busiest.v)} credits.`
      : `No credits spent from ${fmtUtcDate(xs[0])} to ${fmtUtcDate(xs[xs.length - 1])}.`
  }
}

/** credits per endpoint as labelled horizontal bars (an ordinary list: readable without the picture) */
export function endpointBars(listEl, usage) {
  listEl.textContent = ''
  if (!usage.by_endpoint.length) {
    const li = document.createElement('li')
    li.className = 'empty'
    li.textContent = 'No charged calls yet. Try an endpoint below.'
    listEl.append(li)
    return
  }
  const max = Math.max(...usage.by_endpoint.map((e) => e.credits), 1)
  for (const e of usage.by_endpoint) {
    const li = document.createElement('li')
    const name = document.createElement('span')
    name.className = 'name'
    // let long paths break after a slash, not mid-word
    e.endpoint.split('/').forEach((part, i) => {
      if (i > 0) name.append('/', document.createElement('wbr'))
      name.append(part)
    })
    const val = document.createElement('span')
    val.className = 'val'
    val.textContent = `${fmtInt(e.credits)} credits · ${fmtInt(e.calls)} call${e.calls === 1 ? '' : 's'}`
    const bar = document.createElement('span')
    bar.className = 'bar'
    bar.setAttribute('aria-hidden', 'true')
    const fill = document.createElement('span')
    fill.style.width = `${Math.max(1, (e.credits / max) * 100)}%`
    bar.append(fill)
    li.append(name, val, bar)
    listEl.append(li)
  }
}

