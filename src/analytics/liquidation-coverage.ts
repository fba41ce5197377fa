// What a liquidation figure covers, venue by venue (docs/methodology.md#liquidation-coverage): whether the venue
// publishes every liquidation or a sample (LIQUIDATION_FEEDS), and for which part of the window its liquidation
// stream was up (the spans its source reported: a quiet stream is up, a lost subscription is not). A venue counts as
// complete only when it publishes every liquidation and its stream was up throughout; a sample, or a stream up for
// part of the window, makes its orders a lower bound; a venue without a feed, or whose stream was never up, adds
// nothing. The figure is complete only when every venue that publishes one is.
import type { CoverageGap, WindowRange } from './coverage.js'
import { EXCHANGE_IDS, exchangeById, type ExchangeId } from '../domain/exchanges.js'
import { LIQUIDATION_FEEDS, type LiquidationCompleteness } from '../domain/liquidations.js'

/** an outage shorter than this (a reconnect, the write period of the uptime record) is not counted */
export const LIQUIDATION_OUTAGE_TOLERANCE_MS = 60_000

export type LiquidationBasis = 'complete' | 'lower_bound' | 'none'

export interface VenueLiquidationCoverage {
  exchange: ExchangeId
  completeness: LiquidationCompleteness
  /** up: its stream was up throughout the window; partial: for part of it; down: not at all; not_published: no feed */
  stream: 'up' | 'partial' | 'down' | 'not_published'
  /** ms of the window its stream was up */
  upMs: number
  /** the stretches of the window its stream was not up (each at least the tolerance long) */
  outages: WindowRange[]
  /** how its orders count in the figure */
  counts: LiquidationBasis
  reason: string | null
}

export interface LiquidationCoverage {
  /** the figure: complete (every venue publishing a feed complete), a lower bound, or none (nothing collected) */
  basis: LiquidationBasis
  complete: ExchangeId[]
  lowerBound: ExchangeId[]
  none: ExchangeId[]
  exchanges: VenueLiquidationCoverage[]
  /** the window measured, Unix ms (its end no later than now) */
  from: number
  to: number
  note: string
}

export interface LiquidationCoverageInput {
  /** the venues the figure is asked over, canonical order */
  venues: readonly ExchangeId[]
  /** the spans of uptime of their liquidation streams reaching into the window (any order, may overlap) */
  spans: readonly { exchange: ExchangeId | string; from: number; to: number }[]
  window: WindowRange
  now: number
  toleranceMs?: number
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/:\d\d\.\d{3}Z$/, 'Z')

function duration(ms: number): string {
  const m = Math.round(ms / 60_000)
  return m < 60 ? `${m} min` : m % 60 ? `${Math.floor(m / 60)} h ${m % 60} min` : `${m / 60} h`
}

/** the window's stretches covered by the spans (merged), and those not covered that last at least `tol` */
function cover(spans: readonly { from: number; to: number }[], from: number, to: number, tol: number): { up: WindowRange[]; outages: WindowRange[] } {
  const clipped = spans.map((s) => ({ from: Math.max(from, s.from), to: Math.min(to, s.to) })).filter((s) => s.to > s.from).sort((a, b) => a.from - b.from)
  const up: WindowRange[] = []
  for (const s of clipped) {
    const last = up.at(-1)
    if (last && s.from <= last.to) last.to = Math.max(last.to, s.to)
    else up.push({ ...s })
  }
  const outages: WindowRange[] = []
  let at = from
  for (const u of [...up, { from: to, to }]) {
    if (u.from - at >= tol) outages.push({ from: at, to: u.from })
    at = Math.max(at, u.to)
  }
  return { up, outages }
}

function venueCoverage(e: ExchangeId, input: LiquidationCoverageInput, from: number, to: number, tol: number): VenueLiquidationCoverage & { up: WindowRange[] } {
  const feed = LIQUIDATION_FEEDS[e]
  const base = { exchange: e, completeness: feed.completeness }
  if (!feed.published) return { ...base, stream: 'not_published', upMs: 0, outages: [], up: [], counts: 'none', reason: feed.note }
  const { up, outages } = cover(input.spans.filter((s) => s.exchange === e), from, to, tol)
  const upMs = up.reduce((n, u) => n + u.to - u.from, 0)
  const name = exchangeById.get(e)!.name
  if (!up.length) return { ...base, stream: 'down', upMs, outages: to > from ? [{ from, to }] : [], up, counts: 'none', reason: `the ${name} liquidation stream was not up in the window` }
  const down = outages.reduce((n, o) => n + o.to - o.from, 0)
  const shown = outages.slice(0, 3).map((o) => `${iso(o.from)} to ${iso(o.to)}`).join(', ') + (outages.length > 3 ? ` and ${outages.length - 3} more` : '')
  const parts = [feed.completeness === 'sample' ? feed.note : null, outages.length ? `the ${name} liquidation stream was down for ${duration(down)} of the window (${shown})` : null].filter((p) => p !== null)
  const counts = feed.completeness === 'complete' && !outages.length ? 'complete' : 'lower_bound'
  return { ...base, stream: outages.length ? 'partial' : 'up', upMs, outages, up, counts, reason: parts.length ? parts.join('; ') : null }
}

/**
 * Each venue's coverage of a liquidation figure over the window, the figure's basis, and what the generic coverage
 * needs: a gap for every venue not up throughout (status down, or not_published) and each up venue's span.
 */
export function buildLiquidationCoverage(input: LiquidationCoverageInput): { coverage: LiquidationCoverage; gaps: CoverageGap[]; ranges: Map<ExchangeId, WindowRange> } {
  const tol = input.toleranceMs ?? LIQUIDATION_OUTAGE_TOLERANCE_MS
  const from = input.window.from
  const to = Math.max(from, Math.min(input.window.to, input.now))
  const venues = EXCHANGE_IDS.filter((e) => input.venues.includes(e)).map((e) => venueCoverage(e, input, from, to, tol))
  const gaps: CoverageGap[] = []
  const ranges = new Map<ExchangeId, WindowRange>()
  for (const v of venues) {
    if (v.stream === 'not_published') gaps.push({ exchange: v.exchange, status: 'not_published', reason: v.reason! })
    else if (v.stream !== 'up') gaps.push({ exchange: v.exchange, status: 'down', reason: v.reason! })
    if (v.up.length) ranges.set(v.exchange, { from: v.up[0]!.from, to: v.up.at(-1)!.to })
  }
  const of = (b: LiquidationBasis) => venues.filter((v) => v.counts === b).map((v) => v.exchange)
  const [complete, lowerBound, none] = [of('complete'), of('lower_bound'), of('none')]
  const published = venues.filter((v) => v.stream !== 'not_published')
  const basis: LiquidationBasis = !complete.length && !lowerBound.length ? 'none' : published.every((v) => v.counts === 'complete') ? 'complete' : 'lower_bound'
  const why = (v: VenueLiquidationCoverage) =>
    v.stream === 'not_published' ? 'publishes no feed' : v.stream === 'down' ? 'stream not up' : [v.completeness === 'sample' ? 'a sample' : null, v.stream === 'partial' ? 'stream down for part of the window' : null].filter(Boolean).join(', ')
  const list = (b: LiquidationBasis, withWhy: boolean) => venues.filter((v) => v.counts === b).map((v) => (withWhy ? `${v.exchange} (${why(v)})` : v.exchange)).join(', ')
  const parts = [complete.length ? `complete: ${list('complete', false)}` : null, lowerBound.length ? `lower bound: ${list('lower_bound', true)}` : null, none.length ? `none: ${list('none', true)}` : null]
  const head = basis === 'complete' ? 'complete' : basis === 'lower_bound' ? 'a lower bound' : 'no liquidations collected'
  const note = `${head} (${parts.filter((p) => p !== null).join('; ')})`
  return {
    coverage: { basis, complete, lowerBound, none, exchanges: venues.map(({ up: _up, ...v }) => v), from, to, note },
    gaps,
    ranges,
  }
}
