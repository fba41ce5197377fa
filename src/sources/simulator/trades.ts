// The individual trades of one market-minute (live, and history's thin minutes): times uniform in the minute, mids
// on a Brownian bridge between the minute's boundary mids, taker side from the plan's buy probability, buys at
// mid × (1 + half spread) and sells at mid × (1 − half spread), sizes from trade-size.ts on the market's lot grid.
import { MINUTE_MS } from '../../domain/time.js'
import type { TradeEvent } from '../../domain/events.js'
import { Rng, hash2 } from './rng.js'
import { drawSize } from './trade-size.js'
import type { MinutePlan } from './minute-plan.js'
import type { SimMarket } from './markets.js'

let times = new Float64Array(64)

/**
 * Append the plan's trades to `out` (and their mids to `mids`) with ids `${prefix}${j}`, drawn from
 * hash(market, minute): the same minute always gives the same trades. Returns the last trade's price (0 if none).
 */
export function generateTrades(mk: SimMarket, plan: MinutePlan, rng: Rng, prefix: string, out: TradeEvent[], mids: number[] | null): number {
  const n = plan.n
  if (n === 0) return 0
  const m = plan.m
  rng.reseed(hash2(mk.tradeKey, m / MINUTE_MS))
  if (times.length < n + 1) times = new Float64Array(2 * (n + 1))
  const T = times
  // uniform order statistics: normalized partial sums of n + 1 exponentials
  let s = 0
  for (let j = 0; j <= n; j++) T[j] = s += rng.exp()
  const total = T[n]!
  const { m0, lr, sig, pb, hs, unit } = plan
  const tickInv = mk.tickInv
  const lotInv = mk.lotInv
  const minLot = 1 / lotInv
  let y = 0
  let uPrev = 0
  let price = 0
  for (let j = 0; j < n; j++) {
    const u = T[j]! / total
    const rem = 1 - uPrev
    const dt = u - uPrev
    y += ((lr - y) * dt) / rem + sig * Math.sqrt((dt * (1 - u)) / rem) * rng.normal()
    uPrev = u
    const mid = m0 * Math.exp(y)
    const buy = rng.next() < pb
    price = Math.round(mid * (buy ? 1 + hs : 1 - hs) * tickInv) / tickInv
    let size = Math.round(unit * drawSize(rng) * lotInv) / lotInv
    if (size < minLot) size = minLot
    out.push({
      type: 'trade',
      exchange: mk.exchange,
      coin: mk.coin,
      marketType: mk.marketType,
      ts: m + Math.floor(u * MINUTE_MS),
      id: prefix + j,
      price,
      size,
      side: buy ? 'buy' : 'sell',
    })
    mids?.push(mid)
  }
  return price
}
