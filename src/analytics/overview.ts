// The market overview (screener): one row per coin with price, changes, volume, open interest and funding, sortable
// by any column. The figures come from the other models; this file holds the row, the change formula and the order.
// Methodology: docs/methodology.md#market-overview.
import type { ExchangeId } from '../domain/exchanges.js'
import type { OverviewSort, SortOrder } from '../domain/screener.js'
import type { FundingKind } from './funding-kind.js'

export interface OverviewRow {
  coin: string
  /** the latest composite perp close (volume-weighted across venues, outliers left out) */
  price: number | null
  /** minute of that close */
  priceTs: number | null
  change1hPct: number | null
  change4hPct: number | null
  change24hPct: number | null
  /** Σ quote volume of the perp minute candles of the 24 h before the current minute, every venue */
  volume24hUsd: number | null
  /** Σ one-sided OI × mark over venues with a current sample */
  oiUsd: number | null
  /** aggregate OI change over 24 h in coin units, over venues present at both ends */
  oiChange24hPct: number | null
  /** OI-weighted funding rate per 8 h */
  funding8h: number | null
  /** which rate funding8h weights: the venues' predicted rates; null with funding8h */
  fundingKind: FundingKind | null
  /** Σ liquidated USD of the minutes starting in the last 24 h, every venue; null when no venue's stream covered the coin */
  liquidations24hUsd: number | null
  /** venues whose perp candles entered price or volume */
  exchanges: ExchangeId[]
  note: string | null
  /** venues left out of price or of a change's reference close: their close more than 5 % from the other venues' median */
  priceOutliers: ExchangeId[]
}

/** (now − then) / then × 100; null when either is missing or then is not positive */
function changePct(now: number | null, then: number | null): number | null {
  if (now == null || then == null || !Number.isFinite(now) || !Number.isFinite(then) || !(then > 0)) return null
  return ((now - then) / then) * 100
}

const FIELD: Record<OverviewSort, keyof OverviewRow> = {
  coin: 'coin',
  price: 'price',
  change_1h_pct: 'change1hPct',
  change_4h_pct: 'change4hPct',
  change_24h_pct: 'change24hPct',
  volume_24h_usd: 'volume24hUsd',
  oi_usd: 'oiUsd',
  oi_change_24h_pct: 'oiChange24hPct',
  funding_8h: 'funding8h',
  liquidations_24h_usd: 'liquidations24hUsd',
}

/** rows ordered by one column; a null sorts last in either order, ties by coin ascending */
export function sortOverview(rows: readonly OverviewRow[], sort: OverviewSort, order: SortOrder): OverviewRow[] {
  const k = FIELD[sort]
  const dir = order === 'asc' ? 1 : -1
  const byCoin = (a: OverviewRow, b: OverviewRow) => (a.coin < b.coin ? -1 : a.coin > b.coin ? 1 : 0)
  return [...rows].sort((a, b) => {
    const x = a[k] as number | string | null
    const y = b[k] as number | string | null
    if (x === null || y === null) return x === y ? byCoin(a, b) : x === null ? 1 : -1
    return (x < y ? -dir : x > y ? dir : 0) || byCoin(a, b)
  })
}
