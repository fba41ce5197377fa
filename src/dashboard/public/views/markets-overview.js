// GET /v1/markets/overview: the screener, every coin in one table, sorted by the column chosen in the parameters.
import { dataTable, h, signed } from '../dom.js'
import { fmtPct, fmtPrice, fmtRate, fmtUsd } from '../format.js'
import { MINUTE } from './kit.js'

export default {
  id: 'markets-overview',
  path: '/v1/markets/overview',
  title: 'Market overview',
  description: 'Every coin at once: price, 1h/4h/24h change, 24h perp volume, open interest and its 24h change, OI-weighted funding. Sort by any column.',
  presets: {},
  period: () => MINUTE,
  periodNote: 'Why 1 min: changes and volume are measured on 1-minute candles.',
  render(el, d) {
    const pct = (k) => ({ label: k.replace('change_', '').replace('_pct', ''), num: true, cell: (r) => signed(fmtPct(r[k]), r[k]) })
    el.append(
      dataTable({
        caption: `All coins by ${d.sort} (${d.order})`,
        rows: d.coins ?? [],
        columns: [
          { label: 'Coin', cell: (r) => r.coin, title: (r) => r.note ?? null },
          { label: 'Price', num: true, cell: (r) => fmtPrice(r.price) },
          pct('change_1h_pct'),
          pct('change_4h_pct'),
          pct('change_24h_pct'),
          { label: 'Volume 24h', num: true, cell: (r) => fmtUsd(r.volume_24h_usd) },
          { label: 'OI', num: true, cell: (r) => fmtUsd(r.oi_usd) },
          { label: 'OI 24h', num: true, cell: (r) => signed(fmtPct(r.oi_change_24h_pct), r.oi_change_24h_pct) },
          { label: 'Funding 8h', num: true, cell: (r) => fmtRate(r.funding_8h) },
        ],
      }),
    )
    if (d.liquidations_note) el.append(h('p', { class: 'hint' }, `Liquidations: ${d.liquidations_note}.`))
  },
}
