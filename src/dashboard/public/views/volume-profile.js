// GET /v1/structure/volume-profile: volume per price level, HVN/LVN, point of control and value area.
import { chartFigure } from '../chart-kit.js'
import { facts } from '../dom.js'
import { fmtCompact, fmtMinute, fmtPct, fmtPrice } from '../format.js'
import { MINUTE, liveOnly } from './kit.js'
import { volumeProfileChart } from '../profile-chart.js'

/** longer windows move less per minute: refresh them less often */
const PERIOD = { '1h': MINUTE, '4h': MINUTE, '24h': 5 * MINUTE, '7d': 15 * MINUTE, '30d': 15 * MINUTE }

export default {
  id: 'volume-profile',
  path: '/v1/structure/volume-profile',
  title: 'Volume profile',
  description: 'Traded volume per price level, high- and low-volume nodes, point of control and the 70 % value area.',
  presets: { coin: 'BTC' },
  period: (params) => liveOnly(params, PERIOD[params.lookback] ?? 5 * MINUTE),
  periodNote: 'Why: a 1 h or 4 h window gains a minute of trades each minute; 24 h every 5 min, 7 d and 30 d every 15 min are enough to move the profile.',
  render(el, d) {
    el.append(
      facts([
        ['Point of control', d.poc ? `${fmtPrice(d.poc.price)} (volume ${fmtCompact(d.poc.volume)})` : '–'],
        ['Value area', d.value_area ? `${fmtPrice(d.value_area.low)} – ${fmtPrice(d.value_area.high)} (${fmtPct(d.value_area.volume_pct, 1, false)} of volume)` : '–'],
        ['Total volume', fmtCompact(d.total_volume)],
      ]),
    )
    const f = chartFigure(`Volume profile · ${d.coin} ${d.market_type ?? ''} · ${d.exchange === 'all' ? 'all venues' : d.exchange} · ${fmtMinute(d.start)} – ${fmtMinute(d.end)}`, { tall: true })
    el.append(f.figure)
    volumeProfileChart(f.chart, f.legend, f.desc, d)
  },
}
