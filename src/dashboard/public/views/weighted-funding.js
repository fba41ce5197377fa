// GET /v1/funding/weighted: the OI-weighted funding rate per coin and each venue's part in it.
import { dataTable, facts, h } from '../dom.js'
import { fmtInt, fmtPct, fmtRate, fmtUsd, fmtZ, timeEl } from '../format.js'
import { MINUTE, perCoin, venueCell } from './kit.js'

export default {
  id: 'weighted-funding',
  path: '/v1/funding/weighted',
  title: 'OI-weighted funding',
  description: 'Funding across venues weighted by open interest, annualized, with its z-score and percentile; per venue its rate, 8h-normalized rate and weight.',
  presets: { coin: 'BTC' },
  period: () => MINUTE,
  periodNote: 'Why 1 min: funding and open interest are sampled once a minute.',
  render(el, entries) {
    perCoin(el, entries, (c) => [
      facts([
        ['Weighted rate', `${fmtRate(c.weighted_rate)} / ${c.interval_hours ?? '?'} h${c.funding_kind ? ` (${c.funding_kind})` : ''}`],
        ['Annualized', fmtRate(c.annualized_rate)],
        ['z-score', fmtZ(c.z_score)],
        ['Percentile', c.percentile === null || c.percentile === undefined ? '–' : fmtPct(c.percentile, 0, false)],
        ['As of', timeEl(c.ts)],
        c.note ? ['Note', `${c.note} (${fmtInt(c.history_points)} points of history)`] : null,
      ]),
      dataTable({
        caption: `${c.coin} funding per venue`,
        captionHidden: true,
        rows: c.exchanges ?? [],
        columns: [
          { label: 'Venue', cell: (x) => venueCell(x.exchange, x.note) },
          { label: 'Rate', num: true, cell: (x) => `${fmtRate(x.rate)} / ${x.interval_hours ?? '?'} h` },
          { label: '8h rate', num: true, cell: (x) => fmtRate(x.rate_8h) },
          { label: 'Annualized', num: true, cell: (x) => fmtRate(x.annualized_rate) },
          { label: 'OI', num: true, cell: (x) => fmtUsd(x.oi_usd) },
          { label: 'Weight', num: true, cell: (x) => fmtRate(x.weight, false) },
          { label: 'Kind', cell: (x) => x.funding_kind ?? '–' },
        ],
      }),
      h('p', { class: 'hint' }, 'Rates are per funding interval; the 8h rate normalizes them for comparison.'),
    ])
  },
}
