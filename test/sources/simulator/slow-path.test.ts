// The slow layer's walks are shared by the simulators of one seed in a process (the live feed and the backfill's
// history): the second simulator reads the first one's walk, and what it reads is what a walk of its own would give.
import { describe, expect, it } from 'vitest'
import { HOUR_MS } from '../../../src/domain/time.js'
import { coinParams } from '../../../src/sources/simulator/params.js'
import { CoinPath, MarketPath, ORIGIN_TS, coinPath, marketPath } from '../../../src/sources/simulator/slow-path.js'

describe('shared slow-path walks', () => {
  it('gives simulators of one seed the same walk, of another seed their own', () => {
    expect(marketPath(7)).toBe(marketPath(7))
    expect(coinPath(7, coinParams('BTC'))).toBe(coinPath(7, coinParams('BTC')))
    expect(coinPath(7, coinParams('BTC'))).not.toBe(coinPath(8, coinParams('BTC')))
    expect(coinPath(7, coinParams('BTC'))).not.toBe(coinPath(7, coinParams('ETH')))
  })

  it('reads, wherever one user left the walk, what a walk of its own gives', () => {
    const hours = Math.floor((Date.UTC(2026, 0, 1) - ORIGIN_TS) / HOUR_MS)
    const market = marketPath(11)
    const btc = coinPath(11, coinParams('BTC'))
    // one user walks part of the way, another all of it
    market.ensure(hours / 2)
    btc.ensure(hours / 2, market)
    market.ensure(hours)
    btc.ensure(hours, market)
    const ownMarket = new MarketPath(11)
    const own = new CoinPath(11, coinParams('BTC'))
    ownMarket.ensure(hours)
    own.ensure(hours, ownMarket)
    expect(btc.x.subarray(0, hours + 1)).toEqual(own.x.subarray(0, hours + 1))
    expect(btc.oi.subarray(0, hours + 1)).toEqual(own.oi.subarray(0, hours + 1))
    expect(btc.cascadeMinute.subarray(0, hours)).toEqual(own.cascadeMinute.subarray(0, hours))
    expect(market.regime.subarray(0, hours)).toEqual(ownMarket.regime.subarray(0, hours))
  })
})
