// GET /v1/signals/liquidation-cascade: the simulated cascade from the current price to a trigger price.
import { dataTable, facts, h, hbars } from '../dom.js'
import { fmtDate, fmtInt, fmtPrice, fmtUsd, timeEl } from '../format.js'
import { MINUTE } from './kit.js'

const ENDED_BY = {
  no_move: 'no move: the trigger is the current price',
  no_liquidations: 'no positions liquidate on the way to the trigger',
  stalled: 'stalled in an HVN zone',
  book_absorbed: 'the order book absorbed the forced orders',
  no_further_liquidations: 'the move reached no further positions',
  phase_limit: 'reached the phase limit',
}

export default {
  id: 'liquidation-cascade',
  path: '/v1/signals/liquidation-cascade',
  title: 'Liquidation cascade',
  description: 'What a move to the trigger price would liquidate, phase by phase, and where the cascade stalls.',
  presets: { coin: 'BTC' },
  period: () => MINUTE,
  periodNote: 'Why 1 min: the price and the open interest it simulates from are sampled once a minute.',
  render(el, d) {
    const phases = Array.isArray(d.phases) ? d.phases : []
    el.append(
      facts([
        ['Move', `${fmtPrice(d.start_price)} → ${fmtPrice(d.trigger_price)} (${d.direction ?? '–'})`],
        ['Final price', fmtPrice(d.final_price)],
        ['Liquidated', fmtUsd(d.total_liquidated_usd)],
        ['Ended', d.ended_by ? (ENDED_BY[d.ended_by] ?? d.ended_by.replace(/_/g, ' ')) : '–'],
        ['Stalled at', d.stalled_at ? `HVN ${fmtPrice(d.stalled_at.low)} – ${fmtPrice(d.stalled_at.high)}` : 'no HVN zone'],
        d.liquidation_levels !== undefined ? ['Liquidation levels', `${fmtInt(d.liquidation_levels)} (≈ ${fmtUsd(d.estimated_liquidations_usd)} in all)`] : null,
        d.exchanges ? ['Venues', d.exchanges.join(', ')] : null,
      ]),
      dataTable({
        caption: 'Cascade phases',
        rows: phases,
        empty: 'No phase: the trigger is at the current price.',
        columns: [
          { label: 'Phase', cell: (p) => String(p.phase) },
          { label: 'From', num: true, cell: (p) => fmtPrice(p.from_price) },
          { label: 'To', num: true, cell: (p) => fmtPrice(p.to_price) },
          { label: 'Liquidated', num: true, cell: (p) => fmtUsd(p.liquidated_usd) },
          { label: 'Stalled', cell: (p) => (p.stalled ? 'yes' : 'no') },
        ],
      }),
    )
    // per venue, where the payload splits the cascade so (each venue's own leverage tiers)
    if (Array.isArray(d.by_exchange) && d.by_exchange.length)
      el.append(
        dataTable({
          caption: 'Per venue',
          rows: d.by_exchange,
          columns: [
            { label: 'Venue', cell: (x) => x.exchange },
            { label: 'Liquidated', num: true, cell: (x) => fmtUsd(x.liquidated_usd) },
            { label: 'Levels', num: true, cell: (x) => (x.liquidation_levels === undefined ? '–' : fmtInt(x.liquidation_levels)) },
            { label: 'In all', num: true, cell: (x) => fmtUsd(x.estimated_liquidations_usd) },
            { label: 'Leverage tiers', cell: (x) => [x.tier_source ?? '–', x.tiers_as_of ? [' as of ', timeEl(x.tiers_as_of, fmtDate)] : null, x.tier_note ? h('span', { class: 'sub' }, x.tier_note) : null] },
          ],
        }),
      )
    if (phases.length > 1) el.append(h('h4', null, 'Liquidated per phase'), hbars(phases.map((p) => ({ label: `Phase ${p.phase}`, value: p.liquidated_usd, text: fmtUsd(p.liquidated_usd) }))))
  },
}
