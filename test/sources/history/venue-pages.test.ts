// The Bybit, OKX, Hyperliquid and dYdX history payloads -> klines and events. Recorded bodies where SOURCES.md has
// them (bybit/klines.json, bybit/open_interest.json, okx/candles_*.json, okx/funding_rate_history.json,
// hyperliquid/candles.json, hyperliquid/funding_history.json, dydx/candles.json, dydx/historical_funding.json); the
// others are the examples of the venues' API docs (labelled). Expected values are read off the raw rows by hand.
import { describe, expect, it } from 'vitest'
import { bybitFundingRows, bybitKlines, bybitOiEvents, bybitStatedIntervalHours } from '../../../src/sources/history/bybit-pages.js'
import { okxFundingRows, okxKlines, okxOiEvents } from '../../../src/sources/history/okx-pages.js'
import { dydxFundingRows, dydxKlines, dydxOiEvents, hyperliquidFundingRows, hyperliquidKlines } from '../../../src/sources/history/dex-pages.js'
import { bybitPositioningRows, okxPositioningRows } from '../../../src/sources/connectors/positioning.js'
import type { MarketRef } from '../../../src/sources/connectors/mapping.js'
import { fixture } from '../connectors/offline.js'

const ref = (exchange: MarketRef['exchange'], o: Partial<MarketRef> = {}): MarketRef => ({ exchange, coin: 'BTC', marketType: 'perp', symbol: 'BTC/USDT:USDT', id: 'BTCUSDT', contractSize: 1, inverse: false, ...o })

describe('bybit history pages', () => {
  it('klines.json (linear, newest first): oldest first, volume in coins, turnover as quote volume, no taker split, no trade count', () => {
    const k = bybitKlines(ref('bybit'), fixture('bybit/klines.json'))
    expect(k).toEqual([
      { ts: 1706630400000, open: 43350.7, high: 43492.5, low: 43204.5, close: 43488, volume: 1341.261, quoteVolume: 58117391.4117 },
      { ts: 1706634000000, open: 43488, high: 43579.5, low: 43286.8, close: 43376.1, volume: 3199.431, quoteVolume: 138878389.2519 },
      { ts: 1706637600000, open: 43376.1, high: 43474.1, low: 43264.8, close: 43352.8, volume: 1575.305, quoteVolume: 68345898.1407 },
    ])
    for (const x of k) expect(['buyVolume' in x, 'trades' in x]).toEqual([false, false])
  })

  it('open_interest.json: a row with only openInterest (before Bybit counted both sides) is the one side, in coins', () => {
    expect(bybitOiEvents(ref('bybit'), fixture('bybit/open_interest.json'))).toEqual([
      { type: 'open_interest', exchange: 'bybit', coin: 'BTC', marketType: 'perp', ts: 1739725200000, openInterest: 62129.455, source: 'venue_history' },
    ])
  })

  it('open-interest (Bybit API docs example rows, read as a linear market): singleOpenInterest is the one side; an inverse market is not followed', () => {
    const body = { retCode: 0, result: { list: [{ openInterest: '63910691.00000000', singleOpenInterest: '31955346', timestamp: '1780963200000' }, { openInterest: '63942311.00000000', singleOpenInterest: '31971156', timestamp: '1780704000000' }] } }
    expect(bybitOiEvents(ref('bybit'), body).map((e) => [e.ts, e.openInterest])).toEqual([[1780704000000, 31971156], [1780963200000, 31955346]])
    expect(bybitOiEvents(ref('bybit', { inverse: true }), body)).toEqual([])
  })

  it('funding/history (Bybit API docs example) and the instrument fundingInterval (ccxt_markets.json, minutes)', () => {
    const body = { retCode: 0, retMsg: 'OK', result: { category: 'linear', list: [{ symbol: 'ETHPERP', fundingRate: '0.0001', fundingRateTimestamp: '1672041600000' }] }, time: 1672051897447 }
    expect(bybitFundingRows(body)).toEqual([{ ts: 1672041600000, rate: 0.0001 }])
    const markets = fixture('bybit/ccxt_markets.json')
    expect(bybitStatedIntervalHours(markets['BTC/USDT:USDT'].info)).toBe(8) // fundingInterval 480
    expect(bybitStatedIntervalHours(markets['BTC/USDT'].info)).toBeNull() // spot
  })

  it('account-ratio (Bybit API docs example): every row, oldest first, buyRatio/sellRatio as the account shares', () => {
    const body = { retCode: 0, result: { list: [{ symbol: 'BTCUSDT', buyRatio: '0.49', sellRatio: '0.51', timestamp: '1696262400000' }, { symbol: 'BTCUSDT', buyRatio: '0.4927', sellRatio: '0.5073', timestamp: '1696258800000' }] } }
    const rows = bybitPositioningRows(ref('bybit'), body)
    expect(rows.map((e) => [e.ts, e.kind, e.longShare, e.shortShare])).toEqual([[1696258800000, 'account', 0.4927, 0.5073], [1696262400000, 'account', 0.49, 0.51]])
    expect(rows[0]!.ratio).toBeCloseTo(0.4927 / 0.5073, 12)
  })
})

describe('okx history pages', () => {
  it('candles_swap.json: volCcy (coins) is the volume, not vol (contracts); volCcyQuote the quote volume; oldest first', () => {
    const k = okxKlines(ref('okx', { id: 'BTC-USDT-SWAP', contractSize: 0.01 }), fixture('okx/candles_swap.json'))
    expect(k).toEqual([
      { ts: 1747093980000, open: 102806, high: 102820.5, low: 102783.1, close: 102806.1, volume: 71.6404, quoteVolume: 7364701.57952 },
      { ts: 1747094040000, open: 102806.1, high: 102820.4, low: 102806.1, close: 102820.4, volume: 10.4037, quoteVolume: 1069603.34883 },
    ])
  })

  it('candles_spot.json: vol is the base volume of a spot pair (volCcy is its quote)', () => {
    const k = okxKlines(ref('okx', { marketType: 'spot', id: 'BTC-USDT', symbol: 'BTC/USDT' }), fixture('okx/candles_spot.json'))
    expect(k.map((x) => [x.ts, x.volume, x.quoteVolume])).toEqual([
      [1706630400000, 7137.30786672, 309343235.363089398],
      [1706634000000, 4492.95408114, 195072853.268772597],
      [1706637600000, 5070.79611732, 220057933.233687634],
    ])
  })

  it('an open candle (confirm "0") is left out', () => {
    const body = { code: '0', data: [['1747094100000', '1', '2', '0.5', '1.5', '10', '0.1', '0.15', '0'], ['1747094040000', '1', '2', '0.5', '1.5', '10', '0.1', '0.15', '1']] }
    expect(okxKlines(ref('okx', { contractSize: 0.01 }), body).map((x) => x.ts)).toEqual([1747094040000])
  })

  it('funding_rate_history.json: realizedRate is the settled rate (fundingRate is the prediction); oldest first', () => {
    expect(okxFundingRows(fixture('okx/funding_rate_history.json'))).toEqual([
      { ts: 1704038400000, rate: -0.00002 },
      { ts: 1704067200000, rate: 0.00015 },
    ])
  })

  it('open-interest-history (OKX API docs example): [ts, oi, oiCcy, oiUsd], oiCcy the coins', () => {
    const body = { code: '0', msg: '', data: [['1701417600000', '731377.57500501', '111', '8888888'], ['1701417500000', '731377.57500501', '111', '8888888']] }
    expect(okxOiEvents(ref('okx', { contractSize: 0.01 }), body).map((e) => [e.ts, e.openInterest])).toEqual([[1701417500000, 111], [1701417600000, 111]])
  })

  it('long-short-account-ratio-contract (OKX API docs example): [ts, ratio], the shares following from the ratio', () => {
    const body = { code: '0', msg: '', data: [['1701417600000', '1.1739'], ['1701417300000', '0.1236']] }
    const rows = okxPositioningRows(ref('okx'), body)
    expect(rows.map((e) => [e.ts, e.ratio])).toEqual([[1701417300000, 0.1236], [1701417600000, 1.1739]])
    expect(rows[1]!.longShare).toBeCloseTo(1.1739 / 2.1739, 12)
    expect(rows[1]!.shortShare).toBeCloseTo(1 / 2.1739, 12)
  })
})

describe('hyperliquid history pages', () => {
  it('candles.json (candleSnapshot): t, o/h/l/c, v in coins, n trades; no quote volume, no taker split', () => {
    const rows = fixture<Record<string, unknown>[]>('hyperliquid/candles.json')
    const k = hyperliquidKlines(rows)
    expect(k).toHaveLength(24)
    expect(k[0]).toEqual({ ts: 1684699200000, open: 0.001601, high: 0.001616, low: 0.001601, close: 0.001604, volume: 520665683, trades: 709 })
    expect(k[23]).toEqual({ ts: 1684782000000, open: 0.001538, high: 0.001548, low: 0.001536, close: 0.00154, volume: 308219489, trades: 430 })
  })

  it('funding_history.json: each row a settlement at its time, oldest first', () => {
    const r = hyperliquidFundingRows(fixture('hyperliquid/funding_history.json'))
    expect(r).toHaveLength(34)
    expect(r[0]).toEqual({ ts: 1683849600048, rate: -0.00061334 })
    expect(r[33]).toEqual({ ts: 1684800000022, rate: -0.00018991 })
  })
})

describe('dydx history pages', () => {
  const body = (path: string) => fixture<{ result: unknown }>(path).result

  it('candles.json (1MIN, newest first): baseTokenVolume in coins, usdVolume the quote, trades; oldest first', () => {
    expect(dydxKlines(body('dydx/candles.json'))).toEqual([
      { ts: Date.UTC(2025, 11, 8, 16, 9), open: 90002, high: 90035, low: 89922, close: 90035, volume: 1.2221, quoteVolume: 109940.752, trades: 41 },
      { ts: Date.UTC(2025, 11, 8, 16, 10), open: 90043, high: 90043, low: 89900, close: 89931, volume: 3.9023, quoteVolume: 351009.0795, trades: 72 },
      { ts: Date.UTC(2025, 11, 8, 16, 11), open: 89934, high: 89970, low: 89911, close: 89941, volume: 3.2767, quoteVolume: 294697.4391, trades: 49 },
    ])
  })

  it('candles.json: startingOpenInterest is the open interest (one side, coins) at each candle start', () => {
    expect(dydxOiEvents({ exchange: 'dydx', coin: 'BTC' }, body('dydx/candles.json')).map((e) => [e.ts, e.openInterest])).toEqual([
      [Date.UTC(2025, 11, 8, 16, 9), 381.8328],
      [Date.UTC(2025, 11, 8, 16, 10), 382.3498],
      [Date.UTC(2025, 11, 8, 16, 11), 381.7348],
    ])
  })

  it('historical_funding.json: the hourly rate at effectiveAt, oldest first', () => {
    expect(dydxFundingRows(body('dydx/historical_funding.json'))).toEqual([
      { ts: Date.parse('2025-12-08T14:00:00.112Z'), rate: 0.000000625 },
      { ts: Date.parse('2025-12-08T15:00:00.586Z'), rate: 0.000000375 },
      { ts: Date.parse('2025-12-08T16:00:00.219Z'), rate: 0.000002375 },
    ])
  })
})
