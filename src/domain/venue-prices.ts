// What each venue's prices are and how its funding formula pays a premium: the rules every figure that reads a mark,
// a tradable price or an annualised premium takes from here (sources: docs/methodology.md#venue-price-rules).
import type { ExchangeId } from './exchanges.js'

const HOURS_PER_YEAR = 24 * 365

/**
 * How often a year a constant premium p is paid in full by the venue's funding, simple (not compounded):
 * - `per_interval`: each settlement's rate is the interval's average premium itself (Binance, Bybit, OKX, whatever
 *   the interval), so p is paid 8 760 / interval_hours times a year;
 * - `eighth_hourly`: the formula gives an 8-hour rate and each hourly settlement pays one eighth of it (Hyperliquid;
 *   dYdX's hourly rate is premium / 8), so p is paid 8 760 / 8 = 1 095 times a year, whatever the interval.
 */
type PremiumRule = 'per_interval' | 'eighth_hourly'

const PREMIUM_RULE: Readonly<Record<ExchangeId, PremiumRule>> = {
  binance: 'per_interval',
  bybit: 'per_interval',
  okx: 'per_interval',
  hyperliquid: 'eighth_hourly',
  dydx: 'eighth_hourly',
}

/** times a year the venue's funding pays a constant premium in full; null without a positive interval where the rule needs one */
export function premiumPeriodsPerYear(exchange: ExchangeId, intervalHours: number | null): number | null {
  if (PREMIUM_RULE[exchange] === 'eighth_hourly') return HOURS_PER_YEAR / 8
  return intervalHours != null && Number.isFinite(intervalHours) && intervalHours > 0 ? HOURS_PER_YEAR / intervalHours : null
}

/**
 * Venues whose only published price besides trades is an oracle: dYdX v4 margins and settles on the oracle price and
 * publishes no mark apart from it. Their stored mark column holds that oracle (the price positions are valued at: OI in
 * USD, funding weights), never shown as a mark, a premium or a tradable price.
 */
const ORACLE_ONLY: ReadonlySet<ExchangeId> = new Set<ExchangeId>(['dydx'])

export const publishesMark = (exchange: ExchangeId): boolean => !ORACLE_ONLY.has(exchange)

/** why a venue has no mark (null for the venues that publish one) */
export const noMarkReason = (exchange: ExchangeId): string | null =>
  publishesMark(exchange) ? null : 'dYdX publishes no mark price apart from its oracle price (index_price), at which it margins positions'

/** which price of a venue a cross-venue comparison read: its mark, or (no mark of its own) its last trade */
export type PriceSource = 'mark' | 'last_trade'

export const tradablePriceSource = (exchange: ExchangeId): PriceSource => (publishesMark(exchange) ? 'mark' : 'last_trade')
