// Time series as lines (uPlot), one per venue plus the aggregate: what every series view draws (CVD, taker
// volume, open interest, funding, basis). Points a venue lacks stay gaps (never drawn as zero), times in the
// zone the page shows, and a text description for readers who do not see the picture.
import { axis, COLORS, destroy, fitWidth, swatch, uPlot, zonedDate } from './chart-kit.js'
import { fmtCompact, fmtTime } from './format.js'

/** venue colours (WCAG: marks ≥ 3:1 on white); the aggregate is drawn in the text colour, thicker */
const VENUE_COLORS = { binance: '#b45309', bybit: '#0b5cad', okx: '#57606a', hyperliquid: '#1a7f37', dydx: '#8250df' }
const FALLBACK = ['#c62828', '#0e7490', '#7c2d12']

/**
 * lines: [{ label, points: [{ ts, value }], aggregate? }]. format(value) renders values on the axis and legend.
 * Returns nothing; draws into el, its legend and description.
 */
export function lineChart(el, legendEl, descEl, lines, { format = fmtCompact, what = 'value', height = 280 } = {}) {
  destroy(el)
  legendEl.textContent = ''
  const drawn = lines.filter((l) => l.points?.some((p) => typeof p.value === 'number'))
  if (!drawn.length) {
    el.innerHTML = '<p class="empty">No points in this window.</p>'
    descEl.textContent = 'No points in this window.'
    return
  }
  const xs = [...new Set(drawn.flatMap((l) => l.points.map((p) => p.ts)))].sort((a, b) => a - b)
  const at = new Map(xs.map((x, i) => [x, i]))
  const data = [xs]
  for (const l of drawn) {
    const ys = new Array(xs.length).fill(null)
    for (const p of l.points) if (typeof p.value === 'number') ys[at.get(p.ts)] = p.value
    data.push(ys)
  }
  let extra = 0
  const colorOf = (l) => (l.aggregate ? COLORS.text : VENUE_COLORS[l.label] ?? FALLBACK[extra++ % FALLBACK.length])
  const colors = drawn.map(colorOf)
  const opts = {
    width: el.clientWidth || 700,
    height,
    ms: 1,
    tzDate: zonedDate,
    cursor: { drag: { x: true, y: false } },
    legend: { show: true, live: true },
    scales: { x: { time: true } },
    axes: [axis({ space: 60 }), axis({ size: 72, values: (_u, vals) => vals.map((v) => format(v)) })],
    series: [
      { label: 'Time', value: (_u, v) => (v === null ? '–' : fmtTime(v)) },
      ...drawn.map((l, i) => ({ label: l.label, stroke: colors[i], width: l.aggregate ? 2.5 : 1.25, spanGaps: false, points: { show: xs.length < 60 }, value: (_u, v) => (v === null ? '–' : format(v)) })),
    ],
  }
  el._uplot = new uPlot(opts, data, el)
  el.dataset.points = String(xs.length)
  fitWidth(el, (w) => el._uplot?.setSize({ width: w, height }))
  legendEl.append(...drawn.map((l, i) => swatch(colors[i], l.label)))
  descEl.textContent =
    `${what} from ${fmtTime(xs[0])} to ${fmtTime(xs[xs.length - 1])}, ${xs.length} points. ` +
    drawn
      .map((l) => {
        const last = [...l.points].reverse().find((p) => typeof p.value === 'number')
        return `${l.label}: last ${format(last.value)}`
      })
      .join('; ') +
    '.'
}

/** a series payload's venues and aggregate as lines of one field */
export function venueLines(venues, aggregate, field) {
  const lines = (venues ?? []).map((v) => ({ label: v.exchange, points: (v.points ?? []).map((p) => ({ ts: p.ts, value: p[field] })) }))
  if (aggregate) lines.unshift({ label: 'aggregate', aggregate: true, points: aggregate.map((p) => ({ ts: p.ts, value: p[field] })) })
  return lines
}
