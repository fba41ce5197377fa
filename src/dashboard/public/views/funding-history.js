// GET /v1/funding/history: settled funding per venue (8h-normalised) and the OI-weighted series.
import { chartFigure } from '../chart-kit.js'
import { h } from '../dom.js'
import { lineChart } from '../line-chart.js'
import { fmtMinute, fmtRate } from '../format.js'
import { MINUTE } from './kit.js'

export default {
  id: 'funding-history',
  path: '/v1/funding/history',
  title: 'Funding history',
  description: 'Settled funding per venue (normalised to 8 hours) and the OI-weighted rate per interval, with the funding a long paid over the window.',
  presets: { coin: 'BTC' },
  period: (params) => (params.end_time ? null : 5 * MINUTE),
  periodNote: 'Why 5 min: settlements come hourly at the most frequent venues.',
  render(el, d) {
    const lines = [
      { label: 'OI-weighted', aggregate: true, points: (d.weighted ?? []).map((p) => ({ ts: p.ts, value: p.rate_8h })) },
      ...(d.exchanges ?? []).map((v) => ({ label: v.exchange, points: (v.settlements ?? []).map((s) => ({ ts: s.ts, value: s.rate_8h })) })),
    ]
    const f = chartFigure(`${d.coin} settled funding, 8h-normalised · ${fmtMinute(d.start)} – ${fmtMinute(d.end)}`)
    el.append(f.figure)
    lineChart(f.chart, f.legend, f.desc, lines, { format: fmtRate, what: 'settled funding (8h)' })
    const cum = d.cumulative?.rate
    el.append(h('p', { class: 'hint' }, `Funding paid by a long over the window, OI-weighted: ${fmtRate(cum)}; per venue: ${(d.exchanges ?? []).map((v) => `${v.exchange} ${fmtRate(v.cumulative)}`).join(', ') || 'none'}.`))
  },
}
