import { describe, expect, it } from 'vitest'
import { LiveMarket } from '../../src/read/live.js'
import { tickView, tickViewLatest } from '../../src/read/tick-views.js'
import { CoinSeries } from '../../src/read/series.js'
import type { MarketState } from '../../src/read/state.js'

// a market with just what the views read: the series (its version and changes), the live tick, the clock
const marketAt = (now: () => number) => ({ series: new CoinSeries(), live: new LiveMarket(), clock: now }) as unknown as MarketState

describe('tickView', () => {
  it('computes once per data version; after the series moves the new view is precomputed before anyone asks', async () => {
    const market = marketAt(() => 1_000)
    let calls = 0
    const compute = (now: number) => ({ n: ++calls, now })
    expect(tickView(market, 'v', 1_000, compute)).toEqual({ n: 1, now: 1_000 })
    expect(tickView(market, 'v', 1_000, compute).n).toBe(1)
    market.series.prune(0) // no change: nothing recomputed
    market.series.apply({ samples: [{ exchange: 'binance', coin: 'BTC', marketType: 'perp', ts: 900, markPrice: 1, indexPrice: null, lastPrice: null, fundingRate: null, fundingIntervalHours: null, nextFundingTime: null, openInterest: 5 }] }, 1_000)
    await new Promise((r) => setImmediate(r))
    expect(calls).toBe(2) // precomputed on the change
    expect(tickView(market, 'v', 1_000, compute).n).toBe(2)
    expect(calls).toBe(2)
  })

  it('live values count as of the tick: a change made directly is a new version at once', () => {
    const market = marketAt(() => 1_000)
    let calls = 0
    const compute = () => ++calls
    tickView(market, 'w', 1_000, compute)
    market.live.changedDirectly()
    expect(tickView(market, 'w', 1_000, compute)).toBe(2)
  })

  it('tickViewLatest: after a data tick the precomputation starts before anyone asks; a caller meanwhile gets the latest computed one at once, nothing computed for it; never one older than a refresh period plus one tick', async () => {
    let now = 10_000
    const market = marketAt(() => now)
    const starts: number[] = []
    const pending: (() => void)[] = []
    // each computation resolves when the test says: { n, at } (at: the clock it was started at)
    const compute = (at: number) => {
      starts.push(at)
      const n = starts.length
      return new Promise<{ n: number; at: number }>((resolve) => pending.push(() => resolve({ n, at })))
    }
    const first = tickViewLatest(market, 's', now, compute)
    pending.shift()!()
    expect(await first).toEqual({ n: 1, at: 10_000 })

    // the data moves: precomputed on the next turn of the loop, before any call
    now = 11_000
    market.series.apply({ samples: [{ exchange: 'binance', coin: 'BTC', marketType: 'perp', ts: 10_500, markPrice: 1, indexPrice: null, lastPrice: null, fundingRate: null, fundingIntervalHours: null, nextFundingTime: null, openInterest: 5 }] }, now)
    await new Promise((r) => setImmediate(r))
    expect(starts).toEqual([10_000, 11_000])
    // a caller while it runs: the latest computed one, at once, and no computation of its own
    expect(await tickViewLatest(market, 's', now, compute)).toEqual({ n: 1, at: 10_000 })
    await new Promise((r) => setImmediate(r))
    expect(starts).toHaveLength(2)
    // done: the new one is served, still without another computation
    pending.shift()!()
    await new Promise((r) => setImmediate(r))
    expect(await tickViewLatest(market, 's', now, compute)).toEqual({ n: 2, at: 11_000 })
    expect(starts).toHaveLength(2)

    // older than 2 s + 2 s by the clock with the data moved again: not served; the caller waits for a new one
    now = 15_500
    market.live.changedDirectly()
    const waited = tickViewLatest(market, 's', now, compute)
    expect(starts.at(-1)).toBe(15_500)
    pending.shift()!()
    expect(await waited).toEqual({ n: starts.length, at: 15_500 })
  })
})

