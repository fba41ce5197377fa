// GET /v1/flow/large-trades: the newest trades of at least min_usd across venues.
import { dataTable, h } from '../dom.js'
import { fmtCompact, fmtPrice, fmtUsd, timeEl } from '../format.js'
import { SECOND } from './kit.js'

export default {
  id: 'large-trades',
  path: '/v1/flow/large-trades',
  title: 'Large trades',
  description: 'The newest individual trades of at least min_usd notional on every venue (trades under 100,000 USD are not kept; 7 days are).',
  presets: {},
  period: () => 15 * SECOND,
  periodNote: 'Why 15 s: trades are stored with every flush of the feed, within seconds.',
  render(el, d) {
    el.append(
      dataTable({
        caption: `Trades of at least ${fmtUsd(d.min_usd)}, newest first`,
        rows: d.trades ?? [],
        empty: 'No trade that large in the last 7 days.',
        columns: [
          { label: 'Time', cell: (r) => timeEl(r.ts) },
          { label: 'Venue', cell: (r) => [r.exchange, h('span', { class: 'sub' }, r.market_type)] },
          { label: 'Coin', cell: (r) => r.coin },
          { label: 'Side', cell: (r) => h('span', { class: r.side === 'buy' ? 'up' : 'down' }, r.side) },
          { label: 'Price', num: true, cell: (r) => fmtPrice(r.price) },
          { label: 'Size', num: true, cell: (r) => fmtCompact(r.size) },
          { label: 'Notional', num: true, cell: (r) => fmtUsd(r.notional_usd) },
        ],
      }),
    )
  },
}
