// What the Bybit, OKX, Hyperliquid and dYdX history fetchers share: one implicit-method call of the venue's CCXT
// instance (already paid from the budget) whose failure becomes a VenueHttpError the runner understands, what a page
// covers for sure when the venue answers newest first (and may stop at its page size), the interval of each settled
// funding rate from the spacing of the settlements.
import type { Exchange } from 'ccxt'
import { HOUR_MS, MINUTE_MS } from '../../domain/time.js'
import type { ExchangeId } from '../../domain/exchanges.js'
import type { Kline } from '../../domain/minute-bars.js'
import { callRaw } from '../connectors/ccxt-access.js'
import { paidCall, type StopRule } from './ccxt-budget.js'
import { VenueHttpError, type HistoryRequest } from '../../domain/venue-history.js'

/**
 * A venue's "slow down" that is not an HTTP 429/418: Bybit's retCode 10006 (HTTP 200) and its "403 access too
 * frequent" IP ban, OKX's code 50011. The runner waits and asks the page again, never treats it as a refusal.
 */
class VenueRateLimitError extends VenueHttpError {
  override get rateLimited(): boolean {
    return true
  }

  override get refused(): boolean {
    return false
  }
}

/** one implicit-method call, already paid for; its failure as a VenueHttpError with the status and how long to wait */
export async function venueCall(venue: ExchangeId, ex: Exchange, method: string, params: Record<string, unknown>, stop: StopRule, now: () => number): Promise<unknown> {
  const r = await paidCall(() => callRaw(ex, method, params))
  if ('value' in r) return r.value
  const { status, headers, body } = r.record
  const message = r.error instanceof Error ? r.error.message : String(r.error)
  const s = status === null ? null : stop(status, headers, body ?? '', now())
  if (s) throw new VenueRateLimitError(venue, status, message, Math.max(0, s.until - now()))
  throw new VenueHttpError(venue, status, message, null)
}

/**
 * Where a newest-first page (Bybit, OKX, dYdX: the newest `limit` rows of the span) covers the span from for sure: the
 * span's start, unless the page came back full and a row one step older than its oldest could still lie inside the
 * span; then from its oldest row (the runner asks again for what lies before).
 */
export function newestFirstFrom(req: Pick<HistoryRequest, 'from'>, stamps: readonly number[], limit: number, stepMs: number): number {
  if (stamps.length < limit || !stamps.length) return req.from
  const oldest = Math.min(...stamps)
  return oldest - stepMs >= req.from ? oldest : req.from
}

/**
 * Where an oldest-first page (Hyperliquid: from startTime up, at most `cap` rows a response) covers the span to for
 * sure: the span's end, unless the page came back at its cap before reaching it; then up to its newest row's step.
 */
export function oldestFirstTo(req: Pick<HistoryRequest, 'to'>, stamps: readonly number[], cap: number, stepMs: number): number {
  if (stamps.length < cap || !stamps.length) return req.to
  return Math.min(req.to, Math.max(...stamps) + stepMs)
}

/**
 * The least time between two settlements (the shortest interval, 1 h, less the few seconds a settlement's stamp may
 * lag the hour): the step newestFirstFrom takes for funding pages.
 */
export const SETTLEMENT_GAP_MS = 59 * MINUTE_MS

/** the longest funding interval of the venues served (Bybit, OKX, Binance: 8 h) */
const LONGEST_INTERVAL_HOURS = 8

/** a gap between settlements as whole hours, when it is one (stamps a few ms to seconds after the hour) */
function wholeHours(gapMs: number): number | null {
  const h = Math.round(gapMs / HOUR_MS)
  return h >= 1 && h <= LONGEST_INTERVAL_HOURS && Math.abs(gapMs - h * HOUR_MS) <= 0.05 * HOUR_MS ? h : null
}

/**
 * The interval each settlement covered (docs/methodology.md#funding-intervals): the time since the settlement before
 * it, when that is a whole number of hours up to 8 (venues change a market's interval, so each settlement keeps its
 * own); the oldest of a page takes the gap to the next one; a settlement with no such gap takes `statedHours` (what
 * the venue states for the market now, else its default). Stamps ascending.
 */
export function settlementIntervals(stamps: readonly number[], statedHours: number): number[] {
  const gaps = stamps.map((t, i) => (i > 0 ? wholeHours(t - stamps[i - 1]!) : null))
  return stamps.map((_, i) => gaps[i] ?? (i === 0 ? gaps[1] : null) ?? statedHours)
}

/** the minute-aligned klines of [from, to), oldest first */
export function klinesIn(klines: readonly Kline[], from: number, to: number): Kline[] {
  return klines.filter((k) => k.ts % MINUTE_MS === 0 && k.ts >= from && k.ts < to).sort((a, b) => a.ts - b.ts)
}
