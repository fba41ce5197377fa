// GET /v1/funding/arbitrage: every coin × venue pair, long the lower funding and short the higher, best net APR first.
import { dataTable, h, signed } from '../dom.js'
import { fmtBps, fmtPct, fmtRate, timeEl } from '../format.js'
import { MINUTE } from './kit.js'

export default {
  id: 'funding-arbitrage',
  path: '/v1/funding/arbitrage',
  title: 'Funding arbitrage',
  description: 'For every coin and pair of venues: long the venue with the lower funding, short the higher; the differential per 8 h and per year, the price spread between the legs, and the net APR after base-tier taker fees over the holding period.',
  presets: {},
  period: () => MINUTE,
  periodNote: 'Why 1 min: funding rates are predicted rates that move slowly; sampled once a minute.',
  render(el, d) {
    el.append(
      dataTable({
        caption: `Ranked by net APR (fees spread over ${d.holding_hours} h)`,
        rows: (d.opportunities ?? []).slice(0, 50),
        columns: [
          { label: '#', num: true, cell: (r) => r.rank },
          { label: 'Coin', cell: (r) => r.coin },
          { label: 'Long', cell: (r) => [r.long.exchange, h('span', { class: 'sub' }, fmtRate(r.long.rate_8h))] },
          { label: 'Short', cell: (r) => [r.short.exchange, h('span', { class: 'sub' }, fmtRate(r.short.rate_8h))] },
          { label: 'Diff 8h', num: true, cell: (r) => fmtRate(r.differential_8h) },
          { label: 'Diff APR', num: true, cell: (r) => fmtPct(r.differential_apr * 100) },
          { label: 'Spread', num: true, cell: (r) => fmtBps(r.price_spread_bps) },
          { label: 'Net APR', num: true, cell: (r) => signed(fmtPct(r.net_apr * 100), r.net_apr) },
          { label: 'Next funding (long / short)', cell: (r) => [timeEl(r.long.next_funding_time), ' / ', timeEl(r.short.next_funding_time)] },
        ],
      }),
    )
    el.append(h('p', { class: 'hint' }, 'Taker fees (base tier): ', (d.fees ?? []).map((f) => `${f.exchange} ${(f.taker_fee * 100).toFixed(3)} %`).join(', '), '.'))
  },
}
