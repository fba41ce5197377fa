// GET /v1/markets/ohlc: candles with volume, one venue or the composite of all.
import { candleChart } from '../candle-chart.js'
import { chartFigure } from '../chart-kit.js'
import { fmtMinute } from '../format.js'
import { MINUTE, liveOnly } from './kit.js'

export default {
  id: 'ohlc',
  path: '/v1/markets/ohlc',
  title: 'OHLC candles',
  description: 'Price candles and volume from 1-minute trade aggregates; omit the exchange for a composite of every venue.',
  presets: { coin: 'BTC' },
  period: (params) => liveOnly(params, MINUTE),
  periodNote: 'Why 1 min: candles are built from 1-minute aggregates, so the newest candle changes once a minute.',
  render(el, d) {
    const where = d.exchange === 'composite' ? `composite of ${(d.exchanges ?? []).join(', ') || 'no exchange'}` : d.exchange
    const f = chartFigure(`${d.coin} ${d.market_type ?? ''} · ${where} · ${d.interval} candles, ${fmtMinute(d.start)} – ${fmtMinute(d.end)}`, { tall: true })
    el.append(f.figure)
    candleChart(f.chart, f.legend, f.desc, d)
  },
}
