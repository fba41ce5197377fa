// GET /v1/positioning/long-short: the share of long accounts each CEX publishes, and Binance's top traders' long share.
import { chartFigure } from '../chart-kit.js'
import { lineChart } from '../line-chart.js'
import { fmtMinute, fmtPct } from '../format.js'
import { emptyNote } from '../dom.js'
import { MINUTE } from './kit.js'

export default {
  id: 'positioning',
  path: '/v1/positioning/long-short',
  title: 'Long/short positioning',
  description: 'The share of accounts net long on each CEX, and the long share of Binance\'s top traders\' positions, as the venues publish them every 5 minutes. Each venue counts differently: compare a venue with itself over time. The DEXs publish none.',
  presets: { coin: 'BTC' },
  period: (params) => (params.end_time ? null : 5 * MINUTE),
  periodNote: 'Why 5 min: the venues publish a new figure every 5 minutes.',
  render(el, d) {
    const lines = d.exchanges.flatMap((v) => [
      ...(v.account ? [{ label: v.exchange, points: v.account.points.map((p) => ({ ts: p.ts, value: p.long_share })) }] : []),
      ...(v.top_position ? [{ label: `${v.exchange} top traders`, points: v.top_position.points.map((p) => ({ ts: p.ts, value: p.long_share })) }] : []),
    ])
    const f = chartFigure(`${d.coin} long share (accounts; top traders' positions) · ${d.interval} points, ${fmtMinute(d.start)} – ${fmtMinute(d.end)}`)
    el.append(f.figure)
    lineChart(f.chart, f.legend, f.desc, lines, { format: (v) => fmtPct(v * 100, 1, false), what: 'long share' })
    const none = d.exchanges.filter((v) => !v.available).map((v) => `${v.exchange}: ${v.feed.note}`)
    if (none.length) el.append(emptyNote(`Not available — ${none.join('; ')}.`))
  },
}
