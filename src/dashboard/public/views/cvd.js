// GET /v1/flow/cvd: cumulative volume delta, perp and spot, per venue and aggregated.
import { chartFigure } from '../chart-kit.js'
import { lineChart, venueLines } from '../line-chart.js'
import { fmtMinute } from '../format.js'
import { MINUTE } from './kit.js'

export default {
  id: 'cvd',
  path: '/v1/flow/cvd',
  title: 'Cumulative volume delta',
  description: 'Taker buy minus taker sell volume, cumulated from the window start, per venue and summed across venues; perp and spot (spot on Binance, Bybit and OKX).',
  presets: { coin: 'BTC' },
  period: (params) => (params.end_time ? null : MINUTE),
  periodNote: 'Why 1 min: the flows come from 1-minute aggregates, so the newest point changes once a minute.',
  render(el, d) {
    for (const leg of [d.perp, d.spot]) {
      if (!leg) continue
      const f = chartFigure(`${d.coin} ${leg.market_type} CVD (${d.coin}) · ${d.interval} points, ${fmtMinute(d.start)} – ${fmtMinute(d.end)}`)
      el.append(f.figure)
      lineChart(f.chart, f.legend, f.desc, venueLines(leg.exchanges, leg.aggregate, 'cvd'), { what: `${leg.market_type} CVD` })
    }
  },
}
