// GET /v1/liquidations/history: long and short liquidated USD per interval across venues, and each venue's total.
import { chartFigure } from '../chart-kit.js'
import { lineChart } from '../line-chart.js'
import { fmtMinute, fmtUsd } from '../format.js'
import { MINUTE } from './kit.js'

export default {
  id: 'liquidation-history',
  path: '/v1/liquidations/history',
  title: 'Liquidation history',
  description: 'Long and short positions liquidated per interval in USD, summed over the venues that publish a feed (Hyperliquid publishes none), and each venue\'s total.',
  presets: { coin: 'BTC' },
  period: (params) => (params.end_time ? null : MINUTE),
  periodNote: 'Why 1 min: the 1-minute aggregates are recomputed as orders arrive.',
  render(el, d) {
    const range = `${d.interval} points, ${fmtMinute(d.start)} – ${fmtMinute(d.end)}`
    const sides = chartFigure(`${d.coin} liquidations, all venues (USD) · ${range}`)
    el.append(sides.figure)
    lineChart(sides.chart, sides.legend, sides.desc, [
      { label: 'longs liquidated', points: d.aggregate.map((p) => ({ ts: p.ts, value: p.long_usd })) },
      { label: 'shorts liquidated', points: d.aggregate.map((p) => ({ ts: p.ts, value: p.short_usd })) },
    ], { format: fmtUsd, what: 'liquidated USD' })
    const venues = chartFigure(`${d.coin} liquidations per venue (USD, long + short) · ${range}`)
    el.append(venues.figure)
    lineChart(venues.chart, venues.legend, venues.desc, d.exchanges.map((v) => ({ label: v.exchange, points: v.points.map((p) => ({ ts: p.ts, value: p.total_usd })) })), { format: fmtUsd, what: 'liquidated USD' })
  },
}
