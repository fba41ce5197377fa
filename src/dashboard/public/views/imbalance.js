// GET /v1/flow/imbalance: order-book bid and ask depth near mid, per venue and aggregated, per band.
import { dataTable, h, pill } from '../dom.js'
import { fmtPct, fmtPrice, fmtRatio, fmtUsd } from '../format.js'
import { SECOND, perCoin, venueCell } from './kit.js'

/** a band's cell: the bid/ask ratio, then both depths; a band the book does not reach shows why, an aggregate band the venues it lacks */
function bandCell(band) {
  if (!band) return '–'
  if (band.ratio === null || band.ratio === undefined) return h('span', { class: 'muted' }, band.note ?? band.reason ?? 'not reached')
  const ratio = Number(band.ratio)
  const without = Array.isArray(band.excluded) && band.excluded.length ? band.excluded : null
  return [
    h('span', { class: ratio > 1 ? 'up' : ratio < 1 ? 'down' : null }, fmtRatio(band.ratio)),
    h('span', { class: 'sub' }, `${fmtUsd(band.bid_depth_usd)} / ${fmtUsd(band.ask_depth_usd)}`),
    without ? h('span', { class: 'sub', title: without.map((x) => `${x.exchange}: ${x.reason}`).join('; ') }, `without ${without.map((x) => x.exchange).join(', ')}`) : null,
  ]
}

/** how far the venue's snapshot reaches each side of mid (null: it sent the whole side; absent: not reported) */
function reachCell(r) {
  if (r.aggregate || (r.bid_reach_pct === undefined && r.ask_reach_pct === undefined)) return '–'
  const side = (v) => (v === null || v === undefined ? 'whole side' : `${fmtPct(v, 1, false)}`)
  return [h('span', null, `bid ${side(r.bid_reach_pct)}`), h('span', { class: 'sub' }, `ask ${side(r.ask_reach_pct)}`)]
}

const bandsOf = (rows) => [...new Set(rows.flatMap((r) => (r.bands ?? []).map((b) => b.band_pct)))].sort((a, b) => a - b)

export default {
  id: 'imbalance',
  path: '/v1/flow/imbalance',
  title: 'Order-book imbalance',
  description: 'Bid depth over ask depth within ±0.5, 1, 2 and 5 % of mid, per venue and aggregated (above 1: more bids).',
  presets: { coin: 'BTC' },
  period: () => 15 * SECOND,
  periodNote: 'Why 15 s: order books change within seconds; 15 s follows them without paying for every tick.',
  render(el, entries) {
    perCoin(el, entries, (c) => {
      const rows = [...(c.exchanges ?? []).map((x) => ({ ...x, label: venueCell(x.exchange, x.stale ? 'stale' : x.note) })), ...(c.aggregate ? [{ ...c.aggregate, label: ['Aggregate', h('span', { class: 'sub' }, (c.aggregate.exchanges ?? []).join(', ') || 'no venue')], aggregate: true }] : [])]
      const bands = bandsOf(rows)
      return [
        dataTable({
          caption: `${c.coin} bid/ask depth ratio per band`,
          captionHidden: true,
          rows,
          rowClass: (r) => (r.aggregate ? 'total' : r.stale ? 'stale' : null),
          columns: [
            { label: 'Venue', cell: (r) => r.label },
            { label: 'Mid', num: true, cell: (r) => (r.aggregate ? '' : fmtPrice(r.mid)) },
            { label: 'Book reaches', num: true, cell: reachCell },
            ...bands.map((b) => ({ label: `±${b} %`, num: true, cell: (r) => bandCell((r.bands ?? []).find((x) => x.band_pct === b)) })),
          ],
        }),
        h('p', { class: 'hint' }, 'Each cell: bid/ask ratio, then bid depth / ask depth in USD. ', pill('stale', 'warn'), ' marks a book older than the freshness limit.'),
      ]
    })
  },
}
