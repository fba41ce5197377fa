// GET /v1/liquidations/heatmap: estimated liquidation USD over price × time, drawn as a grid (time across, price up;
// darker = more USD; longs red, shorts blue), with the fit against the observed liquidations.
import { chartFigure, COLORS } from '../chart-kit.js'
import { facts } from '../dom.js'
import { fmtMinute, fmtPrice, fmtRatio, fmtUsd } from '../format.js'
import { MINUTE } from './kit.js'

function drawGrid(chart, desc, d) {
  const bins = d.price_bins
  const cols = d.buckets
  if (!bins.length || !cols.length) {
    chart.innerHTML = '<p class="empty">No build-up data in this window.</p>'
    desc.textContent = 'No build-up data in this window.'
    return
  }
  const width = chart.clientWidth || 700
  const height = 320
  const canvas = document.createElement('canvas')
  canvas.width = width
  canvas.height = height
  chart.textContent = ''
  chart.append(canvas)
  const ctx = canvas.getContext('2d')
  const max = Math.max(1, ...cols.flatMap((c) => c.long_usd.map((l, i) => l + c.short_usd[i])))
  const cw = width / cols.length
  const ch = height / bins.length
  cols.forEach((c, x) => {
    bins.forEach((_, y) => {
      const long = c.long_usd[y]
      const short = c.short_usd[y]
      const a = Math.sqrt((long + short) / max) // square root: small levels stay visible
      if (a <= 0) return
      ctx.fillStyle = long >= short ? `rgba(198, 40, 40, ${a})` : `rgba(11, 92, 173, ${a})`
      ctx.fillRect(x * cw, height - (y + 1) * ch, Math.ceil(cw), Math.ceil(ch))
    })
  })
  ctx.fillStyle = COLORS.text
  ctx.font = '11px sans-serif'
  ctx.fillText(fmtPrice(bins.at(-1).high), 4, 12)
  ctx.fillText(fmtPrice(bins[0].low), 4, height - 4)
  const last = cols.at(-1)
  const top = bins.map((b, i) => ({ b, usd: last.long_usd[i] + last.short_usd[i] })).sort((p, q) => q.usd - p.usd).slice(0, 3)
  desc.textContent = `Largest estimated levels at the last bucket: ${top.map((p) => `${fmtPrice(p.b.low)}–${fmtPrice(p.b.high)} ${fmtUsd(p.usd)}`).join('; ')}.`
}

export default {
  id: 'liquidation-heatmap',
  path: '/v1/liquidations/heatmap',
  title: 'Liquidation heatmap',
  description: 'Estimated liquidation levels over price and time, from each venue\'s open-interest build-up and leverage tiers, calibrated against the liquidations the venues published. Red: longs dominate the cell; blue: shorts; darker = more USD.',
  presets: { coin: 'BTC', bins: '40' },
  period: (params) => (params.end_time ? null : 5 * MINUTE),
  periodNote: 'Why 5 min: the maps are rebuilt from hourly build-up; the current hour moves slowly.',
  render(el, d) {
    const f = chartFigure(`${d.coin} estimated liquidation levels (USD) · ${d.interval} buckets, ${fmtMinute(d.start)} – ${fmtMinute(d.end)}`, { tall: true })
    el.append(f.figure)
    drawGrid(f.chart, f.desc, d)
    el.append(facts([
      ['fit', d.fit.kind === 'observed' ? `observed-calibrated (${d.fit.exchanges.join(', ')})` : 'modelled only'],
      ['observed liquidations', fmtUsd(d.fit.observed_usd)],
      ['modelled (before / after calibration)', `${fmtUsd(d.fit.modelled_usd)} / ${fmtUsd(d.fit.calibrated_usd)}`],
      ['correlation per bucket', d.fit.correlation === null ? '–' : fmtRatio(d.fit.correlation)],
    ]))
  },
}
