// What a figure lacks because of where its bars came from (src/analytics/provenance.ts): per venue, the minutes and
// the time ranges of the bars lacking a taker split, volume at price, a trade count or a quote volume.
import { describe, expect, it } from 'vitest'
import { lackGaps, lackRuns, type ProvenanceBar } from '../../src/analytics/provenance.js'

const T = Date.UTC(2026, 0, 5)
const M = 60_000
const H = 60 * M
const minute = (exchange: ProvenanceBar['exchange'], m: number, kline: boolean, split = !kline): ProvenanceBar => ({
  exchange, ts: T + m * M, noSplitMinutes: split ? 0 : 1, klineMinutes: kline ? 1 : 0, trades: kline ? null : 3, quoteVolume: kline ? null : 10,
})

describe('lackRuns', () => {
  it('counts a venue\'s minutes without a split and merges the ranges that touch', () => {
    const bars = [minute('okx', 0, true), minute('okx', 1, true), minute('okx', 2, false), minute('okx', 4, true), minute('binance', 0, true, true), minute('okx', 3, true)]
    expect(lackRuns(bars, 'no_taker_split', M, { from: T, to: T + H })).toEqual([{ exchange: 'okx', minutes: 4, ranges: [{ from: T, to: T + 2 * M }, { from: T + 3 * M, to: T + 5 * M }] }])
    // binance's kline has a split, but no volume at price
    expect(lackRuns(bars, 'kline_only', M, { from: T, to: T + H }).map((r) => [r.exchange, r.minutes])).toEqual([['okx', 4], ['binance', 1]])
  })

  it('leaves out bars outside the window', () => {
    const bars = [minute('okx', -1, true), minute('okx', 0, true), minute('okx', 60, true)]
    expect(lackRuns(bars, 'no_taker_split', M, { from: T, to: T + H })).toEqual([{ exchange: 'okx', minutes: 1, ranges: [{ from: T, to: T + M }] }])
  })

  it('an hourly rollup counts its minutes and stands for its whole hour; the length may differ per bar', () => {
    const hour: ProvenanceBar = { exchange: 'bybit', ts: T, noSplitMinutes: 17, klineMinutes: 20, trades: null, quoteVolume: 5 }
    const edge = minute('bybit', 60, true)
    const length = (b: ProvenanceBar) => (b.ts === T ? H : M)
    expect(lackRuns([hour, edge], 'no_taker_split', length, { from: T, to: T + 2 * H })).toEqual([{ exchange: 'bybit', minutes: 18, ranges: [{ from: T, to: T + H + M }] }])
    // a trade count null over the hour: its 20 minutes from klines (at most those lack it)
    expect(lackRuns([hour], 'no_trade_count', H, { from: T, to: T + H })[0]!.minutes).toBe(20)
    expect(lackRuns([hour], 'no_quote_volume', H, { from: T, to: T + H })).toEqual([])
  })
})

describe('lackGaps', () => {
  it('one gap per venue, its minutes and first ranges named', () => {
    const bars = [0, 2, 4, 6, 8].map((m) => minute('dydx', m, true))
    const [g] = lackGaps(bars, 'no_taker_split', M, { from: T, to: T + H })
    expect(g).toEqual({
      exchange: 'dydx', status: 'no_taker_split',
      reason: '5 minutes without a taker split (venue klines that give none): left out of the taker buy and sell figures, never estimated: ' +
        '2026-01-05T00:00Z to 2026-01-05T00:01Z, 2026-01-05T00:02Z to 2026-01-05T00:03Z, 2026-01-05T00:04Z to 2026-01-05T00:05Z and 2 more ranges',
    })
    expect(lackGaps([minute('dydx', 0, false)], 'no_taker_split', M, { from: T, to: T + H })).toEqual([])
  })
})
