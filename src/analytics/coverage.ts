// What a figure covers: which venues entered it, which did not and why, and which part of the requested window the
// data spans. Every analytics payload carries one (docs/methodology.md#coverage), so a figure computed on part of
// what was asked (a venue down, a book too shallow, a window still backfilling) says so.
import { EXCHANGE_IDS, type ExchangeId } from '../domain/exchanges.js'

export const COVERAGE_STATUSES = [
  'not_listed', 'no_data', 'stale', 'down', 'degraded', 'truncated', 'backfilling', 'not_published', 'outlier',
  // provenance (provenance.ts): a venue in the figure whose minutes from venue klines lack what it needs
  'no_taker_split', 'kline_only', 'no_trade_count', 'no_quote_volume',
] as const
type CoverageStatus = (typeof COVERAGE_STATUSES)[number]
/** statuses a venue may have besides another one (its other minutes may be short, late or an outlier too) */
const PROVENANCE_STATUSES: ReadonlySet<CoverageStatus> = new Set(['no_taker_split', 'kline_only', 'no_trade_count', 'no_quote_volume'])

export interface CoverageGap {
  exchange: ExchangeId
  status: CoverageStatus
  reason: string
}

export interface Coverage {
  /** venues whose data entered the figure, canonical order */
  exchanges: ExchangeId[]
  /** venues left out, or in only in part, and why (canonical order) */
  missing: CoverageGap[]
  /** the time range the data actually spans (Unix ms, end exclusive); null for point-in-time figures or no data */
  from: number | null
  to: number | null
  /** the range the caller asked for; null for point-in-time figures */
  requestedFrom: number | null
  requestedTo: number | null
  /** a venue that lists the market is missing or in only in part, or the data does not span the requested range */
  partial: boolean
  /** why the figure is partial, in a sentence; null when it is not */
  note: string | null
  /** COINS=all: the figure's coin left the universe (its history stays, nothing new arrives): since when, and why */
  delisted: Delisting | null
}

export interface Delisting {
  since: number
  note: string
}

export interface WindowRange {
  from: number
  to: number
}

export interface CoverageInput {
  /** venues whose data entered the figure (point-in-time figures) */
  used?: Iterable<ExchangeId>
  /** windowed figures: each used venue's data range in the window (its first bucket open to its last bucket end) */
  ranges?: ReadonlyMap<ExchangeId, WindowRange>
  /** venues left out and why; a venue both used and listed here is in only in part (e.g. truncated) */
  gaps?: readonly CoverageGap[]
  /** the requested window (windowed figures) */
  requested?: WindowRange | null
  /** slack at each end of the window before it counts as not spanned (data sits on buckets; the current one is open) */
  toleranceMs?: number
  /** the history backfill, when one is running: a window reaching before completeFrom is still being filled */
  backfill?: { completeFrom: number; done: boolean } | null
  /** the figure's coin was delisted from the universe */
  delisted?: Delisting | null
}

const rank = (e: ExchangeId) => EXCHANGE_IDS.indexOf(e)
const iso = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z')

export function buildCoverage(input: CoverageInput): Coverage {
  const tol = input.toleranceMs ?? 0
  const req = input.requested ?? null
  const ranges = input.ranges ?? new Map<ExchangeId, WindowRange>()
  const used = new Set<ExchangeId>([...(input.used ?? []), ...ranges.keys()])
  // one gap per venue (the first), and beside it one per provenance status
  const gaps = new Map<string, CoverageGap>()
  const keyOf = (g: CoverageGap) => (PROVENANCE_STATUSES.has(g.status) ? `${g.exchange}|${g.status}` : g.exchange)
  for (const g of input.gaps ?? []) if (!gaps.has(keyOf(g))) gaps.set(keyOf(g), g)
  const backfilling = !!input.backfill && !input.backfill.done && !!req && req.from + tol < input.backfill.completeFrom

  let from: number | null = null
  let to: number | null = null
  for (const [exchange, r] of ranges) {
    from = from === null ? r.from : Math.min(from, r.from)
    to = to === null ? r.to : Math.max(to, r.to)
    // a venue whose data starts well inside the window, or stops well before its end, covers only part of it
    if (req && r.from > req.from + tol && !gaps.has(exchange))
      gaps.set(exchange, backfilling
        ? { exchange, status: 'backfilling', reason: `history is still being backfilled: data from ${iso(r.from)}` }
        : { exchange, status: 'truncated', reason: `data from ${iso(r.from)} only` })
    if (req && r.to < req.to - tol && !gaps.has(exchange)) gaps.set(exchange, { exchange, status: 'stale', reason: `no data after ${iso(r.to)}` })
  }
  if (backfilling) for (const e of EXCHANGE_IDS) if (!used.has(e) && gaps.get(e)?.status === 'no_data') gaps.set(e, { exchange: e, status: 'backfilling', reason: 'history is still being backfilled' })

  const missing = [...gaps.values()].sort((a, b) => rank(a.exchange) - rank(b.exchange))
  // a venue without the market, or one that publishes no such data, is not a shortfall of this figure
  const venueShort = missing.filter((g) => g.status !== 'not_listed' && g.status !== 'not_published')
  const spanShort = !!req && (from === null || to === null || from > req.from + tol || to < req.to - tol)
  const partial = venueShort.length > 0 || spanShort
  let note: string | null = null
  if (partial) {
    const parts: string[] = []
    if (backfilling) parts.push(`history is still being backfilled (complete from ${iso(input.backfill!.completeFrom)})`)
    if (spanShort && from !== null && to !== null) parts.push(`the data spans ${iso(from)} to ${iso(to)} of the requested ${iso(req!.from)} to ${iso(req!.to)}`)
    else if (spanShort) parts.push('no data in the requested window')
    if (venueShort.length) parts.push(`${venueShort.map((g) => `${g.exchange} (${g.status})`).join(', ')} ${venueShort.length === 1 ? 'is' : 'are'} missing or in only in part`)
    note = parts.join('; ')
  }
  return {
    exchanges: [...used].sort((a, b) => rank(a) - rank(b)),
    missing,
    from,
    to,
    requestedFrom: req?.from ?? null,
    requestedTo: req?.to ?? null,
    partial,
    note,
    delisted: input.delisted ?? null,
  }
}
