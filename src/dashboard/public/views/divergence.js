// GET /v1/signals/divergence: the four divergence pairs on 1h and 4h per coin.
import { dataTable, pill } from '../dom.js'
import { fmtZ } from '../format.js'
import { MINUTE, perCoin } from './kit.js'

const PAIR = { oi_price: 'OI / price', cvd_price: 'CVD / price', funding_price: 'Funding / price', spot_perp_cvd: 'Spot / perp CVD' }
const KIND = { bullish: 'ok', bearish: 'bad' }

export default {
  id: 'divergence',
  path: '/v1/signals/divergence',
  title: 'Divergences',
  description: 'OI, CVD and funding against price, and spot against perp CVD, on 1h and 4h: direction, z-score and whether it is active.',
  presets: { coin: 'BTC' },
  period: () => MINUTE,
  periodNote: 'Why 1 min: hourly models over minute data; their inputs move once a minute.',
  render(el, entries) {
    perCoin(el, entries, (c) =>
      dataTable({
        caption: `${c.coin} divergences`,
        captionHidden: true,
        rows: c.pairs ?? [],
        rowClass: (p) => (p.active ? 'active' : null),
        columns: [
          { label: 'Pair', cell: (p) => `${PAIR[p.pair] ?? p.pair} · ${p.timeframe}` },
          { label: 'Direction', cell: (p) => pill(p.direction ?? 'none', KIND[p.direction] ?? null) },
          { label: 'z-score', num: true, cell: (p) => fmtZ(p.z_score) },
          { label: 'Active', cell: (p) => (p.active ? 'yes' : 'no') },
          { label: 'Note', cell: (p) => p.note ?? '' },
        ],
      }),
    )
  },
}
