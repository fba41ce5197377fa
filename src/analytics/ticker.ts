// Latest values per exchange for /v1/markets/ticker, and the latest-row picker the other market metrics share.
import { EXCHANGE_IDS, type ExchangeId } from '../domain/exchanges.js'
import { SAMPLE_FUNDING_KIND, type FundingKind } from './funding-kind.js'
import { noMarkReason } from '../domain/venue-prices.js'

/** a ticker row older than this is flagged stale (the feed refreshes about every TICKER_REFRESH_MS) */
export const TICKER_STALE_MS = 15_000
/** a row stamped more than this after now is not fresh: venue clocks run ahead by milliseconds, a row ahead by more is a clock or replay error */
export const TICKER_CLOCK_SKEW_MS = 5_000
/** how often the ticker feed refreshes while it runs (interface.md: "about every 5 seconds"); documentation only */
export const TICKER_REFRESH_MS = 5_000

export interface LatestOptions {
  /** only rows with ts <= at count (for "as of" reads: history, reference points) */
  at?: number
  /** with at: only rows with at - ts <= maxAgeMs count */
  maxAgeMs?: number
}

/**
 * The latest row per exchange (one coin's rows), canonical exchange order; rows with a non-finite ts are ignored.
 * Ties on ts go to the row that comes later in the input.
 */
export function latestPerExchange<T extends { exchange: ExchangeId; ts: number }>(rows: readonly T[], opts: LatestOptions = {}): T[] {
  const { at, maxAgeMs } = opts
  // by the venue's place in EXCHANGE_IDS (called per minute of a day's spread history: no Map, no arrays per venue)
  const best: (T | undefined)[] = []
  for (const r of rows) {
    if (!Number.isFinite(r.ts)) continue
    if (at !== undefined && r.ts > at) continue
    if (at !== undefined && maxAgeMs !== undefined && at - r.ts > maxAgeMs) continue
    const i = RANK.get(r.exchange)
    if (i === undefined) continue
    const prev = best[i]
    if (!prev || r.ts >= prev.ts) best[i] = r
  }
  const out: T[] = []
  for (const r of best) if (r) out.push(r)
  return out
}

const RANK = new Map<ExchangeId, number>(EXCHANGE_IDS.map((e, i) => [e, i]))

export const isStale = (ts: number, now: number, staleMs: number = TICKER_STALE_MS): boolean =>
  !Number.isFinite(ts) || now - ts > staleMs

export interface TickerInput {
  coin: string
  exchange: ExchangeId
  ts: number
  markPrice: number | null
  indexPrice: number | null
  /** per funding interval, not annualized */
  fundingRate: number | null
  fundingIntervalHours: number | null
  nextFundingTime: number | null
}

/** one ticker payload entry; a funding rate always travels with its interval */
export interface TickerRow {
  coin: string
  exchange: ExchangeId
  markPrice: number | null
  /** why markPrice is null on a venue that publishes no mark of its own (dYdX), else null */
  markNote: string | null
  indexPrice: number | null
  fundingRate: number | null
  /** tickers carry the predicted rate (the one the next settlement will use, as it stands now); null with the rate */
  fundingKind: FundingKind | null
  fundingIntervalHours: number | null
  nextFundingTime: number | null
  /** when the venue reported these values; null for a venue without data */
  ts: number | null
  /** now - ts, ms, never negative (exchange clocks can run slightly ahead); null without data */
  ageMs: number | null
  /** not fresh: older than the stale limit, stamped in the future beyond the clock-skew tolerance, or no data at all */
  stale: boolean
  /** fresh | stale, or why a venue listing the coin has no row data (no_data, down, degraded) */
  status: TickerStatus
  reason: string | null
}

export type TickerStatus = 'fresh' | 'stale' | 'no_data' | 'down' | 'degraded'

/** the row of a venue that lists the coin but has no ticker: every value null, and why */
export function missingTickerRow(coin: string, exchange: ExchangeId, status: Exclude<TickerStatus, 'fresh' | 'stale'>, reason: string): TickerRow {
  return {
    coin, exchange, markPrice: null, markNote: null, indexPrice: null, fundingRate: null, fundingKind: null, fundingIntervalHours: null, nextFundingTime: null,
    ts: null, ageMs: null, stale: true, status, reason,
  }
}

/** fresh, too old, or stamped after now by more than the clock skew a venue can have */
function freshness(ts: number, now: number, staleMs: number): Pick<TickerRow, 'stale' | 'status' | 'reason'> {
  if (ts - now > TICKER_CLOCK_SKEW_MS)
    return { stale: true, status: 'stale', reason: `stamped ${Math.round((ts - now) / 1000)} s after now (beyond the ${TICKER_CLOCK_SKEW_MS / 1000} s clock-skew tolerance): the venue's or the recording's clock is ahead, its values are not current` }
  if (isStale(ts, now, staleMs)) return { stale: true, status: 'stale', reason: `last update ${Math.round((now - ts) / 1000)} s ago (stale after ${staleMs / 1000} s)` }
  return { stale: false, status: 'fresh', reason: null }
}

const finiteOrNull = (x: number | null | undefined): number | null => (x != null && Number.isFinite(x) ? x : null)

/** latest row per (coin, exchange), sorted by coin then canonical exchange order, each flagged stale or not */
export function buildTicker(rows: readonly TickerInput[], now: number, staleMs: number = TICKER_STALE_MS): TickerRow[] {
  const byCoin = new Map<string, TickerInput[]>()
  for (const r of rows) {
    let list = byCoin.get(r.coin)
    if (!list) byCoin.set(r.coin, (list = []))
    list.push(r)
  }
  const out: TickerRow[] = []
  for (const coin of [...byCoin.keys()].sort()) {
    for (const r of latestPerExchange(byCoin.get(coin)!)) {
      const iv = finiteOrNull(r.fundingIntervalHours)
      const interval = iv !== null && iv > 0 ? iv : null
      // a rate is never reported without the interval it is per
      const rate = interval !== null ? finiteOrNull(r.fundingRate) : null
      out.push({
        coin,
        exchange: r.exchange,
        // a venue without a mark of its own stores its oracle there: it is the index, not a mark
        markPrice: noMarkReason(r.exchange) === null ? finiteOrNull(r.markPrice) : null,
        markNote: noMarkReason(r.exchange),
        indexPrice: finiteOrNull(r.indexPrice),
        fundingRate: rate,
        fundingKind: rate === null ? null : SAMPLE_FUNDING_KIND,
        fundingIntervalHours: interval,
        nextFundingTime: finiteOrNull(r.nextFundingTime),
        ts: r.ts,
        ageMs: Math.max(0, now - r.ts),
        ...freshness(r.ts, now, staleMs),
      })
    }
  }
  return out
}
