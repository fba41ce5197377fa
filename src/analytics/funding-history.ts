// Settled funding over time: every settlement per venue (rate, interval, 8h-normalised, annualised), the
// OI-weighted series per interval, and the funding paid over the window. Methodology: docs/methodology.md#funding-history.
import { EXCHANGE_IDS, type ExchangeId } from '../domain/exchanges.js'
import { annualizeFundingRate, normalizeFundingRate } from './funding.js'

/** a stored settlement (funding_rate) */
export interface SettlementRow {
  exchange: ExchangeId
  /** settlement time */
  ts: number
  /** per funding interval */
  rate: number
  intervalHours: number
}

export interface Settlement {
  ts: number
  rate: number
  intervalHours: number
  /** rate × 8 / intervalHours */
  rate8h: number
  /** rate × 24 × 365 / intervalHours (simple) */
  annualized: number
}

export interface VenueFundingHistory {
  exchange: ExchangeId
  settlements: Settlement[]
  /** Σ rate over the window's settlements: what a long position of constant size paid (negative: received) */
  cumulative: number
}

export interface WeightedFundingPoint {
  /** interval start */
  ts: number
  /** OI-weighted mean of the venues' 8h rates settled in the interval */
  rate8h: number
  annualized: number
  /** the venues in the mean (settled in the interval, with OI in USD) */
  exchanges: ExchangeId[]
}

export interface FundingHistory {
  exchanges: VenueFundingHistory[]
  weighted: WeightedFundingPoint[]
  /** OI-weighted mean of the venues' cumulative funding (weights: each venue's mean OI in USD over the window) */
  cumulative: { rate: number | null; exchanges: ExchangeId[] }
}

const good = (r: SettlementRow) => Number.isFinite(r.rate) && Number.isFinite(r.intervalHours) && r.intervalHours > 0 && Number.isFinite(r.ts)

/** a venue's open interest in USD at the end of the interval starting at ts (null: a sample without a USD value) */
export interface IntervalOi {
  exchange: ExchangeId
  ts: number
  usd: number | null
}

/**
 * rows: the settlements with from ≤ ts < to; oi: each venue's OI in USD per interval, the weight of its rates in the
 * weighted series and of its cumulative funding. The work follows the rows and samples, never the window's length.
 */
export function buildFundingHistory(input: { rows: readonly SettlementRow[]; intervalMs: number; from: number; to: number; oi: readonly IntervalOi[] }): FundingHistory {
  const rows = input.rows.filter((r) => good(r) && r.ts >= input.from && r.ts < input.to)
  // venue → interval start → OI in USD (a later sample of one interval replaces an earlier)
  const oiOf = new Map<ExchangeId, Map<number, number | null>>()
  for (const o of input.oi) (oiOf.get(o.exchange) ?? oiOf.set(o.exchange, new Map()).get(o.exchange)!).set(o.ts, o.usd)
  const oiUsd = (exchange: ExchangeId, ts: number) => oiOf.get(exchange)?.get(ts) ?? null
  const exchanges: VenueFundingHistory[] = []
  for (const exchange of EXCHANGE_IDS) {
    const mine = rows.filter((r) => r.exchange === exchange).sort((a, b) => a.ts - b.ts)
    if (!mine.length) continue
    exchanges.push({
      exchange,
      settlements: mine.map((r) => ({ ts: r.ts, rate: r.rate, intervalHours: r.intervalHours, rate8h: normalizeFundingRate(r.rate, r.intervalHours)!, annualized: annualizeFundingRate(r.rate, r.intervalHours)! })),
      cumulative: mine.reduce((s, r) => s + r.rate, 0),
    })
  }

  // interval → venue → its 8h rates settled in the interval
  const cells = new Map<number, Map<ExchangeId, number[]>>()
  for (const v of exchanges)
    for (const s of v.settlements) {
      const ts = Math.floor(s.ts / input.intervalMs) * input.intervalMs
      const cell = cells.get(ts) ?? cells.set(ts, new Map()).get(ts)!
      ;(cell.get(v.exchange) ?? cell.set(v.exchange, []).get(v.exchange)!).push(s.rate8h)
    }
  const weighted: WeightedFundingPoint[] = []
  for (const ts of [...cells.keys()].sort((a, b) => a - b)) {
    let w = 0
    let sum = 0
    const used: ExchangeId[] = []
    for (const exchange of EXCHANGE_IDS) {
      const rates = cells.get(ts)!.get(exchange)
      const oi = rates ? oiUsd(exchange, ts) : null
      if (!rates || oi === null || !(oi > 0)) continue
      w += oi
      sum += oi * (rates.reduce((a, b) => a + b, 0) / rates.length)
      used.push(exchange)
    }
    if (w > 0) weighted.push({ ts, rate8h: sum / w, annualized: (sum / w) * 3 * 365, exchanges: used })
  }

  // each venue's weight for the cumulative figure: its mean OI in USD over the intervals it had one
  let w = 0
  let sum = 0
  const used: ExchangeId[] = []
  for (const v of exchanges) {
    // the intervals of the window with an OI, in time order
    const ois: number[] = []
    const mine = [...(oiOf.get(v.exchange) ?? [])].filter(([t]) => t >= input.from && t < input.to && (t - input.from) % input.intervalMs === 0).sort((a, b) => a[0] - b[0])
    for (const [, oi] of mine) if (oi !== null && oi > 0) ois.push(oi)
    if (!ois.length) continue
    const mean = ois.reduce((a, b) => a + b, 0) / ois.length
    w += mean
    sum += mean * v.cumulative
    used.push(v.exchange)
  }
  return { exchanges, weighted, cumulative: { rate: w > 0 ? sum / w : null, exchanges: used } }
}
