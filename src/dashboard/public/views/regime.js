// GET /v1/signals/regime: one coin's regime now, with the inputs that decided it, and its history.
import { dataTable, facts, h } from '../dom.js'
import { fmtPct, fmtRatio, timeEl } from '../format.js'
import { MINUTE, liveOnly } from './kit.js'

const pct = (v) => (v === null || v === undefined ? '–' : fmtPct(v * 100))

export default {
  id: 'regime',
  path: '/v1/signals/regime',
  title: 'Market regime',
  description: 'Trending, ranging, high volatility or squeeze: the coin’s regime now, with the efficiency ratio, move, volatility percentile and OI change that decided it, and how it changed over the window.',
  presets: { coin: 'BTC' },
  period: (params) => liveOnly({ end: params.end_time }, 5 * MINUTE),
  periodNote: 'Why 5 min: the regime is classified on complete hours, so it changes at most once an hour.',
  render(el, d) {
    const c = d.current ?? {}
    el.append(
      facts([
        ['Regime now', c.regime ?? (c.note || '–')],
        ['Efficiency ratio', fmtRatio(c.efficiency_ratio)],
        ['Net move 24h', pct(c.net_move)],
        ['Vol percentile', c.vol_percentile === null ? '–' : fmtRatio(c.vol_percentile)],
        ['OI change 24h', pct(c.oi_change)],
      ]),
    )
    el.append(
      dataTable({
        caption: `${d.coin} regime per ${d.interval}, newest first`,
        rows: [...(d.history ?? [])].reverse(),
        columns: [
          { label: 'Interval', cell: (r) => timeEl(r.ts) },
          { label: 'Regime', cell: (r) => h('span', { class: `pill ${r.regime ?? ''}` }, r.regime ?? '–'), title: (r) => r.note ?? null },
          { label: 'ER', num: true, cell: (r) => fmtRatio(r.efficiency_ratio) },
          { label: 'Move', num: true, cell: (r) => pct(r.net_move) },
          { label: 'Vol pct', num: true, cell: (r) => (r.vol_percentile === null ? '–' : fmtRatio(r.vol_percentile)) },
          { label: 'OI', num: true, cell: (r) => pct(r.oi_change) },
        ],
      }),
    )
  },
}
