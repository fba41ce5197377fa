// What every chart shares: uPlot (served from node_modules by the service), the palette (WCAG AA: text
// >= 4.5:1, marks >= 3:1 on white), width tracking, and a figure with a caption, a legend and a text
// description for readers who do not see the picture.
import uPlot from '/dashboard/vendor/uPlot.esm.js'
import { h } from './dom.js'
import { timeZone } from './format.js'

export { uPlot }

export const COLORS = {
  axis: '#57606a',
  grid: '#eaeef2',
  accent: '#0b5cad',
  up: '#1a7f37',
  down: '#c62828',
  hvn: '#0b5cad',
  lvn: '#6e7781',
  poc: '#b45309',
  valueArea: 'rgba(11, 92, 173, 0.09)',
  text: '#1b1f24',
}

/** uPlot's clock in the zone the page shows */
export const zonedDate = (ts) => uPlot.tzDate(new Date(ts), timeZone())

/** keep a chart as wide as its container */
export function fitWidth(el, onWidth) {
  el._resizeObserver?.disconnect()
  let last = el.clientWidth
  const ro = new ResizeObserver(() => {
    const w = el.clientWidth
    if (w > 0 && Math.abs(w - last) > 1) {
      last = w
      onWidth(w)
    }
  })
  ro.observe(el)
  el._resizeObserver = ro
}

/** free every chart under a node before it is replaced (uPlot listens on window until destroyed) */
export function releaseCharts(root) {
  for (const el of root.querySelectorAll('.chart')) destroy(el)
}

export function destroy(el) {
  el._resizeObserver?.disconnect()
  el._uplot?.destroy()
  el._uplot = undefined
  el.textContent = ''
}

export const axis = (extra = {}) => ({ stroke: COLORS.axis, grid: { stroke: COLORS.grid, width: 1 }, ticks: { stroke: COLORS.grid, width: 1 }, ...extra })

export function swatch(color, text) {
  const box = h('span', { class: 'swatch', 'aria-hidden': 'true' })
  box.style.background = color
  return h('span', null, box, text)
}

let figures = 0
/** a figure for one chart: append it to the page first (charts size themselves to it), then draw into .chart */
export function chartFigure(caption, { tall = false } = {}) {
  const n = ++figures
  const cap = h('figcaption', { id: `fig-${n}-caption` }, caption)
  const desc = h('p', { id: `fig-${n}-desc`, class: 'visually-hidden' })
  const chart = h('div', { class: `chart${tall ? ' chart-tall' : ''}`, role: 'img', 'aria-labelledby': cap.id, 'aria-describedby': desc.id })
  const legend = h('div', { class: 'chart-legend' })
  return { figure: h('figure', { class: 'chart-figure' }, cap, chart, legend, desc), chart, legend, desc }
}
