// A store write as bus messages (src/market/bus/messages.ts): every message of a write says from which time on it
// wrote each kind, so an API node drops only the memoized reads a write reached into (src/market/reader.ts).
import { describe, expect, it } from 'vitest'
import { emptyMinuteBar } from '../../../src/market/bars.js'
import { dataMessages } from '../../../src/market/bus/messages.js'
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
