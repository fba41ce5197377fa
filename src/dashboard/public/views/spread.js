// GET /v1/structure/spread: the same coin's price on every venue, the max–min spread and its z-score.
import { dataTable, h } from '../dom.js'
import { fmtBps, fmtPrice, fmtZ } from '../format.js'
import { SECOND } from './kit.js'

export default {
  id: 'spread',
  path: '/v1/structure/spread',
  title: 'Cross-venue spread',
  description: 'Each venue’s price for the coin, the spread between the cheapest and the dearest in bps, and its z-score against its own history.',
  presets: { coin: 'BTC' },
  period: () => 15 * SECOND,
  periodNote: 'Why 15 s: venue prices come from order books and tickers, which move within seconds.',
  render(el, entries) {
    const rows = Array.isArray(entries) ? entries : []
    // one column per venue that priced any coin in this answer, in the answer's order
    const venues = [...new Set(rows.flatMap((r) => (r.prices ?? []).map((p) => p.exchange)))]
    const priceOn = (r, v) => (r.prices ?? []).find((p) => p.exchange === v)
    el.append(
      dataTable({
        caption: 'Spread per coin',
        captionHidden: true,
        rows,
        columns: [
          { label: 'Coin', cell: (r) => r.coin },
          { label: 'Spread', num: true, cell: (r) => fmtBps(r.spread_bps) },
          { label: 'z-score', num: true, cell: (r) => fmtZ(r.z_score), title: (r) => (r.z_score === null ? (r.note ?? null) : null) },
          { label: 'Cheapest', cell: (r) => r.cheapest ?? '–' },
          { label: 'Dearest', cell: (r) => r.dearest ?? '–' },
          ...venues.map((v) => ({ label: v, num: true, cell: (r) => [fmtPrice(priceOn(r, v)?.price), priceOn(r, v)?.quote ? h('span', { class: 'sub' }, priceOn(r, v).quote) : null] })),
        ],
      }),
    )
    const notes = rows.flatMap((r) => [r.note, r.mixed_quotes ? r.quote_note : null].filter(Boolean).map((n) => `${r.coin}: ${n}`))
    if (notes.length) el.append(h('ul', { class: 'notes' }, notes.map((n) => h('li', null, n))))
  },
}
