// GET /v1/flow/taker-volume: taker buy/sell ratio per interval, per venue and aggregated.
import { chartFigure } from '../chart-kit.js'
import { lineChart, venueLines } from '../line-chart.js'
import { fmtMinute, fmtRatio } from '../format.js'
import { MINUTE } from './kit.js'

export default {
  id: 'taker-volume',
  path: '/v1/flow/taker-volume',
  title: 'Taker buy/sell volume',
  description: 'Taker buy and sell volume per interval and their ratio (above 1: buyers took more), per venue and summed across venues.',
  presets: { coin: 'BTC' },
  period: (params) => (params.end_time ? null : MINUTE),
  periodNote: 'Why 1 min: the volumes come from 1-minute aggregates, so the newest point changes once a minute.',
  render(el, d) {
    const f = chartFigure(`${d.coin} ${d.market_type} taker buy/sell ratio · ${d.interval} points, ${fmtMinute(d.start)} – ${fmtMinute(d.end)}`)
    el.append(f.figure)
    lineChart(f.chart, f.legend, f.desc, venueLines(d.exchanges, d.aggregate, 'ratio'), { format: fmtRatio, what: 'taker buy/sell ratio' })
  },
}
