import { describe, expect, it } from 'vitest'
import { emptyMinuteBar, flatMinuteBar } from '../../../src/domain/minute-bars.js'
import { addTrade, isWholeBar } from '../../../src/ingest/aggregate/fold.js'
import type { TradeEvent } from '../../../src/domain/events.js'

const key = { exchange: 'binance', coin: 'BTC', marketType: 'perp' } as const
const trade = (price: number, size: number, side: 'buy' | 'sell'): TradeEvent => ({ type: 'trade', ...key, ts: 60_000, id: `${price}`, price, size, side })

describe('addTrade', () => {
  it('adds extremes, volumes by taker side, quote volume, count and volume at price; leaves open and close alone', () => {
    const b = emptyMinuteBar(key, 60_000)
    b.open = b.close = 100
    b.high = b.low = 100
    addTrade(b, trade(100, 2, 'buy'))
    addTrade(b, trade(103, 1, 'sell'))
    addTrade(b, trade(99, 0.5, 'buy'))
    expect(b).toMatchObject({ open: 100, close: 100, high: 103, low: 99, volume: 3.5, buyVolume: 2.5, sellVolume: 1, quoteVolume: 200 + 103 + 49.5, trades: 3 })
    const perLevel = [...b.vap.values()].reduce((s, [buy, sell]) => s + buy + sell, 0)
    expect(perLevel).toBeCloseTo(3.5, 12)
  })
})

describe('isWholeBar', () => {
  it('takes a flat or traded bar and refuses bad prices, volumes and counts', () => {
    expect(isWholeBar(flatMinuteBar(key, 60_000, 100))).toBe(true)
    expect(isWholeBar(emptyMinuteBar(key, 60_000))).toBe(false)
    expect(isWholeBar({ ...flatMinuteBar(key, 60_000, 100), volume: -1 })).toBe(false)
    expect(isWholeBar({ ...flatMinuteBar(key, 60_000, 100), trades: 1.5 })).toBe(false)
    expect(isWholeBar({ ...flatMinuteBar(key, 60_000, 100), ts: NaN })).toBe(false)
  })
})
