// Open interest over time: OHLC per interval of each venue's samples, in coins and USD, and the aggregate over the
// venues present in each interval. Methodology: docs/methodology.md#oi-history.
import { EXCHANGE_IDS, type ExchangeId } from '../domain/exchanges.js'

export interface OhlcValues {
  open: number
  high: number
  low: number
  close: number
}

/** one venue's (or the aggregate's) samples in one interval, as the store folds them */
export interface OiBucket {
  ts: number
  /** one-sided OI, coins */
  oi: OhlcValues | null
  /** OI × mark of the same sample */
  oiUsd: OhlcValues | null
}

export interface OiPoint {
  ts: number
  open: number
  high: number
  low: number
  close: number
  openUsd: number | null
  highUsd: number | null
  lowUsd: number | null
  closeUsd: number | null
}

export interface OiHistory {
  exchanges: { exchange: ExchangeId; points: OiPoint[] }[]
  aggregate: (OiPoint & { exchanges: ExchangeId[] })[]
}

const finite = (o: OhlcValues | null): o is OhlcValues => o !== null && [o.open, o.high, o.low, o.close].every((x) => Number.isFinite(x) && x >= 0)

const point = (b: OiBucket): OiPoint | null => {
  if (!finite(b.oi)) return null
  const usd = finite(b.oiUsd) ? b.oiUsd : null
  return { ts: b.ts, ...b.oi, openUsd: usd?.open ?? null, highUsd: usd?.high ?? null, lowUsd: usd?.low ?? null, closeUsd: usd?.close ?? null }
}

/** the points of intervals in [from, to), ascending; an interval without an OI sample has no point */
export function buildOiHistory(input: { venues: readonly (OiBucket & { exchange: ExchangeId })[]; aggregate: readonly (OiBucket & { exchanges: ExchangeId[] })[]; from: number; to: number }): OiHistory {
  const inWindow = (b: { ts: number }) => b.ts >= input.from && b.ts < input.to
  const exchanges = EXCHANGE_IDS.map((exchange) => ({
    exchange,
    points: input.venues
      .filter((b) => b.exchange === exchange && inWindow(b))
      .map(point)
      .filter((p): p is OiPoint => p !== null)
      .sort((a, b) => a.ts - b.ts),
  })).filter((v) => v.points.length > 0)
  const aggregate = input.aggregate
    .filter(inWindow)
    .flatMap((b) => {
      const p = point(b)
      return p ? [{ ...p, exchanges: EXCHANGE_IDS.filter((e) => b.exchanges.includes(e)) }] : []
    })
    .sort((a, b) => a.ts - b.ts)
  return { exchanges, aggregate }
}
