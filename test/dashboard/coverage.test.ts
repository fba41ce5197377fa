// The dashboard's coverage labels, in Node (coverage.js builds no DOM until a note is drawn): the page says a figure is
// partial exactly when its coverage object does, "without" names only the venues coverage leaves out, venues in only in
// part are said to be so, and a venue without the market or without such a feed is never a shortfall.
import { describe, expect, it } from 'vitest'

interface Gap { exchange: string; status: string | null; reason: string | null }
interface Summary { partial: boolean; without: Gap[]; inPart: Gap[]; notApplicable: Gap[]; spanShort: boolean; note: string | null }
// a browser module without type declarations: typed here by what the test uses
const { coverageSummary, coverageFigures, shortfallText } = (await import('../../src/dashboard/public/coverage.js' as string)) as {
  coverageSummary(obj: unknown): Summary | null
  coverageFigures(data: unknown): { label: string | null; obj: unknown }[]
  shortfallText(c: Summary): string
}
const { splitInProgress } = (await import('../../src/dashboard/public/views/kit.js' as string)) as {
  splitInProgress<P extends { ts: number }>(points: P[], interval: string, asOf: number): { closed: P[]; open: P | null }
}

const ALL = ['binance', 'bybit', 'okx', 'hyperliquid', 'dydx']
const H = 3_600_000
const T = Date.UTC(2026, 2, 2, 12, 17, 30)

describe('coverageSummary', () => {
  it('a whole figure whose venues are all in: not partial, nothing named', () => {
    const c = coverageSummary({ coverage: { exchanges: ALL, missing: [], from: T - 23 * H, to: T + H, requested_from: T - 23 * H, requested_to: T, partial: false, note: null } })!
    expect(c).toMatchObject({ partial: false, without: [], inPart: [], notApplicable: [], spanShort: false })
  })

  it('venues used but in only in part (the truncated composite): partial, "in only in part", never "without"', () => {
    const missing = ALL.map((exchange) => ({ exchange, status: 'truncated', reason: 'data from 2026-03-02T06:00:00Z only' }))
    const c = coverageSummary({ exchange: 'composite', exchanges: ALL, missing: [], coverage: { exchanges: ALL, missing, from: T - 6 * H, to: T + H, requested_from: T - 23 * H, requested_to: T, partial: true, note: 'x' } })!
    expect(c.partial).toBe(true)
    expect(c.without).toEqual([])
    expect(c.inPart.map((g) => g.exchange)).toEqual(ALL)
    expect(c.spanShort).toBe(true)
    expect(shortfallText(c)).toBe('binance, bybit, okx, hyperliquid, dydx in only in part')
  })

  it('a venue that publishes no such feed (liquidations on Hyperliquid) is not partial and not "without"', () => {
    const c = coverageSummary({
      coverage: { exchanges: ['binance', 'bybit', 'okx', 'dydx'], missing: [{ exchange: 'hyperliquid', status: 'not_published', reason: 'Hyperliquid publishes no public liquidation feed' }], from: null, to: null, requested_from: null, requested_to: null, partial: false, note: null },
    })!
    expect(c).toMatchObject({ partial: false, without: [], inPart: [] })
    expect(c.notApplicable.map((g) => [g.exchange, g.status])).toEqual([['hyperliquid', 'not_published']])
  })

  it('spot: the DEXes list no spot market (not_listed), and the older missing list naming them adds nothing', () => {
    const c = coverageSummary({
      missing: [{ exchange: 'hyperliquid', reason: 'Hyperliquid has no spot market' }, { exchange: 'dydx', reason: 'dYdX has no spot market' }],
      coverage: { exchanges: ['binance', 'bybit', 'okx'], missing: [{ exchange: 'hyperliquid', status: 'not_listed', reason: 'r' }, { exchange: 'dydx', status: 'not_listed', reason: 'r' }], partial: false },
    })!
    expect(c).toMatchObject({ partial: false, without: [], inPart: [] })
    expect(c.notApplicable.map((g) => g.exchange)).toEqual(['hyperliquid', 'dydx'])
  })

  it('a venue left out (no data, down) is "without"; one used with a gap is in part; not_listed stays out of both', () => {
    const c = coverageSummary({
      coverage: {
        exchanges: ['binance', 'okx'],
        missing: [
          { exchange: 'bybit', status: 'down', reason: 'the Bybit feed is down' },
          { exchange: 'okx', status: 'stale', reason: 'no data after …' },
          { exchange: 'hyperliquid', status: 'not_listed', reason: 'no market' },
          { exchange: 'dydx', status: 'no_data', reason: 'no trades in the window' },
        ],
        partial: true,
      },
    })!
    expect(c.without.map((g) => [g.exchange, g.status])).toEqual([['bybit', 'down'], ['dydx', 'no_data']])
    expect(c.inPart.map((g) => [g.exchange, g.status])).toEqual([['okx', 'stale']])
    expect(shortfallText(c)).toBe('without bybit, dydx; okx in only in part')
  })

  it('partial is what coverage says: a payload saying partial with no venue short (the window) is partial, one saying whole is whole', () => {
    expect(coverageSummary({ coverage: { exchanges: ALL, missing: [], from: T - 3 * H, to: T, requested_from: T - 24 * H, requested_to: T, partial: true } })).toMatchObject({ partial: true, spanShort: true })
    expect(coverageSummary({ coverage: { exchanges: ALL, missing: [{ exchange: 'dydx', status: 'not_published', reason: 'r' }], partial: false } })!.partial).toBe(false)
  })

  it('without a coverage object, the older missing list is all there is', () => {
    expect(coverageSummary({ missing: [{ exchange: 'okx', reason: 'no book' }] })).toMatchObject({ partial: true, without: [{ exchange: 'okx', status: null, reason: 'no book' }] })
    expect(coverageSummary({ coin: 'BTC' })!.partial).toBe(false)
    expect(coverageSummary(null)).toBeNull()
  })
})

describe('coverageFigures', () => {
  it('lists: one figure per coin; two-legged payloads: each leg with its coverage', () => {
    expect(coverageFigures([{ coin: 'BTC' }, { coin: 'ETH' }]).map((f) => f.label)).toEqual(['BTC', 'ETH'])
    expect(coverageFigures({ perp: { coverage: {} }, spot: { coverage: {} } }).map((f) => f.label)).toEqual([null, 'perp', 'spot'])
    const basis = coverageFigures({ coverage: { partial: false }, spot_coverage: { partial: true, exchanges: [], missing: [] } })
    expect(basis.map((f) => f.label)).toEqual([null, 'spot basis'])
    expect(coverageSummary(basis[1]!.obj)!.partial).toBe(true)
  })
})

describe('splitInProgress', () => {
  it('keeps whole intervals; the one running past as_of is set apart, never drawn beside them', () => {
    const points = [0, 1, 2, 3].map((i) => ({ ts: Date.UTC(2026, 2, 2, 9 + i), total_usd: i === 3 ? 0 : 1000 }))
    const asOf = Date.UTC(2026, 2, 2, 12, 1, 5)
    const { closed, open } = splitInProgress(points, '1h', asOf)
    expect(closed.map((p) => p.ts)).toEqual(points.slice(0, 3).map((p) => p.ts))
    expect(open).toBe(points[3])
    // a window ending on an interval boundary has none in progress
    expect(splitInProgress(points, '1h', Date.UTC(2026, 2, 2, 13)).open).toBeNull()
  })
})
