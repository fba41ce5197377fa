// Binance's history payloads -> bars and events. Klines are the recorded ones (binance/klines.json); Binance has no
// recording of openInterestHist, fundingRate or the ratio endpoints: those bodies are the examples of Binance's API
// docs (labelled below). Expected values are read from the raw rows by hand, not through the code under test.
import { describe, expect, it } from 'vitest'
import { binanceFundingEvents, binanceFundingInfo, binanceKlineBars, binanceOiEvents, binancePositioningEvents } from '../../../src/sources/history/binance-pages.js'
import { fixture } from '../connectors/offline.js'

const ref = { exchange: 'binance' as const, coin: 'BTC', marketType: 'perp' as const, symbol: 'BTC/USDT:USDT', id: 'BTCUSDT', contractSize: 1, inverse: false }

describe('binance history pages', () => {
  it('klines.json: every row is a minute bar; taker-buy base (col 9) is the buy volume, the rest the sell volume', () => {
    const rows = fixture<unknown[][]>('binance/klines.json')
    const bars = binanceKlineBars(ref, rows)
    expect(bars).toHaveLength(rows.length)
    rows.forEach((r, i) => {
      const b = bars[i]!
      expect(b).toMatchObject({ exchange: 'binance', coin: 'BTC', marketType: 'perp', ts: r[0], open: Number(r[1]), high: Number(r[2]), low: Number(r[3]), close: Number(r[4]), volume: Number(r[5]), quoteVolume: Number(r[7]), trades: r[8] })
      expect(b.buyVolume).toBe(Number(r[9]))
      expect(b.sellVolume).toBeCloseTo(Number(r[5]) - Number(r[9]), 12)
      expect(b.vap.size).toBe(0)
      expect(b.source).toBe('venue_kline')
    })
    // the second row: 0.120 traded, 0.061 bought by takers
    expect(bars[1]!.sellVolume).toBeCloseTo(0.059, 12)
  })

  it('openInterestHist (Binance API docs example): sumOpenInterest in coins at its 5-minute stamp', () => {
    const body = [
      { symbol: 'BTCUSDT', sumOpenInterest: '20403.63700000', sumOpenInterestValue: '150570784.07809979', timestamp: '1583127900000' },
      { symbol: 'BTCUSDT', sumOpenInterest: '20401.36700000', sumOpenInterestValue: '149940752.14464448', timestamp: '1583128200000' },
    ]
    expect(binanceOiEvents(ref, body)).toEqual([
      { type: 'open_interest', exchange: 'binance', coin: 'BTC', marketType: 'perp', ts: 1583127900000, openInterest: 20403.637, source: 'venue_history' },
      { type: 'open_interest', exchange: 'binance', coin: 'BTC', marketType: 'perp', ts: 1583128200000, openInterest: 20401.367, source: 'venue_history' },
    ])
  })

  it('fundingRate (Binance API docs example): each settlement with the interval fundingInfo states', () => {
    const body = [
      { symbol: 'BTCUSDT', fundingRate: '-0.03750000', fundingTime: 1570608000000, markPrice: '34287.54619963' },
      { symbol: 'BTCUSDT', fundingRate: '0.00010000', fundingTime: 1570636800000, markPrice: '34287.54619963' },
    ]
    expect(binanceFundingEvents(ref, body, 4)).toEqual([
      { type: 'funding', exchange: 'binance', coin: 'BTC', marketType: 'perp', ts: 1570608000000, rate: -0.0375, intervalHours: 4, source: 'venue_history' },
      { type: 'funding', exchange: 'binance', coin: 'BTC', marketType: 'perp', ts: 1570636800000, rate: 0.0001, intervalHours: 4, source: 'venue_history' },
    ])
    // fundingInfo lists only adjusted symbols (Binance API docs example row)
    expect(binanceFundingInfo([{ symbol: 'BLZUSDT', adjustedFundingRateCap: '0.02500000', adjustedFundingRateFloor: '-0.02500000', fundingIntervalHours: 8, disclaimer: false }])).toEqual(new Map([['BLZUSDT', 8]]))
  })

  it('globalLongShortAccountRatio (Binance API docs example): every row, oldest first, shares and ratio as sent', () => {
    const body = [
      { symbol: 'BTCUSDT', longShortRatio: '1.9559', longAccount: '0.6617', shortAccount: '0.3382', timestamp: '1583139900000' },
      { symbol: 'BTCUSDT', longShortRatio: '0.1960', longAccount: '0.6622', shortAccount: '0.3378', timestamp: '1583139600000' },
    ]
    const events = binancePositioningEvents(ref, 'account', body)
    expect(events.map((e) => [e.ts, e.longShare, e.shortShare, e.ratio, e.kind, e.periodMs])).toEqual([
      [1583139600000, 0.6622, 0.3378, 0.196, 'account', 300_000],
      [1583139900000, 0.6617, 0.3382, 1.9559, 'account', 300_000],
    ])
  })

  it('rows that are not numbers are skipped, never turned into zeros', () => {
    expect(binanceKlineBars(ref, [[1712738460000, 'x', '1', '1', '1', '1', 0, '1', 1, '1', '1', '0']])).toEqual([])
    expect(binanceOiEvents(ref, [{ timestamp: 1, sumOpenInterest: '' }, null])).toEqual([])
    expect(binanceFundingEvents(ref, { code: -1121 }, 8)).toEqual([])
  })
})
