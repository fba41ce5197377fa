import { describe, expect, it } from 'vitest'
import { INTERVAL_MS, Interval, LOOKBACK_MS, Lookback, intervalFitsLookback } from '../../src/domain/windows.js'

describe('intervals and lookbacks', () => {
  it('maps every interval and lookback to ms', () => {
    expect(INTERVAL_MS).toEqual({ '1m': 60_000, '5m': 300_000, '15m': 900_000, '1h': 3_600_000, '4h': 14_400_000, '1d': 86_400_000 })
    expect(LOOKBACK_MS).toEqual({ '1h': 3_600_000, '4h': 14_400_000, '24h': 86_400_000, '7d': 604_800_000, '30d': 2_592_000_000 })
    expect(Interval.safeParse('15m').success).toBe(true)
    expect(Interval.safeParse('2h').success).toBe(false)
    expect(Lookback.safeParse('7d').success).toBe(true)
    expect(Lookback.safeParse('1d').success).toBe(false)
    expect(intervalFitsLookback('1d', '24h')).toBe(true)
    expect(intervalFitsLookback('1d', '4h')).toBe(false)
  })
})
