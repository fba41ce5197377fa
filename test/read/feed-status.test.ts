import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { FEED_STATUS_DEFAULTS, feedStatus, type FeedStatus } from '../../src/read/feed-status.js'

const now = 1_800_000_000_000

describe('feedStatus', () => {
  it('defaults: operational below 30 s, degraded from 30 s, down from 120 s', () => {
    expect(FEED_STATUS_DEFAULTS).toEqual({ degradedAfterMs: 30_000, downAfterMs: 120_000 })
    expect(feedStatus(now, now)).toBe('operational')
    expect(feedStatus(now - 29_999, now)).toBe('operational')
    expect(feedStatus(now - 30_000, now)).toBe('degraded')
    expect(feedStatus(now - 119_999, now)).toBe('degraded')
    expect(feedStatus(now - 120_000, now)).toBe('down')
    expect(feedStatus(now - 86_400_000, now)).toBe('down')
  })

  it('never seen -> down', () => {
    expect(feedStatus(null, now)).toBe('down')
    expect(feedStatus(Number.NaN, now)).toBe('down')
  })

  it('an event stamped in the future (clock skew) counts as fresh', () => {
    expect(feedStatus(now + 5_000, now)).toBe('operational')
  })

  it('thresholds are parameters', () => {
    expect(feedStatus(now - 5_000, now, { degradedAfterMs: 5_000, downAfterMs: 10_000 })).toBe('degraded')
    expect(feedStatus(now - 10_000, now, { degradedAfterMs: 5_000, downAfterMs: 10_000 })).toBe('down')
    expect(feedStatus(now - 60_000, now, { downAfterMs: 300_000 })).toBe('degraded')
    // equal thresholds: no degraded phase
    expect(feedStatus(now - 1_000, now, { degradedAfterMs: 1_000, downAfterMs: 1_000 })).toBe('down')
    expect(() => feedStatus(now, now, { degradedAfterMs: 10, downAfterMs: 5 })).toThrow(RangeError)
  })

  it('property: status only gets worse as silence grows', () => {
    const rank: Record<FeedStatus, number> = { operational: 0, degraded: 1, down: 2 }
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 0, max: 10_000_000 }), fc.integer({ min: 0, max: 200_000 }), fc.integer({ min: 0, max: 200_000 }), (a, b, t1, t2) => {
        const degradedAfterMs = Math.min(t1, t2)
        const downAfterMs = Math.max(t1, t2)
        const [young, old] = a <= b ? [a, b] : [b, a]
        const s1 = feedStatus(now - young, now, { degradedAfterMs, downAfterMs })
        const s2 = feedStatus(now - old, now, { degradedAfterMs, downAfterMs })
        return rank[s1] <= rank[s2]
      }),
    )
  })
})
