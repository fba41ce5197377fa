// A store write as bus messages (src/ingest/bus/messages.ts): every message of a write says from which time on it
// wrote each kind, so an API node drops only the memoized reads a write reached into (src/read/reader.ts).
import { describe, expect, it } from 'vitest'
import { emptyMinuteBar, klineMinuteBar } from '../../../src/domain/minute-bars.js'
import { dataMessages, toMinuteBar } from '../../../src/ingest/bus/messages.js'
import { HOUR_MS, MINUTE_MS } from '../../../src/domain/time.js'

const T0 = Date.UTC(2026, 10, 20, 12, 0)

describe('dataMessages', () => {
  it('carries the write\'s earliest time per kind in each of its messages', () => {
    const bars = Array.from({ length: 4500 }, (_, i) => ({ ...emptyMinuteBar({ exchange: 'binance', coin: `C${i % 90}`, marketType: 'perp' }, T0 + Math.floor(i / 90) * MINUTE_MS), close: 1 }))
    const from = { candles: T0 - HOUR_MS, samples: T0 + 5 * MINUTE_MS }
    const messages = dataMessages('node-a', ['candles', 'samples'], { minuteBars: bars, hourBars: [], samples: [], from }, T0 - 24 * HOUR_MS)
    expect(messages.length).toBeGreaterThan(1)
    for (const m of messages) expect(m.from).toEqual(from)
    expect(messages.flatMap((m) => m.minuteBars)).toHaveLength(bars.length)
  })

  it('says nothing of the extent when the write did not (an older node): the follower then drops all of the kind', () => {
    const [m] = dataMessages('node-a', ['books'], { minuteBars: [], hourBars: [], samples: [] }, T0)
    expect(m!.kinds).toEqual(['books'])
    expect(m!.from).toBeUndefined()
  })
})

describe('toMinuteBar', () => {
  it('keeps a bar\'s provenance across the bus, and reads a bar from a node older than provenance as folded from trades', () => {
    const k = { exchange: 'bybit', coin: 'BTC', marketType: 'perp' } as const
    const kline = klineMinuteBar(k, { ts: 0, open: 1, high: 1, low: 1, close: 1, volume: 2 })
    const [msg] = dataMessages('node-a', ['candles'], { minuteBars: [kline], hourBars: [], samples: [] }, 0)
    const { vap: _v, ...sent } = kline
    expect(msg!.minuteBars.map(toMinuteBar)).toEqual([{ ...sent, vap: new Map() }])
    // an older node's bar: no source or counts
    const { source: _s, noSplitMinutes: _n, klineMinutes: _k, vap: _w, ...old } = emptyMinuteBar(k, 0)
    expect(toMinuteBar(old as never)).toMatchObject({ source: 'trades', noSplitMinutes: 0, klineMinutes: 0, buyVolume: 0 })
  })
})
