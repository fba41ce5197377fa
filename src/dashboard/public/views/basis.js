// GET /v1/structure/basis: perp premium to index and basis to spot per venue, in bps.
import { chartFigure } from '../chart-kit.js'
import { lineChart } from '../line-chart.js'
import { fmtBps, fmtMinute } from '../format.js'
import { MINUTE } from './kit.js'

export default {
  id: 'basis',
  path: '/v1/structure/basis',
  title: 'Perp basis',
  description: 'Per venue: the perp premium to its index (mark / index − 1) and, on Binance, Bybit and OKX, the perp basis to the same venue\'s spot market, in basis points (annualised figures in the payload).',
  presets: { coin: 'BTC' },
  period: (params) => (params.end_time ? null : MINUTE),
  periodNote: 'Why 1 min: marks and index prices are sampled once a minute.',
  render(el, d) {
    const venues = d.exchanges ?? []
    for (const [field, what] of [['premium_bps', 'premium to index'], ['basis_bps', 'basis to spot']]) {
      const f = chartFigure(`${d.coin} perp ${what} (bps) · ${d.interval} points, ${fmtMinute(d.start)} – ${fmtMinute(d.end)}`)
      el.append(f.figure)
      lineChart(f.chart, f.legend, f.desc, venues.map((v) => ({ label: v.exchange, points: (v.points ?? []).map((p) => ({ ts: p.ts, value: p[field] })) })), { format: fmtBps, what: `perp ${what}` })
    }
  },
}
