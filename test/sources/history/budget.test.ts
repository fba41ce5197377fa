// The venue budget: weights in sliding windows, live before repair before backfill, a venue-wide pause on 429/418.
import { describe, expect, it, vi } from 'vitest'
import { PRIORITY_CEILING, VenueBudget, type BudgetPriority } from '../../../src/sources/history/budget.js'
import { httpStopRule, retryAfterMs } from '../../../src/sources/history/ccxt-budget.js'

const limits = (limit: number, windowMs: number) => ({ venue: 'binance' as const, safety: 1, pools: [{ name: 'w', limit, windowMs, source: 'test' }] })

describe('venue budget', () => {
  it('never grants more than the limit in any window of its length', async () => {
    // on a fake clock: the time a grant is seen is the time it was made (on a loaded machine, a real clock read in
    // the grant's callback can be late by more than the window and pack two windows' grants into one)
    vi.useFakeTimers()
    try {
      const windowMs = 200
      const b = new VenueBudget(limits(10, windowMs))
      const grants: { t: number; w: number }[] = []
      const all = Promise.all(
        Array.from({ length: 30 }, (_, i) => {
          const w = 1 + (i % 3)
          return b.acquire({ weight: w }, 'live').then(() => grants.push({ t: Date.now(), w }))
        }),
      )
      await vi.runAllTimersAsync()
      await all
      expect(grants).toHaveLength(30)
      // it took the windows it needed: 60 weight at 10 a window, about 6 windows, not one
      expect(grants.at(-1)!.t - grants[0]!.t).toBeGreaterThanOrEqual(5 * windowMs)
    // every window that starts at a grant holds at most the limit (the budget reads the same clock)
      for (const g of grants) expect(grants.filter((x) => x.t >= g.t && x.t < g.t + windowMs).reduce((n, x) => n + x.w, 0)).toBeLessThanOrEqual(10)
    } finally {
      vi.useRealTimers()
    }
  })

  it('backfill fills only its share of a window; once the window is full, live goes first, then repair, then backfill', async () => {
    const b = new VenueBudget(limits(100, 150))
    // backfill may fill 70 of 100: its eighth draw of 10 would wait, while live and repair still have room
    for (let i = 0; i < 7; i++) await b.acquire({ weight: 10 }, 'backfill')
    expect(b.stats().pools[0]!.used).toBe(100 * PRIORITY_CEILING.backfill)
    await b.acquire({ weight: 10 }, 'repair')
    await b.acquire({ weight: 20 }, 'live')
    expect(b.stats().pools[0]!.used).toBe(100)
    const order: BudgetPriority[] = []
    const waiting = (['backfill', 'repair', 'live'] as const).map((p) => b.acquire({ weight: 10 }, p).then(() => order.push(p)))
    expect(b.stats().queued).toBe(3)
    await Promise.all(waiting)
    expect(order).toEqual(['live', 'repair', 'backfill'])
    expect(b.stats().waits).toMatchObject({ live: { count: 1 }, repair: { count: 1 }, backfill: { count: 1 } })
  })

  it('a 429 or a 418 ban pauses every pool until the stated time', async () => {
    const b = new VenueBudget(limits(1000, 60_000))
    const t0 = Date.now()
    b.pause(t0 + 120, 'banned')
    expect(b.stats().paused_until).toBe(t0 + 120)
    await b.acquire({ weight: 1 }, 'live')
    expect(Date.now() - t0).toBeGreaterThanOrEqual(115)
    expect(b.stats()).toMatchObject({ bans: 1, rate_limited: 0, paused_until: null })
  })

  it('a pause ends when its clock says, not when a timer set at its start fires: looked at again every second', async () => {
    vi.useFakeTimers()
    try {
      let t = 1_000_000
      const b = new VenueBudget(limits(100, 1000), () => t)
      b.pause(t + 60_000, 'rate_limited')
      let granted = false
      const waiting = b.acquire({ weight: 1 }, 'live').then(() => (granted = true))
      // the timers run, its clock does not: still paused
      await vi.advanceTimersByTimeAsync(5_000)
      expect(granted).toBe(false)
      // its clock steps past the pause's end (a stepped system clock): granted at the next look, not a minute later
      t += 60_000
      await vi.advanceTimersByTimeAsync(1_000)
      expect(granted).toBe(true)
      await waiting
    } finally {
      vi.useRealTimers()
    }
  })

  it('an aborted wait leaves the queue', async () => {
    const b = new VenueBudget(limits(1, 60_000))
    await b.acquire({ weight: 1 }, 'live')
    const c = new AbortController()
    const p = b.acquire({ weight: 1 }, 'backfill', c.signal)
    c.abort()
    await expect(p).rejects.toThrow('aborted')
    expect(b.stats().queued).toBe(0)
  })

  it('least time of a backfill: the weight beyond one window, at the backfill ceiling', () => {
    const b = new VenueBudget({ venue: 'binance', safety: 0.9, pools: [{ name: 'fapi', limit: 2400, windowMs: 60_000, source: 'test' }] })
    const perWindow = 2400 * 0.9 * PRIORITY_CEILING.backfill
    expect(b.leastTimeMs('fapi', perWindow * 3, 'backfill')).toBeCloseTo(2 * 60_000, 6)
  })

  it('reads stop signals: Retry-After, and the end of a 418 ban from the body', () => {
    const now = 1_700_000_000_000
    expect(retryAfterMs({ 'Retry-After': '3' }, now)).toBe(3000)
    expect(retryAfterMs({}, now)).toBeNull()
    expect(httpStopRule(429, { 'retry-after': '2' }, '{"code":-1003}', now)).toEqual({ until: now + 2000, kind: 'rate_limited' })
    expect(httpStopRule(418, {}, '{"code":-1003,"msg":"Way too many requests; IP banned until 1700000600000."}', now)).toEqual({ until: 1700000600000, kind: 'banned' })
    expect(httpStopRule(200, {}, '[]', now)).toBeNull()
  })
})
