// A venue's kline as a stored minute (src/domain/minute-bars.ts klineMinuteBar): source 'venue_kline', no volume at price,
// and null for every field the venue does not give. Expected values are read off the recorded venue payloads.
import { describe, expect, it } from 'vitest'
import type { OHLCV } from 'ccxt'
import { klineMinuteBar, type MarketKey } from '../../src/domain/minute-bars.js'
import { binanceKline, klineFromOhlcv } from '../../src/sources/connectors/klines.js'
import { fixture } from '../sources/connectors/offline.js'

describe('klineMinuteBar', () => {
  it('a Binance kline keeps its taker split (sell = volume − taker buy), quote volume and trade count', () => {
    const raw = fixture<unknown[][]>('binance/klines.json')
    const key: MarketKey = { exchange: 'binance', coin: 'BTC', marketType: 'perp' }
    for (const r of raw) {
      const b = klineMinuteBar(key, binanceKline(r)!)
      expect(b).toEqual({
        ...key, ts: r[0], open: Number(r[1]), high: Number(r[2]), low: Number(r[3]), close: Number(r[4]), volume: Number(r[5]),
        buyVolume: Number(r[9]), sellVolume: Number(r[5]) - Number(r[9]), quoteVolume: Number(r[7]), trades: r[8],
        source: 'venue_kline', noSplitMinutes: 0, klineMinutes: 1, vap: new Map(),
      })
    }
  })

  it('a kline without a taker split (Bybit) has null buy and sell volume, counted as a minute without split; nothing is guessed', () => {
    const list = fixture<{ result: { list: string[][] } }>('bybit/klines.json').result.list
    const key: MarketKey = { exchange: 'bybit', coin: 'BTC', marketType: 'perp' }
    for (const r of list) {
      const b = klineMinuteBar(key, klineFromOhlcv(r.slice(0, 6).map(Number) as unknown as OHLCV)!)
      expect(b).toMatchObject({ ts: Number(r[0]), close: Number(r[4]), volume: Number(r[5]), source: 'venue_kline', noSplitMinutes: 1, klineMinutes: 1 })
      expect([b.buyVolume, b.sellVolume, b.quoteVolume, b.trades]).toEqual([null, null, null, null])
      expect(b.vap.size).toBe(0)
    }
  })

  it('a taker buy above the volume (a venue rounding) leaves a sell side of 0, never below', () => {
    const b = klineMinuteBar({ exchange: 'binance', coin: 'BTC', marketType: 'perp' }, { ts: 0, open: 1, high: 1, low: 1, close: 1, volume: 2, buyVolume: 2.0000001 })
    expect(b.sellVolume).toBe(0)
  })
})
