// The coverage of a liquidation figure, from spans of uptime built by hand: each venue's completeness as the venues
// document it (Binance forceOrder and OKX liquidation-orders publish samples; Bybit allLiquidation and dYdX's trades
// every liquidation; Hyperliquid none), and the part of the window its stream was up.
import { describe, expect, it } from 'vitest'
import { buildLiquidationCoverage } from '../../src/analytics/liquidation-coverage.js'
import { EXCHANGE_IDS } from '../../src/domain/exchanges.js'

const MIN = 60_000
const H = 60 * MIN
const T0 = Date.UTC(2026, 2, 2, 8)
const window = { from: T0, to: T0 + 4 * H }
const up = (exchange: string, from: number, to: number) => ({ exchange, from, to })

describe('buildLiquidationCoverage', () => {
  it('samples are a lower bound, complete venues up throughout are complete, Hyperliquid publishes none', () => {
    const spans = ['binance', 'bybit', 'okx', 'dydx'].map((e) => up(e, T0 - H, T0 + 5 * H))
    const { coverage, gaps, ranges } = buildLiquidationCoverage({ venues: EXCHANGE_IDS, spans, window, now: T0 + 4 * H })
    expect([coverage.basis, coverage.complete, coverage.lowerBound, coverage.none]).toEqual(['lower_bound', ['bybit', 'dydx'], ['binance', 'okx'], ['hyperliquid']])
    expect(coverage.exchanges.map((v) => [v.exchange, v.completeness, v.stream, v.upMs])).toEqual([
      ['binance', 'sample', 'up', 4 * H],
      ['bybit', 'complete', 'up', 4 * H],
      ['okx', 'sample', 'up', 4 * H],
      ['hyperliquid', 'none', 'not_published', 0],
      ['dydx', 'complete', 'up', 4 * H],
    ])
    expect(gaps).toEqual([{ exchange: 'hyperliquid', status: 'not_published', reason: 'Hyperliquid publishes no public liquidation feed' }])
    expect([...ranges.keys()]).toEqual(['binance', 'bybit', 'okx', 'dydx'])
    expect(coverage.note).toBe('a lower bound (complete: bybit, dydx; lower bound: binance (a sample), okx (a sample); none: hyperliquid (publishes no feed))')
    // the complete venues alone make a complete figure
    for (const e of ['bybit', 'dydx'] as const) expect(buildLiquidationCoverage({ venues: [e], spans, window, now: T0 + 4 * H }).coverage.basis).toBe('complete')
  })

  it('a stream that died halfway is in only in part, with its outage; a stream never up adds nothing', () => {
    const spans = [up('bybit', T0 - H, T0 + 2 * H), up('dydx', T0, T0 + 4 * H)]
    const { coverage, gaps, ranges } = buildLiquidationCoverage({ venues: ['bybit', 'dydx', 'okx'], spans, window, now: T0 + 4 * H })
    const bybit = coverage.exchanges.find((v) => v.exchange === 'bybit')!
    expect(bybit).toMatchObject({ stream: 'partial', upMs: 2 * H, outages: [{ from: T0 + 2 * H, to: T0 + 4 * H }], counts: 'lower_bound' })
    expect(bybit.reason).toBe('the Bybit liquidation stream was down for 2 h of the window (2026-03-02T10:00Z to 2026-03-02T12:00Z)')
    expect(coverage.exchanges.find((v) => v.exchange === 'okx')).toMatchObject({ stream: 'down', upMs: 0, outages: [window], counts: 'none' })
    expect([coverage.basis, coverage.complete, coverage.lowerBound, coverage.none]).toEqual(['lower_bound', ['dydx'], ['bybit'], ['okx']])
    expect(gaps.map((g) => [g.exchange, g.status])).toEqual([['bybit', 'down'], ['okx', 'down']])
    expect(ranges.get('bybit')).toEqual({ from: T0, to: T0 + 2 * H })
  })

  it('overlapping and touching spans unite; an outage under a minute (a reconnect, the write period) is not one; the window ends at now', () => {
    const spans = [up('bybit', T0, T0 + H), up('bybit', T0 + H, T0 + 2 * H), up('bybit', T0 + 90 * MIN, T0 + 3 * H), up('bybit', T0 + 3 * H + 30_000, T0 + 4 * H - 40_000)]
    const c = buildLiquidationCoverage({ venues: ['bybit'], spans, window: { from: T0, to: T0 + 5 * H }, now: T0 + 4 * H }).coverage
    expect(c.exchanges[0]).toMatchObject({ stream: 'up', outages: [], counts: 'complete' })
    expect([c.from, c.to]).toEqual([T0, T0 + 4 * H])
    expect(c.basis).toBe('complete')
    // two minutes missing is an outage
    const gap = buildLiquidationCoverage({ venues: ['bybit'], spans: [up('bybit', T0, T0 + H), up('bybit', T0 + H + 2 * MIN, T0 + 4 * H)], window, now: T0 + 4 * H }).coverage
    expect(gap.exchanges[0]).toMatchObject({ stream: 'partial', outages: [{ from: T0 + H, to: T0 + H + 2 * MIN }] })
  })

  it('nothing collected: basis none', () => {
    const c = buildLiquidationCoverage({ venues: EXCHANGE_IDS, spans: [], window, now: T0 + 4 * H }).coverage
    expect([c.basis, c.complete, c.lowerBound]).toEqual(['none', [], []])
    expect(c.note).toMatch(/^no liquidations collected \(none: binance \(stream not up\)/)
    expect(buildLiquidationCoverage({ venues: ['hyperliquid'], spans: [], window, now: T0 + 4 * H }).coverage.basis).toBe('none')
  })
})
