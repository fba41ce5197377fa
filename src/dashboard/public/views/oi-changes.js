// GET /v1/oi/changes: open interest per venue and aggregated, with its change over 1h, 4h and 24h.
import { dataTable, h, signed } from '../dom.js'
import { fmtCompact, fmtPct, fmtUsd, timeEl } from '../format.js'
import { MINUTE, perCoin, venueCell } from './kit.js'

const HORIZONS = [['change_1h', '1h'], ['change_4h', '4h'], ['change_24h', '24h']]

export default {
  id: 'oi-changes',
  path: '/v1/oi/changes',
  title: 'Open-interest changes',
  description: 'Open interest in coins and USD per venue and aggregated, and its change in % over 1h, 4h and 24h (in coin units, so price moves do not leak in).',
  presets: { coin: 'BTC' },
  period: () => MINUTE,
  periodNote: 'Why 1 min: open interest is sampled once a minute.',
  render(el, entries) {
    perCoin(el, entries, (c) => {
      const rows = [...(c.aggregate ? [{ ...c.aggregate, exchange: 'Aggregate', total: true }] : []), ...(c.exchanges ?? [])]
      return [
        dataTable({
          caption: `${c.coin} open interest`,
          captionHidden: true,
          rows,
          rowClass: (r) => (r.total ? 'total' : null),
          columns: [
            { label: 'Venue', cell: (r) => venueCell(r.exchange, r.note) },
            { label: `OI (${c.coin})`, num: true, cell: (r) => fmtCompact(r.oi) },
            { label: 'OI (USD)', num: true, cell: (r) => fmtUsd(r.oi_usd) },
            ...HORIZONS.map(([k, label]) => ({
              label,
              num: true,
              cell: (r) => signed(fmtPct(r.changes?.[k]?.pct), r.changes?.[k]?.pct),
              title: (r) => r.changes?.[k]?.note ?? null,
            })),
          ],
        }),
        c.ts ? h('p', { class: 'hint' }, 'As of ', timeEl(c.ts), '. A dash means no sample at that distance; hover it for the reason.') : null,
      ]
    })
  },
}
