// GET /v1/markets/ticker: mark, index and funding per coin and venue.
import { dataTable, pill } from '../dom.js'
import { fmtPrice, fmtRate, fmtRelative, timeEl } from '../format.js'
import { SECOND } from './kit.js'

export default {
  id: 'ticker',
  path: '/v1/markets/ticker',
  title: 'Ticker',
  description: 'Mark and index price, funding rate and next funding time per coin and venue.',
  period: () => 5 * SECOND,
  periodNote: 'Why 5 s: the ticker feed refreshes about every 5 s.',
  render(el, rows, { asOf }) {
    el.append(
      dataTable({
        caption: 'Latest ticker per coin and venue',
        captionHidden: true,
        rows,
        empty: 'No ticker for this coin and venue.',
        rowClass: (r) => (r.stale ? 'stale' : null),
        columns: [
          { label: 'Coin · venue', cell: (r) => `${r.coin} · ${r.exchange}` },
          { label: 'Mark', num: true, cell: (r) => fmtPrice(r.mark_price) },
          { label: 'Index', num: true, cell: (r) => fmtPrice(r.index_price) },
          { label: 'Funding', num: true, cell: (r) => `${fmtRate(r.funding_rate)} / ${r.funding_interval_hours ?? '?'} h${r.funding_kind ? ` (${r.funding_kind})` : ''}` },
          { label: 'Next funding', cell: (r) => [timeEl(r.next_funding_time), ` (${fmtRelative(r.next_funding_time, asOf)})`] },
          { label: 'Updated', cell: (r) => [timeEl(r.ts), r.stale ? [' ', pill('stale', 'warn')] : null] },
        ],
      }),
    )
  },
}
