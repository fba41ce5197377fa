// GET /v1/liquidations/history: long and short liquidated USD per interval across venues, and each venue's total.
import { chartFigure } from '../chart-kit.js'
import { lineChart } from '../line-chart.js'
import { h } from '../dom.js'
import { fmtMinute, fmtUsd } from '../format.js'
import { MINUTE, splitInProgress } from './kit.js'

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
    // the interval in progress holds only its first minutes: said in words, not drawn beside whole intervals
    const asOf = d.as_of ?? d.end
    const total = splitInProgress(d.aggregate, d.interval, asOf)
    const sides = chartFigure(`${d.coin} liquidations, all venues (USD) · ${range}`)
    el.append(sides.figure)
    lineChart(sides.chart, sides.legend, sides.desc, [
      { label: 'longs liquidated', points: total.closed.map((p) => ({ ts: p.ts, value: p.long_usd })) },
      { label: 'shorts liquidated', points: total.closed.map((p) => ({ ts: p.ts, value: p.short_usd })) },
    ], { format: fmtUsd, what: 'liquidated USD' })
    const venues = chartFigure(`${d.coin} liquidations per venue (USD, long + short) · ${range}`)
    el.append(venues.figure)
    lineChart(venues.chart, venues.legend, venues.desc, d.exchanges.map((v) => ({ label: v.exchange, points: splitInProgress(v.points, d.interval, asOf).closed.map((p) => ({ ts: p.ts, value: p.total_usd })) })), { format: fmtUsd, what: 'liquidated USD' })
    if (total.open)
      el.append(h('p', { class: 'hint in-progress' }, `The ${d.interval} interval from ${fmtMinute(total.open.ts)} runs past ${fmtMinute(asOf)}, where the data ends (in progress, or cut by the window's end): it holds part of its time, so it is not drawn. In it: longs ${fmtUsd(total.open.long_usd)}, shorts ${fmtUsd(total.open.short_usd)}.`))
  },
}
