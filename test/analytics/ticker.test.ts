import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { EXCHANGE_IDS, type ExchangeId } from '../../src/domain/exchanges.js'
import { TICKER_REFRESH_MS, TICKER_STALE_MS, buildTicker, isStale, latestPerExchange, type TickerInput } from '../../src/analytics/ticker.js'

const NOW = Date.UTC(2025, 0, 7, 9)

const t = (coin: string, exchange: ExchangeId, ts: number, over: Partial<TickerInput> = {}): TickerInput => ({
  coin, exchange, ts, markPrice: 100, indexPrice: 99.9, fundingRate: 0.0001, fundingIntervalHours: 8, nextFundingTime: NOW + 3_600_000, ...over,
})

describe('latestPerExchange', () => {
  it('picks the newest row per exchange in canonical order; ties go to the later row', () => {
    const rows = [
      { exchange: 'okx' as const, ts: 5, v: 'a' },
      { exchange: 'binance' as const, ts: 3, v: 'b' },
      { exchange: 'okx' as const, ts: 9, v: 'c' },
      { exchange: 'binance' as const, ts: 3, v: 'd' },
      { exchange: 'dydx' as const, ts: NaN, v: 'e' },
    ]
    expect(latestPerExchange(rows).map((r) => r.v)).toEqual(['d', 'c'])
    expect(latestPerExchange([])).toEqual([])
  })

  it('as of a time, within a maximum age', () => {
    const rows = [
      { exchange: 'okx' as const, ts: 100 },
      { exchange: 'okx' as const, ts: 200 },
      { exchange: 'bybit' as const, ts: 10 },
    ]
    // at 150: okx 200 is in the future, okx 100 qualifies; bybit 10 is 140 old
    expect(latestPerExchange(rows, { at: 150 })).toEqual([{ exchange: 'bybit', ts: 10 }, { exchange: 'okx', ts: 100 }])
    expect(latestPerExchange(rows, { at: 150, maxAgeMs: 50 })).toEqual([{ exchange: 'okx', ts: 100 }])
    // the age limit is inclusive: 150 - 100 = 50
    expect(latestPerExchange(rows, { at: 150, maxAgeMs: 49 })).toEqual([])
  })

  it('property: the result is one row per exchange and each is the max ts of its exchange', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ exchange: fc.constantFrom(...EXCHANGE_IDS), ts: fc.integer({ min: 0, max: 1000 }) })), (rows) => {
        const out = latestPerExchange(rows)
        expect(new Set(out.map((r) => r.exchange)).size).toBe(out.length)
        expect(out.length).toBe(new Set(rows.map((r) => r.exchange)).size)
        for (const r of out) expect(r.ts).toBe(Math.max(...rows.filter((x) => x.exchange === r.exchange).map((x) => x.ts)))
      }),
    )
  })
})

describe('staleness', () => {
  it('constants: stale after 15 s; the feed refreshes about every 5 s', () => {
    expect(TICKER_STALE_MS).toBe(15_000)
    expect(TICKER_REFRESH_MS).toBe(5_000)
  })

  it('stale strictly beyond the threshold; NaN ts is stale', () => {
    expect(isStale(NOW - 15_000, NOW)).toBe(false)
    expect(isStale(NOW - 15_001, NOW)).toBe(true)
    expect(isStale(NOW - 3_000, NOW, 2_000)).toBe(true)
    expect(isStale(NaN, NOW)).toBe(true)
  })
})

describe('buildTicker', () => {
  it('latest per coin and exchange, with age and stale flag', () => {
    const rows = [
      t('ETH', 'okx', NOW - 2_000, { markPrice: 3000 }),
      t('BTC', 'hyperliquid', NOW - 1_000, { fundingRate: 0.0000125, fundingIntervalHours: 1 }),
      t('BTC', 'binance', NOW - 40_000, { markPrice: 1 }), // older row for binance
      t('BTC', 'binance', NOW - 20_000, { markPrice: 2 }), // newest binance row, 20 s old: stale
      t('BTC', 'okx', NOW + 300), // exchange clock slightly ahead: age 0, fresh
    ]
    const out = buildTicker(rows, NOW)
    expect(out.map((r) => [r.coin, r.exchange, r.ageMs, r.stale])).toEqual([
      ['BTC', 'binance', 20_000, true],
      ['BTC', 'okx', 0, false],
      ['BTC', 'hyperliquid', 1_000, false],
      ['ETH', 'okx', 2_000, false],
    ])
    expect(out[0]).toMatchObject({ markPrice: 2, ts: NOW - 20_000 })
    // a funding rate always travels with its interval
    expect(out[2]).toMatchObject({ fundingRate: 0.0000125, fundingIntervalHours: 1 })
  })

  it('never lets NaN out, and never reports a rate without its interval', () => {
    const [r] = buildTicker([t('BTC', 'dydx', NOW, { markPrice: NaN, indexPrice: Infinity, nextFundingTime: NaN, fundingIntervalHours: 0 })], NOW)
    expect(r).toMatchObject({ markPrice: null, indexPrice: null, nextFundingTime: null, fundingRate: null, fundingIntervalHours: null, stale: false })
    const [s] = buildTicker([t('BTC', 'dydx', NOW, { fundingRate: NaN })], NOW)
    expect(s).toMatchObject({ fundingRate: null, fundingIntervalHours: 8 })
  })

  // issue 29 item 11: replaying the fixture recording stamped Bybit and OKX rows 105–165 s after now, all `fresh`
  it('a row stamped after now beyond the 5 s clock-skew tolerance is not fresh, and says it is ahead', () => {
    const out = buildTicker([t('BTC', 'bybit', NOW + 105_000), t('BTC', 'okx', NOW + 5_000), t('BTC', 'binance', NOW + 5_001)], NOW)
    const by = Object.fromEntries(out.map((r) => [r.exchange, r]))
    expect(by.bybit).toMatchObject({ stale: true, status: 'stale', ageMs: 0, reason: expect.stringContaining('105 s after now') })
    expect(by.okx).toMatchObject({ stale: false, status: 'fresh', reason: null })
    expect(by.binance).toMatchObject({ stale: true, status: 'stale' })
  })

  // issue 29 item 4: dYdX publishes no mark apart from its oracle; its stored mark is that oracle
  it('dYdX\'s mark is null with the reason, its oracle stays the index; the other venues keep their marks', () => {
    const [okx, dydx] = buildTicker([t('BTC', 'okx', NOW), t('BTC', 'dydx', NOW, { markPrice: 97_000, indexPrice: 97_000 })], NOW)
    expect(dydx).toMatchObject({ markPrice: null, indexPrice: 97_000, markNote: expect.stringContaining('no mark price apart from its oracle') })
    expect(okx).toMatchObject({ markPrice: 100, markNote: null })
  })

  it('empty input, custom threshold', () => {
    expect(buildTicker([], NOW)).toEqual([])
    expect(buildTicker([t('BTC', 'okx', NOW - 6_000)], NOW, 5_000)[0]!.stale).toBe(true)
  })
})
