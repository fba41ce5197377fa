// Taker flow over time: taker buy and sell volume per interval, their ratio, and the cumulative volume delta (CVD),
// per venue and summed across venues. Methodology: docs/methodology.md#flow-series.
import { EXCHANGE_IDS, type ExchangeId } from '../domain/exchanges.js'

/** a stored bar's flow (1-minute or hourly): taker buy and sell volume, coin units */
export interface FlowBar {
  exchange: ExchangeId
  /** bar open time */
  ts: number
  /** null: the bar's source gives no taker split (a venue kline); left out of the flow, never guessed */
  buyVolume: number | null
  sellVolume: number | null
}

export interface FlowPoint {
  /** interval open time (UTC-aligned) */
  ts: number
  buyVolume: number
  sellVolume: number
  /** buyVolume − sellVolume */
  delta: number
  /** Σ delta from the window's first interval through this one */
  cvd: number
  /** buyVolume / sellVolume; null when nothing was sold */
  ratio: number | null
}

export interface VenueFlowSeries {
  exchange: ExchangeId
  /** ascending; an interval without a bar of the venue is absent */
  points: FlowPoint[]
}

export interface AggregateFlowPoint extends FlowPoint {
  /** the venues with a bar in this interval: the sums are over them */
  exchanges: ExchangeId[]
}

export interface FlowSeries {
  exchanges: VenueFlowSeries[]
  /** the sum across venues per interval, its CVD cumulated from the first interval */
  aggregate: AggregateFlowPoint[]
}

const good = (x: number | null): x is number => x !== null && Number.isFinite(x) && x >= 0

/**
 * Bars into interval points: a bar belongs to the interval floor(ts / intervalMs) × intervalMs, and only bars of
 * intervals in [from, to) count (from is an interval start). Bars with non-finite or negative volumes are dropped.
 */
export function flowSeries(bars: readonly FlowBar[], q: { intervalMs: number; from: number; to: number }): FlowSeries {
  // venue → interval → [buy, sell]
  const cells = new Map<ExchangeId, Map<number, [number, number]>>()
  for (const b of bars) {
    if (!good(b.buyVolume) || !good(b.sellVolume)) continue
    const ts = Math.floor(b.ts / q.intervalMs) * q.intervalMs
    if (ts < q.from || ts >= q.to) continue
    let venue = cells.get(b.exchange)
    if (!venue) cells.set(b.exchange, (venue = new Map()))
    const c = venue.get(ts)
    if (c) {
      c[0] += b.buyVolume
      c[1] += b.sellVolume
    } else venue.set(ts, [b.buyVolume, b.sellVolume])
  }
  const exchanges: VenueFlowSeries[] = []
  const sums = new Map<number, { buy: number; sell: number; exchanges: ExchangeId[] }>()
  for (const exchange of EXCHANGE_IDS) {
    const venue = cells.get(exchange)
    if (!venue) continue
    const points = cumulate([...venue.entries()].sort((a, b) => a[0] - b[0]).map(([ts, [buy, sell]]) => ({ ts, buy, sell })))
    exchanges.push({ exchange, points })
    for (const p of points) {
      const s = sums.get(p.ts)
      if (s) {
        s.buy += p.buyVolume
        s.sell += p.sellVolume
        s.exchanges.push(exchange)
      } else sums.set(p.ts, { buy: p.buyVolume, sell: p.sellVolume, exchanges: [exchange] })
    }
  }
  const ordered = [...sums.entries()].sort((a, b) => a[0] - b[0])
  const agg = cumulate(ordered.map(([ts, s]) => ({ ts, buy: s.buy, sell: s.sell })))
  return { exchanges, aggregate: agg.map((p, i) => ({ ...p, exchanges: ordered[i]![1].exchanges })) }
}

function cumulate(rows: readonly { ts: number; buy: number; sell: number }[]): FlowPoint[] {
  let cvd = 0
  return rows.map(({ ts, buy, sell }) => {
    const delta = buy - sell
    cvd += delta
    return { ts, buyVolume: buy, sellVolume: sell, delta, cvd, ratio: sell > 0 ? buy / sell : null }
  })
}
