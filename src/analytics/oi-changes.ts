// Open-interest changes for /v1/oi/changes: current OI in coins and USD, and % change over 1h/4h/24h
// measured in coins so price moves do not leak in.
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../domain/time.js'
import { EXCHANGE_IDS, type ExchangeId } from '../domain/exchanges.js'
import { latestPerExchange } from './ticker.js'

export const OI_CHANGE_HORIZONS = ['1h', '4h', '24h'] as const
export type OiHorizon = (typeof OI_CHANGE_HORIZONS)[number]
export const OI_HORIZON_MS: Readonly<Record<OiHorizon, number>> = { '1h': HOUR_MS, '4h': 4 * HOUR_MS, '24h': DAY_MS }
/** a sample counts for time t when it is the latest at or before t and no older than this (current value and references alike) */
export const OI_SAMPLE_TOLERANCE_MS = 5 * MINUTE_MS

/** a per-minute market sample as far as OI needs it: one-sided OI in coins (venue conventions already normalized) */
export interface OiSample {
  exchange: ExchangeId
  ts: number
  openInterest: number | null
  markPrice: number | null
}

export interface OiChange {
  /** (oi_now - oi_ref) / oi_ref × 100, coin units */
  pct: number | null
  reason: string | null
  /** ts of the reference sample used (per exchange), null for the aggregate or when missing */
  referenceTs: number | null
}

interface AggregateOiChange extends OiChange {
  /** venues present at both ends: the only ones the aggregate change sums */
  exchanges: ExchangeId[]
}

export interface ExchangeOi {
  exchange: ExchangeId
  ts: number | null
  /** coins */
  oi: number | null
  /** oi × mark price at the same sample */
  oiUsd: number | null
  reason: string | null
  changes: Record<OiHorizon, OiChange>
}

export interface AggregateOi {
  /** Σ oi over venues with a current sample, coins */
  oi: number | null
  /** Σ oiUsd over the same venues; null when any of them lacks a mark price */
  oiUsd: number | null
  reason: string | null
  exchanges: ExchangeId[]
  changes: Record<OiHorizon, AggregateOiChange>
}

/** one coin's entry of the /v1/oi/changes payload */
export interface CoinOiChanges {
  coin: string
  ts: number
  aggregate: AggregateOi
  /** all five exchanges, canonical order */
  exchanges: ExchangeOi[]
}

const usableOi = (x: number | null | undefined): x is number => x != null && Number.isFinite(x) && x >= 0

/** % change from reference to current; null with a reason when either end is missing or the reference is zero */
export function oiChangePct(current: number | null, reference: number | null): { pct: number | null; reason: string | null } {
  if (!usableOi(current)) return { pct: null, reason: 'no current open interest' }
  if (!usableOi(reference)) return { pct: null, reason: 'no reference open interest' }
  if (reference === 0) return { pct: null, reason: 'reference open interest is zero' }
  return { pct: ((current - reference) / reference) * 100, reason: null }
}

const minutes = (ms: number) => `${ms / MINUTE_MS} min`

/** samples: one coin's per-minute perp samples covering the last 24 h plus tolerance (any order) */
export function buildOiChanges(input: { coin: string; samples: readonly OiSample[]; now: number }): CoinOiChanges {
  const { coin, samples, now } = input
  const valid = samples.filter((s) => usableOi(s.openInterest))
  const at = (t: number) => latestPerExchange(valid, { at: t, maxAgeMs: OI_SAMPLE_TOLERANCE_MS })
  const current = at(now)
  const refs = Object.fromEntries(OI_CHANGE_HORIZONS.map((h) => [h, at(now - OI_HORIZON_MS[h])])) as Record<OiHorizon, OiSample[]>

  const exchanges: ExchangeOi[] = EXCHANGE_IDS.map((exchange) => {
    const cur = current.find((s) => s.exchange === exchange)
    const oi = cur ? cur.openInterest! : null
    const price = cur?.markPrice
    const changes = {} as Record<OiHorizon, OiChange>
    for (const h of OI_CHANGE_HORIZONS) {
      const ref = refs[h].find((s) => s.exchange === exchange)
      const c = oiChangePct(oi, ref ? ref.openInterest : null)
      const reason = c.reason === 'no reference open interest' ? `no sample within ${minutes(OI_SAMPLE_TOLERANCE_MS)} before now - ${h}` : c.reason
      changes[h] = { pct: c.pct, reason, referenceTs: ref ? ref.ts : null }
    }
    return {
      exchange,
      ts: cur ? cur.ts : null,
      oi,
      oiUsd: oi !== null && price != null && Number.isFinite(price) && price > 0 ? oi * price : null,
      reason: cur ? null : `no sample in the last ${minutes(OI_SAMPLE_TOLERANCE_MS)}`,
      changes,
    }
  })

  const present = exchanges.filter((e) => e.oi !== null)
  let oi = 0
  let oiUsd: number | null = 0
  for (const e of present) {
    oi += e.oi!
    oiUsd = oiUsd !== null && e.oiUsd !== null ? oiUsd + e.oiUsd : null
  }
  const aggChanges = {} as Record<OiHorizon, AggregateOiChange>
  for (const h of OI_CHANGE_HORIZONS) {
    // only venues present at both ends, so a venue joining or dropping out is not counted as an OI change
    const both = present.filter((e) => e.changes[h].referenceTs !== null)
    let curSum = 0
    let refSum = 0
    for (const e of both) {
      curSum += e.oi!
      refSum += refs[h].find((s) => s.exchange === e.exchange)!.openInterest!
    }
    const c = both.length === 0 ? { pct: null, reason: 'no exchange with open interest at both ends' } : oiChangePct(curSum, refSum)
    aggChanges[h] = { pct: c.pct, reason: c.reason, referenceTs: null, exchanges: both.map((e) => e.exchange) }
  }
  const none = present.length === 0
  return {
    coin,
    ts: now,
    aggregate: {
      oi: none ? null : oi,
      oiUsd: none ? null : oiUsd,
      reason: none ? `no exchange with a sample in the last ${minutes(OI_SAMPLE_TOLERANCE_MS)}` : null,
      exchanges: present.map((e) => e.exchange),
      changes: aggChanges,
    },
    exchanges,
  }
}
