// Perp basis over time, per venue: the perp's premium to its index (mark / index − 1) and, where the venue has a
// spot market, the perp's basis to that spot (perp close / spot close − 1), both annualised as the venue's funding
// formula pays a premium. Methodology: docs/methodology.md#basis.
import { EXCHANGE_IDS, hasMarket, type ExchangeId } from '../domain/exchanges.js'
import { noMarkReason, premiumPeriodsPerYear } from '../domain/venue-prices.js'

/** one venue's perp samples in one interval (the store folds them) */
export interface PremiumBucket {
  exchange: ExchangeId
  ts: number
  /** the interval's last sample with both prices */
  mark: number | null
  index: number | null
  fundingIntervalHours: number | null
}

/** a stored bar's close (1-minute or hourly) */
export interface CloseBar {
  exchange: ExchangeId
  ts: number
  close: number
}

export interface BasisPoint {
  ts: number
  markPrice: number | null
  indexPrice: number | null
  /** (mark / index − 1) × 10 000 */
  premiumBps: number | null
  /** premium × the times a year the venue's funding pays it (premiumPeriodsPerYear) × 100 */
  premiumAnnualizedPct: number | null
  /** the last perp and spot trade closes of the interval on this venue */
  perpPrice: number | null
  spotPrice: number | null
  /** (perp / spot − 1) × 10 000 */
  basisBps: number | null
  basisAnnualizedPct: number | null
}

export interface VenueBasis {
  exchange: ExchangeId
  /** whether the venue lists a spot market for the basis */
  hasSpot: boolean
  points: BasisPoint[]
}

const pos = (x: number | null | undefined): x is number => x != null && Number.isFinite(x) && x > 0

/** the last close per interval, per venue (venue → interval start → close) */
function lastCloses(bars: readonly CloseBar[], intervalMs: number): Map<ExchangeId, Map<number, { ts: number; close: number }>> {
  const out = new Map<ExchangeId, Map<number, { ts: number; close: number }>>()
  for (const b of bars) {
    if (!pos(b.close)) continue
    let venue = out.get(b.exchange)
    if (!venue) out.set(b.exchange, (venue = new Map()))
    const slot = Math.floor(b.ts / intervalMs) * intervalMs
    const cur = venue.get(slot)
    if (!cur || b.ts > cur.ts) venue.set(slot, { ts: b.ts, close: b.close })
  }
  return out
}

export function buildBasis(input: { premiums: readonly PremiumBucket[]; perpBars: readonly CloseBar[]; spotBars: readonly CloseBar[]; intervalMs: number; from: number; to: number }): VenueBasis[] {
  const perp = lastCloses(input.perpBars, input.intervalMs)
  const spot = lastCloses(input.spotBars, input.intervalMs)
  // a later bucket of the same venue and interval replaces an earlier one, as a map keyed by both did
  const premiums = new Map<ExchangeId, Map<number, PremiumBucket>>()
  for (const p of input.premiums) {
    let venue = premiums.get(p.exchange)
    if (!venue) premiums.set(p.exchange, (venue = new Map()))
    venue.set(p.ts, p)
  }
  // the venue's funding interval: the interval's own, else the latest seen before it
  const out: VenueBasis[] = []
  for (const exchange of EXCHANGE_IDS) {
    const [pv, perpV, spotV] = [premiums.get(exchange), perp.get(exchange), spot.get(exchange)]
    const slots = new Set<number>([...(pv?.keys() ?? []), ...(perpV?.keys() ?? []), ...(spotV?.keys() ?? [])])
    const points: BasisPoint[] = []
    const noMark = noMarkReason(exchange)
    let hours: number | null = null
    for (const ts of [...slots].filter((t) => t >= input.from && t < input.to).sort((a, b) => a - b)) {
      const p = pv?.get(ts)
      if (pos(p?.fundingIntervalHours)) hours = p.fundingIntervalHours
      const perYear = premiumPeriodsPerYear(exchange, hours)
      // a venue whose stored mark is its oracle has no premium to its index
      const premium = noMark === null && p && pos(p.mark) && pos(p.index) ? p.mark / p.index - 1 : null
      const perpPrice = perpV?.get(ts)?.close ?? null
      const spotPrice = spotV?.get(ts)?.close ?? null
      const basis = pos(perpPrice) && pos(spotPrice) ? perpPrice / spotPrice - 1 : null
      if (premium === null && basis === null) continue
      points.push({
        ts,
        markPrice: premium === null ? null : p!.mark,
        indexPrice: premium === null ? null : p!.index,
        premiumBps: premium === null ? null : premium * 1e4,
        premiumAnnualizedPct: premium === null || perYear === null ? null : premium * perYear * 100,
        perpPrice,
        spotPrice,
        basisBps: basis === null ? null : basis * 1e4,
        basisAnnualizedPct: basis === null || perYear === null ? null : basis * perYear * 100,
      })
    }
    if (points.length) out.push({ exchange, hasSpot: hasMarket(exchange, 'spot'), points })
  }
  return out
}
