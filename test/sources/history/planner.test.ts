import { describe, expect, it } from 'vitest'
import { RETENTION_MARGIN_MS, extendCovered, missingSpan, pagesOf, planSeries } from '../../../src/sources/history/planner.js'
import type { SeriesProgress } from '../../../src/store/market/history.js'

const MIN = 60_000
const DAY = 86_400_000
const now = Date.UTC(2026, 10, 20, 12, 0, 0)
const window = { start: now - 30 * DAY, end: now }
const progress = (p: Partial<SeriesProgress>): SeriesProgress => ({ exchange: 'binance', coin: 'BTC', kind: 'candles_perp', coveredFrom: 0, coveredTo: 0, exhaustedBefore: null, exhaustedReason: null, pages: 0, ...p })

describe('history planner', () => {
  it('a fresh series is the whole window, backfilled, in pages from the newest down', () => {
    const plan = planSeries(window, undefined, Infinity, now)
    expect(plan).toEqual({ ranges: [{ from: window.start, to: now, priority: 'backfill' }], start: window.start, cut: null })
    const pages = pagesOf(plan.ranges[0]!, 1500 * MIN)
    expect(pages[0]).toEqual({ from: now - 1500 * MIN, to: now })
    expect(pages.at(-1)!.from).toBe(window.start)
    expect(pages).toHaveLength(Math.ceil((30 * DAY) / (1500 * MIN)))
    // contiguous, each asked once
    for (let i = 1; i < pages.length; i++) expect(pages[i]!.to).toBe(pages[i - 1]!.from)
  })

  it('a resumed series asks for the downtime first (repair) and then the older part not yet filled (backfill)', () => {
    const p = progress({ coveredFrom: now - 10 * DAY, coveredTo: now - 60 * MIN })
    expect(planSeries(window, p, Infinity, now).ranges).toEqual([
      { from: now - 60 * MIN, to: now, priority: 'repair' },
      { from: window.start, to: now - 10 * DAY, priority: 'backfill' },
    ])
    // complete and current: nothing
    expect(planSeries(window, progress({ coveredFrom: window.start - DAY, coveredTo: now }), Infinity, now).ranges).toEqual([])
  })

  it("the venue's retention cuts the series (Binance's 30 days of open interest) and says why", () => {
    const plan = planSeries({ start: now - 40 * DAY, end: now }, undefined, 30 * DAY, now)
    expect(plan.start).toBe(now - 30 * DAY + RETENTION_MARGIN_MS)
    expect(plan.cut).toEqual({ ts: plan.start, reason: 'retention' })
    expect(plan.ranges).toEqual([{ from: plan.start, to: now, priority: 'backfill' }])
  })

  it('a listing found before ends every later window there', () => {
    const listed = now - 3 * DAY
    const plan = planSeries(window, progress({ coveredFrom: listed, coveredTo: now - MIN, exhaustedBefore: listed, exhaustedReason: 'listing' }), Infinity, now)
    expect(plan.cut).toEqual({ ts: listed, reason: 'listing' })
    expect(plan.ranges).toEqual([{ from: now - MIN, to: now, priority: 'repair' }])
  })

  it('missingSpan: one request from the oldest missing step to the end of the newest; null when all is stored', () => {
    const stored = new Set([0, 1, 2, 5, 6].map((m) => m * MIN))
    expect(missingSpan(0, 7 * MIN, MIN, (t) => stored.has(t))).toEqual({ from: 3 * MIN, to: 5 * MIN })
    expect(missingSpan(0, 3 * MIN, MIN, (t) => stored.has(t))).toBeNull()
    expect(missingSpan(0, 10 * MIN, MIN, () => false)).toEqual({ from: 0, to: 10 * MIN })
  })

  it('extendCovered merges finished pages only where they touch the covered span', () => {
    const done = [{ from: 80, to: 90 }, { from: 50, to: 60 }]
    expect(extendCovered({ from: 100, to: 100 }, done)).toEqual({ from: 100, to: 100 })
    done.push({ from: 90, to: 100 })
    expect(extendCovered({ from: 100, to: 100 }, done)).toEqual({ from: 80, to: 100 })
    expect(done).toEqual([{ from: 50, to: 60 }])
    done.push({ from: 60, to: 80 })
    expect(extendCovered({ from: 80, to: 100 }, done)).toEqual({ from: 50, to: 100 })
  })
})
