// The screener's words: the columns /v1/markets/overview sorts by, and the sort order.
import { z } from 'zod'

/** the overview's sortable columns, named as the REST fields they sort by */
const OVERVIEW_COLUMNS = [
  'coin', 'price', 'change_1h_pct', 'change_4h_pct', 'change_24h_pct', 'volume_24h_usd', 'oi_usd', 'oi_change_24h_pct', 'funding_8h', 'liquidations_24h_usd',
] as const
export const OverviewSort = z.enum(OVERVIEW_COLUMNS)
export type OverviewSort = z.infer<typeof OverviewSort>

export const SortOrder = z.enum(['asc', 'desc'])
export type SortOrder = z.infer<typeof SortOrder>
