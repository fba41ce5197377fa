// GET /v1/signals/snapshot: every coin ranked, active divergences, the regime mix and the best arbitrage.
import { dataTable, h, hbars, signed } from '../dom.js'
import { fmtBps, fmtPct, fmtPrice, fmtZ, timeEl } from '../format.js'
import { MINUTE } from './kit.js'

const words = (s) => (s ? String(s).replace(/_/g, ' ') : '–')

export default {
  id: 'snapshot',
  path: '/v1/signals/snapshot',
  title: 'Market snapshot',
  description: 'All coins ranked by score, the active divergences, how many coins are in each regime, and the top arbitrage.',
  period: () => MINUTE,
  periodNote: 'Why 1 min: the snapshot is recomputed when the minute series move, once a minute.',
  render(el, d) {
    if (d.computed_at) el.append(h('p', { class: 'muted' }, 'Computed ', timeEl(d.computed_at)))
    el.append(
      dataTable({
        caption: 'Coins ranked',
        rows: d.coins ?? [],
        columns: [
          { label: 'Rank', num: true, cell: (c) => String(c.rank) },
          { label: 'Coin', cell: (c) => c.coin },
          { label: 'Score', num: true, cell: (c) => fmtZ(c.score) },
          { label: 'Price', num: true, cell: (c) => fmtPrice(c.price) },
          { label: '24h', num: true, cell: (c) => signed(fmtPct(c.price_change_24h_pct), c.price_change_24h_pct) },
          { label: 'Regime', cell: (c) => words(c.regime) },
          { label: 'Funding z', num: true, cell: (c) => fmtZ(c.funding_z) },
          { label: 'Spread z', num: true, cell: (c) => fmtZ(c.spread_z) },
          { label: 'OI 24h', num: true, cell: (c) => signed(fmtPct(c.oi_change_24h_pct), c.oi_change_24h_pct) },
          { label: 'Divergences', num: true, cell: (c) => String(c.active_divergences ?? 0) },
        ],
      }),
      dataTable({
        caption: 'Active divergences',
        rows: d.divergences ?? [],
        empty: 'No active divergence.',
        columns: [
          { label: 'Coin', cell: (v) => v.coin },
          { label: 'Pair', cell: (v) => words(v.pair) },
          { label: 'Timeframe', cell: (v) => v.timeframe },
          { label: 'Direction', cell: (v) => v.direction },
          { label: 'z-score', num: true, cell: (v) => fmtZ(v.z_score) },
        ],
      }),
      h('h4', null, 'Regime distribution'),
      hbars(Object.entries(d.regime_distribution ?? {}).map(([regime, n]) => ({ label: words(regime), value: n, text: `${n} coin${n === 1 ? '' : 's'}` })), { label: 'Coins per regime' }),
      dataTable({
        caption: 'Top arbitrage',
        rows: d.top_arbitrage ?? [],
        empty: 'No arbitrage above fees.',
        columns: [
          { label: 'Coin', cell: (a) => a.coin },
          { label: 'Type', cell: (a) => words(a.type) },
          { label: 'Long', cell: (a) => a.long_exchange },
          { label: 'Short', cell: (a) => a.short_exchange },
          { label: 'Gross', num: true, cell: (a) => fmtBps(a.gross_bps) },
          { label: 'Fees', num: true, cell: (a) => fmtBps(a.fees_bps) },
          { label: 'Net', num: true, cell: (a) => fmtBps(a.net_bps) },
          { label: 'Holding', num: true, cell: (a) => (a.holding_hours === null || a.holding_hours === undefined ? '–' : `${a.holding_hours} h`) },
        ],
      }),
    )
  },
}
