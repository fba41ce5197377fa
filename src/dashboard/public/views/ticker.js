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
        rowClass: (r) => (r.ts == null ? 'missing' : r.stale ? 'stale' : null),
        columns: [
          { label: 'Coin · venue', cell: (r) => `${r.coin} · ${r.exchange}` },
          { label: 'Mark', num: true, cell: (r) => fmtPrice(r.mark_price) },
          { label: 'Index', num: true, cell: (r) => fmtPrice(r.index_price) },
          { label: 'Funding', num: true, cell: (r) => `${fmtRate(r.funding_rate)} / ${r.funding_interval_hours ?? '?'} h${r.funding_kind ? ` (${r.funding_kind})` : ''}` },
          { label: 'Next funding', cell: (r) => (r.next_funding_time == null ? '–' : [timeEl(r.next_funding_time), ` (${fmtRelative(r.next_funding_time, asOf)})`]) },
          // a venue without values says why (no data, feed down or degraded) instead of a time
          { label: 'Updated', cell: (r) => (r.ts == null ? [pill((r.status ?? 'no data').replace(/_/g, ' '), 'warn'), r.reason ? ` ${r.reason}` : ''] : [timeEl(r.ts), r.stale ? [' ', pill('stale', 'warn')] : null]) },
        ],
      }),
    )
  },
}
