import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  bookEvent,
  coinSize,
  fundingEvents,
  inferIntervalHours,
  mergeParts,
  nextFundingOnGrid,
  openInterestEvent,
  parseIntervalHours,
  tickerEvent,
  tradeEvent,
  type MarketRef,
} from '../../../src/sources/connectors/mapping.js'
import { FIXTURES_DIR } from './offline.js'

const H = 3_600_000
const linear: MarketRef = { exchange: 'okx', coin: 'BTC', marketType: 'perp', symbol: 'BTC/USDT:USDT', id: 'BTC-USDT-SWAP', contractSize: 0.01, inverse: false }
const inverse: MarketRef = { ...linear, coin: 'UNI', symbol: 'UNI/USD:UNI', id: 'UNI-USD-SWAP', contractSize: 10, inverse: true }
const spot: MarketRef = { ...linear, marketType: 'spot', symbol: 'BTC/USDT', id: 'BTC-USDT', contractSize: 1 }

describe('mapping helpers', () => {
  it('coinSize: spot as is, linear x contract size, inverse x size / price', () => {
    expect(coinSize(spot, 2, 50_000)).toBe(2)
    expect(coinSize(linear, 150, 50_000)).toBeCloseTo(1.5, 12)
    expect(coinSize(inverse, 100, 5)).toBe(200)
  })

  it('tradeEvent drops trades without price, size, time or taker side', () => {
    const ok = { id: '7', price: 10, amount: 1, timestamp: 1, side: 'sell' } as any
    expect(tradeEvent(spot, ok)).toMatchObject({ id: '7', side: 'sell', size: 1 })
    for (const bad of [{ price: 0 }, { amount: 0 }, { timestamp: undefined }, { side: 'A' }, { price: Number.NaN }]) {
      expect(tradeEvent(spot, { ...ok, ...bad })).toBeNull()
    }
    expect(tradeEvent(spot, { ...ok, id: undefined })!.id).toBe('1:10:1:sell')
  })

  it('bookEvent: sorts, drops empty levels, keeps the band plus one level beyond, uses `now` without a book time', () => {
    const ob = { bids: [[95, 1], [99, 2], [90, 5], [98, 0]], asks: [[101, 1], [200, 1], [104, 3], [106, 1]], timestamp: undefined } as any
    const e = bookEvent(spot, ob, { band: 0.05, now: 123 })!
    expect(e.ts).toBe(123)
    expect(e.bids).toEqual([{ price: 99, size: 2 }, { price: 95, size: 1 }, { price: 90, size: 5 }])
    expect(e.asks).toEqual([{ price: 101, size: 1 }, { price: 104, size: 3 }, { price: 106, size: 1 }])
    expect(bookEvent(spot, { bids: [], asks: [], timestamp: 1 } as any, { now: 0 })).toBeNull()
    expect(bookEvent(spot, { bids: [[10, 1]], asks: [], timestamp: 1 } as any, { now: 0 })!.bids).toHaveLength(1)
  })

  it('parseIntervalHours / inferIntervalHours / nextFundingOnGrid', () => {
    expect(parseIntervalHours('8h')).toBe(8)
    expect(parseIntervalHours('1h')).toBe(1)
    expect(parseIntervalHours('30m')).toBe(0.5)
    expect(parseIntervalHours(undefined)).toBeNull()
    expect(parseIntervalHours('soon')).toBeNull()
    expect(inferIntervalHours([0, 8 * H + 40, 16 * H + 3])).toBe(8)
    expect(inferIntervalHours([4 * H, 0, 8 * H, 12 * H])).toBe(4)
    expect(inferIntervalHours([0])).toBeNull()
    expect(inferIntervalHours([0, 90 * 60_000])).toBeNull() // 1.5 h is no schedule we know
    expect(nextFundingOnGrid(Date.UTC(2025, 0, 1, 10, 59, 59), 1)).toBe(Date.UTC(2025, 0, 1, 11))
    expect(nextFundingOnGrid(Date.UTC(2025, 0, 1, 11), 8)).toBe(Date.UTC(2025, 0, 1, 16))
  })

  it('fundingEvents: oldest first, interval from spacing, else from the previous settlement, else the fallback', () => {
    const rows = [
      { timestamp: 8 * H, fundingRate: 0.0002 },
      { timestamp: 0, fundingRate: 0.0001 },
      { timestamp: 16 * H, fundingRate: undefined },
    ] as any
    expect(fundingEvents(linear, rows, 1).map((e) => [e.ts, e.rate, e.intervalHours])).toEqual([
      [0, 0.0001, 8],
      [8 * H, 0.0002, 8],
    ])
    expect(fundingEvents(linear, [{ timestamp: 12 * H, fundingRate: 0.1 }] as any, 8, 8 * H)[0]!.intervalHours).toBe(4)
    expect(fundingEvents(linear, [{ timestamp: 12 * H, fundingRate: 0.1 }] as any, 8)[0]!.intervalHours).toBe(8)
  })

  it('openInterestEvent: contracts -> coins, receive time when the payload has none, inverse from baseVolume', () => {
    expect(openInterestEvent(linear, { openInterestAmount: 2_000, timestamp: 5 } as any, { now: 0 })).toMatchObject({ openInterest: 20, ts: 5 })
    expect(openInterestEvent({ ...linear, contractSize: 1 }, { openInterestAmount: 30 } as any, { now: 9 })).toMatchObject({ openInterest: 30, ts: 9 })
    expect(openInterestEvent(inverse, { openInterestAmount: 1_000, baseVolume: 2_000 } as any, { now: 0 })!.openInterest).toBe(2_000)
    expect(openInterestEvent(linear, {} as any, { now: 0 })).toBeNull()
  })

  it('tickerEvent: spot never carries funding fields; mergeParts keeps earlier values where later ones are empty', () => {
    const parts = mergeParts({ markPrice: 1, fundingRate: 0.01, fundingIntervalHours: 8 }, { markPrice: null, lastPrice: 2 })
    expect(parts).toEqual({ markPrice: 1, fundingRate: 0.01, fundingIntervalHours: 8, lastPrice: 2 })
    expect(tickerEvent(spot, parts, 7)).toMatchObject({ ts: 7, markPrice: 1, lastPrice: 2, fundingRate: null, fundingIntervalHours: null, nextFundingTime: null })
    expect(tickerEvent(linear, parts, 7)).toMatchObject({ fundingRate: 0.01, fundingIntervalHours: 8 })
  })
})

describe('fixture coverage', () => {
  it('every recorded fixture file is read by at least one connector test', () => {
    const dir = new URL('./', import.meta.url)
    const sources = readdirSync(dir)
      .filter((f) => f.endsWith('.test.ts'))
      .map((f) => readFileSync(new URL(f, dir), 'utf8'))
      .join('\n')
    const missing: string[] = []
    for (const venue of ['binance', 'bybit', 'okx', 'hyperliquid', 'dydx']) {
      for (const file of readdirSync(FIXTURES_DIR + venue)) {
        if (!sources.includes(`'${venue}/${file}'`)) missing.push(`${venue}/${file}`)
      }
    }
    expect(missing).toEqual([])
  })
})
