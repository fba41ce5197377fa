// GET /v1/oi/history: open interest per interval (close of each interval), per venue and aggregated, in USD.
import { chartFigure } from '../chart-kit.js'
import { lineChart, venueLines } from '../line-chart.js'
import { fmtMinute, fmtUsd } from '../format.js'
import { MINUTE } from './kit.js'

export default {
  id: 'oi-history',
  path: '/v1/oi/history',
  title: 'Open-interest history',
  description: 'Open interest at the close of each interval in USD, per venue and summed over the venues present (the payload also has open, high and low, in coins and USD).',
  presets: { coin: 'BTC' },
  period: (params) => (params.end_time ? null : MINUTE),
  periodNote: 'Why 1 min: open interest is sampled once a minute.',
  render(el, d) {
    const f = chartFigure(`${d.coin} open interest (USD, interval close) · ${d.interval} points, ${fmtMinute(d.start)} – ${fmtMinute(d.end)}`)
    el.append(f.figure)
    lineChart(f.chart, f.legend, f.desc, venueLines(d.exchanges, d.aggregate, 'close_usd'), { format: fmtUsd, what: 'open interest in USD' })
  },
}
