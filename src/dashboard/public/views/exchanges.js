// GET /v1/markets/exchanges: the venues, their type and the health of their feeds.
import { dataTable, pill } from '../dom.js'
import { fmtRelative, timeEl } from '../format.js'
import { SECOND } from './kit.js'

const KIND = { operational: 'ok', degraded: 'warn', down: 'bad' }

export default {
  id: 'exchanges',
  path: '/v1/markets/exchanges',
  title: 'Exchanges',
  description: 'The supported venues, CEX or DEX, and whether their feeds are fresh.',
  period: () => 30 * SECOND,
  periodNote: 'Why 30 s: a feed is marked degraded or down from its freshness, which moves on that scale.',
  render(el, rows, { asOf }) {
    el.append(
      dataTable({
        caption: 'Exchanges and feed status',
        captionHidden: true,
        rows,
        columns: [
          { label: 'Exchange', cell: (r) => r.name ?? r.id },
          { label: 'Type', cell: (r) => r.type },
          { label: 'Status', cell: (r) => pill(r.status, KIND[r.status] ?? 'warn') },
          { label: 'Last update', cell: (r) => (r.last_update ? [timeEl(r.last_update), ` (${fmtRelative(r.last_update, asOf)})`] : 'never') },
        ],
      }),
    )
  },
}
