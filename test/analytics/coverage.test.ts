import { describe, expect, it } from 'vitest'
import { buildCoverage } from '../../src/analytics/coverage.js'
import type { ExchangeId } from '../../src/domain/exchanges.js'

const H = 3_600_000
const T = Date.UTC(2026, 5, 1)
const win = { from: T - 24 * H, to: T }

describe('buildCoverage', () => {
  it('point-in-time: every listed venue used → not partial, canonical order, no window', () => {
    const c = buildCoverage({ used: ['okx', 'binance', 'bybit'], gaps: [{ exchange: 'dydx', status: 'not_listed', reason: 'dYdX has no spot market' }] })
    expect(c).toEqual({ exchanges: ['binance', 'bybit', 'okx'], missing: [{ exchange: 'dydx', status: 'not_listed', reason: 'dYdX has no spot market' }], from: null, to: null, requestedFrom: null, requestedTo: null, partial: false, note: null, delisted: null })
  })

  it('a listed venue without data makes the figure partial and says which', () => {
    const c = buildCoverage({ used: ['binance'], gaps: [{ exchange: 'okx', status: 'down', reason: 'feed down' }] })
    expect(c.partial).toBe(true)
    expect(c.note).toBe('okx (down) is missing or in only in part')
  })

  it('windowed: the span is the union of the venues\' ranges; a venue starting late is truncated', () => {
    const ranges = new Map<ExchangeId, { from: number; to: number }>([
      ['binance', { from: T - 24 * H, to: T }],
      ['bybit', { from: T - 6 * H, to: T }],
    ])
    const c = buildCoverage({ ranges, requested: win, toleranceMs: 2 * 60_000 })
    expect([c.from, c.to, c.requestedFrom, c.requestedTo]).toEqual([T - 24 * H, T, win.from, win.to])
    expect(c.exchanges).toEqual(['binance', 'bybit'])
    expect(c.missing).toEqual([{ exchange: 'bybit', status: 'truncated', reason: 'data from 2026-05-31T18:00:00Z only' }])
    expect(c.partial).toBe(true)
  })

  it('windowed: a venue whose data stops well before the end is stale', () => {
    const ranges = new Map<ExchangeId, { from: number; to: number }>([
      ['binance', { from: win.from, to: win.to }],
      ['okx', { from: win.from, to: win.to - 3 * H }],
    ])
    const c = buildCoverage({ ranges, requested: win, toleranceMs: 2 * 60_000 })
    expect(c.missing).toEqual([{ exchange: 'okx', status: 'stale', reason: 'no data after 2026-05-31T21:00:00Z' }])
    expect([c.from, c.to, c.partial]).toEqual([win.from, win.to, true])
  })

  it('windowed: data within the tolerance of both ends spans the window', () => {
    const ranges = new Map<ExchangeId, { from: number; to: number }>([['binance', { from: win.from + 60_000, to: win.to - 60_000 }]])
    expect(buildCoverage({ ranges, requested: win, toleranceMs: 2 * 60_000 }).partial).toBe(false)
    expect(buildCoverage({ ranges, requested: win, toleranceMs: 0 }).partial).toBe(true)
  })

  it('windowed with no data at all: partial, null span', () => {
    const c = buildCoverage({ ranges: new Map(), requested: win })
    expect([c.from, c.to, c.partial, c.note]).toEqual([null, null, true, 'no data in the requested window'])
  })

  it('a window reaching into history still being backfilled says so, per venue and in the note', () => {
    const ranges = new Map<ExchangeId, { from: number; to: number }>([['binance', { from: T - 5 * H, to: T }]])
    const c = buildCoverage({
      ranges, requested: win, toleranceMs: 60_000, backfill: { completeFrom: T - 5 * H, done: false },
      gaps: [{ exchange: 'okx', status: 'no_data', reason: 'no trades in the window' }],
    })
    expect(c.missing.map((g) => [g.exchange, g.status])).toEqual([['binance', 'backfilling'], ['okx', 'backfilling']])
    expect(c.note).toMatch(/^history is still being backfilled \(complete from 2026-05-31T19:00:00Z\); the data spans/)
    // a finished backfill explains nothing
    expect(buildCoverage({ ranges, requested: win, backfill: { completeFrom: T - 5 * H, done: true } }).missing[0]!.status).toBe('truncated')
  })
})
