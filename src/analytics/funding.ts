// Funding for /v1/funding/weighted: rates normalized to a common 8 h interval, weighted by OI in USD,
// annualized (simple), and ranked against their own hourly history.
import { DAY_MS, HOUR_MS, MINUTE_MS, floorTo } from '../domain/time.js'
import { EXCHANGE_IDS, type ExchangeId } from '../domain/exchanges.js'
import { SAMPLE_FUNDING_KIND, type FundingKind } from './funding-kind.js'
import { percentileRank, zScore, type Stat } from './stats.js'
import { latestPerExchange } from './ticker.js'

/** rates compared across venues are first normalized to this interval */
const COMMON_FUNDING_INTERVAL_HOURS = 8
const HOURS_PER_YEAR = 24 * 365
/** a venue whose latest sample is older than this is left out of the current weighted rate */
export const FUNDING_MAX_SAMPLE_AGE_MS = 5 * MINUTE_MS
/** z-score and percentile history: hourly weighted rates of the 7 days before the current hour; at least 72 (3 days) */
export const FUNDING_STATS_WINDOW = { lookbackMs: 7 * DAY_MS, stepMs: HOUR_MS, minPoints: 72 } as const

const finite = (x: number | null | undefined): x is number => x != null && Number.isFinite(x)
const validInterval = (h: number | null | undefined): h is number => finite(h) && h > 0

/** rate per intervalHours -> rate per toHours: rate × toHours / intervalHours (null on a missing rate or a bad interval) */
export function normalizeFundingRate(rate: number | null, intervalHours: number | null, toHours: number = COMMON_FUNDING_INTERVAL_HOURS): number | null {
  if (!finite(rate) || !validInterval(intervalHours) || !validInterval(toHours)) return null
  return (rate * toHours) / intervalHours
}

/** simple (not compounded) annual rate: rate per interval × (24 × 365) / intervalHours */
export function annualizeFundingRate(rate: number | null, intervalHours: number | null): number | null {
  if (!finite(rate) || !validInterval(intervalHours)) return null
  return (rate * HOURS_PER_YEAR) / intervalHours
}

/** one venue's funding input for weighting */
export interface VenueRate {
  exchange: ExchangeId
  /** per intervalHours, as the venue publishes it */
  rate: number | null
  intervalHours: number | null
  oiUsd: number | null
  ts?: number | null
}

/** one venue in the payload: its own rate with its interval, the 8 h rate, OI in USD and weight */
export interface VenueFunding {
  exchange: ExchangeId
  ts: number | null
  rate: number | null
  /** what `rate` is; null with the rate */
  fundingKind: FundingKind | null
  intervalHours: number | null
  rate8h: number | null
  annualizedRate: number | null
  oiUsd: number | null
  /** oiUsd / Σ oiUsd over weighted venues; null when the venue is left out */
  weight: number | null
  /** why the venue is left out of the weighted rate, else null */
  reason: string | null
}

export interface WeightedFunding {
  /** Σ rate8h_e × oiUsd_e / Σ oiUsd_e over venues with both values, per 8 h */
  rate8h: number | null
  reason: string | null
  venues: VenueFunding[]
}

/** OI-weighted funding; venues in canonical order, one entry per venue given (a repeated venue keeps its last entry) */
export function weightedFunding(rows: readonly VenueRate[]): WeightedFunding {
  const byExchange = new Map<ExchangeId, VenueRate>()
  for (const r of rows) byExchange.set(r.exchange, r)
  const venues: VenueFunding[] = []
  for (const exchange of EXCHANGE_IDS) {
    const r = byExchange.get(exchange)
    if (!r) continue
    const intervalHours = validInterval(r.intervalHours) ? r.intervalHours : null
    const rate = intervalHours !== null && finite(r.rate) ? r.rate : null
    const oiUsd = finite(r.oiUsd) && r.oiUsd >= 0 ? r.oiUsd : null
    const reason = rate === null ? (intervalHours === null ? 'no funding interval' : 'no funding rate') : oiUsd === null ? 'no open interest in USD' : null
    venues.push({
      exchange,
      ts: finite(r.ts) ? r.ts : null,
      rate,
      fundingKind: rate === null ? null : SAMPLE_FUNDING_KIND,
      intervalHours,
      rate8h: normalizeFundingRate(rate, intervalHours),
      annualizedRate: annualizeFundingRate(rate, intervalHours),
      oiUsd,
      weight: null,
      reason,
    })
  }
  const used = venues.filter((v) => v.reason === null)
  if (used.length === 0) return { rate8h: null, reason: 'no exchange with both a funding rate and open interest', venues }
  let total = 0
  for (const v of used) total += v.oiUsd!
  if (!(total > 0)) {
    for (const v of used) v.reason = 'total open interest is zero'
    return { rate8h: null, reason: 'total open interest is zero', venues }
  }
  // Σ rate × (oi / Σ oi): the same value as Σ rate × oi / Σ oi, without rate × oi underflowing for tiny OI
  let rate8h = 0
  for (const v of used) {
    v.weight = v.oiUsd! / total
    rate8h += v.rate8h! * v.weight
  }
  return { rate8h, reason: null, venues }
}

/** a per-minute market sample as far as funding needs it (open interest in coins, one-sided) */
export interface FundingSample {
  exchange: ExchangeId
  ts: number
  fundingRate: number | null
  fundingIntervalHours: number | null
  openInterest: number | null
  markPrice: number | null
}

/** OI in USD = openInterest (coins) × mark price */
export function sampleToVenueRate(s: FundingSample): VenueRate {
  const oiUsd = finite(s.openInterest) && finite(s.markPrice) && s.markPrice > 0 ? s.openInterest * s.markPrice : null
  return { exchange: s.exchange, ts: s.ts, rate: s.fundingRate, intervalHours: s.fundingIntervalHours, oiUsd }
}

export interface FundingPoint {
  /** hour open time */
  ts: number
  rate8h: number
}

/** hourly weighted rate: in each UTC hour, each venue's last sample; hours where no venue can be weighted are skipped */
export function weightedFundingHistory(samples: readonly FundingSample[]): FundingPoint[] {
  const hours = new Map<number, FundingSample[]>()
  for (const s of samples) {
    if (!Number.isFinite(s.ts)) continue
    const h = floorTo(s.ts, HOUR_MS)
    let list = hours.get(h)
    if (!list) hours.set(h, (list = []))
    list.push(s)
  }
  const out: FundingPoint[] = []
  for (const h of [...hours.keys()].sort((a, b) => a - b)) {
    const w = weightedFunding(latestPerExchange(hours.get(h)!).map(sampleToVenueRate))
    if (w.rate8h !== null) out.push({ ts: h, rate8h: w.rate8h })
  }
  return out
}

/** history points of FUNDING_STATS_WINDOW before the current hour (current hour excluded) */
export function fundingStatsHistory(history: readonly FundingPoint[], now: number): number[] {
  const to = floorTo(now, HOUR_MS)
  const from = to - FUNDING_STATS_WINDOW.lookbackMs
  return history.filter((p) => p.ts >= from && p.ts < to).map((p) => p.rate8h)
}

/** one coin's entry of the /v1/funding/weighted payload */
export interface CoinWeightedFunding {
  coin: string
  ts: number
  /** OI-weighted rate per intervalHours (8) */
  weightedRate: number | null
  /** what the weighted rate is made of (every venue's current predicted rate); null with the rate */
  fundingKind: FundingKind | null
  intervalHours: typeof COMMON_FUNDING_INTERVAL_HOURS
  /** weightedRate × 24 × 365 / 8, simple */
  annualizedRate: number | null
  reason: string | null
  /** all five exchanges, canonical order */
  exchanges: VenueFunding[]
  zScore: Stat
  percentile: Stat
}

/** samples: one coin's per-minute perp samples covering FUNDING_STATS_WINDOW plus the latest (any order) */
export function buildWeightedFunding(input: { coin: string; samples: readonly FundingSample[]; now: number }): CoinWeightedFunding {
  const { coin, samples, now } = input
  const past = samples.filter((s) => Number.isFinite(s.ts) && s.ts <= now)
  const current = weightedFunding(latestPerExchange(past, { at: now, maxAgeMs: FUNDING_MAX_SAMPLE_AGE_MS }).map(sampleToVenueRate))
  const exchanges: VenueFunding[] = EXCHANGE_IDS.map(
    (exchange) =>
      current.venues.find((v) => v.exchange === exchange) ?? {
        exchange, ts: null, rate: null, fundingKind: null, intervalHours: null, rate8h: null, annualizedRate: null, oiUsd: null, weight: null,
        reason: `no sample in the last ${FUNDING_MAX_SAMPLE_AGE_MS / MINUTE_MS} min`,
      },
  )
  const history = fundingStatsHistory(weightedFundingHistory(past), now)
  return {
    coin,
    ts: now,
    weightedRate: current.rate8h,
    fundingKind: current.rate8h === null ? null : SAMPLE_FUNDING_KIND,
    intervalHours: COMMON_FUNDING_INTERVAL_HOURS,
    annualizedRate: annualizeFundingRate(current.rate8h, COMMON_FUNDING_INTERVAL_HOURS),
    reason: current.reason,
    exchanges,
    zScore: zScore(current.rate8h, history, FUNDING_STATS_WINDOW.minPoints),
    percentile: percentileRank(current.rate8h, history, FUNDING_STATS_WINDOW.minPoints),
  }
}
