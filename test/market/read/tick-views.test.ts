import { describe, expect, it } from 'vitest'
import { LiveMarket } from '../../../src/market/live.js'
import { tickView } from '../../../src/market/read/tick-views.js'
import { CoinSeries } from '../../../src/market/series.js'
import type { MarketState } from '../../../src/market/state.js'

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
})
