// History as minute aggregates: the 1-minute bar of a market-minute plan, without emitting its trades.
// - A thin minute (at most EXPLICIT_TRADES trades) is its very trades folded: exactly the bar live would build.
// - A busy minute is drawn with the same statistics: taker sides ~ Binomial(n, pb) (first and last trade drawn
//   apart, for open and close), sizes summed with trade-size.ts, the price path sampled at PATH_POINTS times, each
//   point carrying an equal share of the buy and sell volume at its buy and sell price (the volume at price), and
//   high/low the extremes of the sampled path widened by the discrete-monitoring correction 0.5826·σ·(1/√K − 1/√n)
//   (Broadie, Glasserman and Kou 1997), since n trades see more of the path than K points do. One typical trade
//   each sits at the open, close, high and low, so the volume at price spans the bar's range.
// - A minute without trades is flat at the previous close with zero volume, as the venues' own klines show it.
import { emptyMinuteBar, type TradeMinuteBar } from '../../domain/minute-bars.js'
import { MINUTE_MS } from '../../domain/time.js'
import { addTrade } from '../../ingest/aggregate/fold.js'
import type { TradeEvent } from '../../domain/events.js'
import { VAP_STEP, vapLevel } from '../../domain/volume-at-price.js'
import { Rng, hash2 } from './rng.js'
import { binomial, sumSizes } from './trade-size.js'
import type { MinutePlan } from './minute-plan.js'
import type { SimMarket } from './markets.js'

/** minutes with at most this many trades are simulated trade by trade */
export const EXPLICIT_TRADES = 16
const PATH_POINTS = 16
const BGK = 0.5826

/** the bar of a minute's trades (in time order), as the aggregator folds them */
export function tradesBar(mk: SimMarket, m: number, trades: readonly TradeEvent[]): TradeMinuteBar {
  const b = emptyMinuteBar(mk, m, 'simulated')
  b.open = trades[0]!.price
  b.close = trades[trades.length - 1]!.price
  b.high = -Infinity
  b.low = Infinity
  for (const t of trades) addTrade(b, t)
  return b
}

const barRngSeed = (mk: SimMarket, m: number) => hash2(mk.barKey, m / MINUTE_MS)

/** the close of a busy minute: only the first two draws of its bar, so a previous close is cheap to find */
export function aggregateClose(mk: SimMarket, plan: MinutePlan, rng: Rng): number {
  rng.reseed(barRngSeed(mk, plan.m))
  rng.next()
  const lastBuy = rng.next() < plan.pb
  return Math.round(plan.m1 * (lastBuy ? 1 + plan.hs : 1 - plan.hs) * mk.tickInv) / mk.tickInv
}

const LN_G = Math.log1p(VAP_STEP)
const WINDOW = 64
const levelBuy = new Float64Array(WINDOW)
const levelSell = new Float64Array(WINDOW)

/** the bar of a busy minute (plan.n > EXPLICIT_TRADES), drawn from hash(market, minute) */
export function aggregateBar(mk: SimMarket, plan: MinutePlan, rng: Rng): TradeMinuteBar {
  const { m, n, pb, m0, lr, sig, hs, unit } = plan
  const tickInv = mk.tickInv
  rng.reseed(barRngSeed(mk, m))
  const firstBuy = rng.next() < pb
  const lastBuy = rng.next() < pb
  const nb = binomial(rng, n - 2, pb) + (firstBuy ? 1 : 0) + (lastBuy ? 1 : 0)
  const buyVol = unit * sumSizes(rng, nb)
  const sellVol = unit * sumSizes(rng, n - nb)
  const b = emptyMinuteBar(mk, m, 'simulated')
  b.open = Math.round(m0 * (firstBuy ? 1 + hs : 1 - hs) * tickInv) / tickInv
  b.close = Math.round(plan.m1 * (lastBuy ? 1 + hs : 1 - hs) * tickInv) / tickInv
  b.trades = n
  b.buyVolume = buyVol
  b.sellVolume = sellVol
  b.volume = buyVol + sellVol

  // four trades of typical size sit at the open, the close, the high and the low (so the volume at price spans the
  // bar's range, as real trades do); the rest is spread over the path at K stratified times on the bridge from 0 to
  // lr, each point taking 1/K of it at mid × (1 + hs) (buys) and mid × (1 − hs) (sells), on the 1-bp levels
  const highBuy = nb > 0
  const lowBuy = nb === n
  const extremeBuys = +firstBuy + +lastBuy + +highBuy + +lowBuy
  const tradeB = extremeBuys ? Math.min(unit, buyVol / (extremeBuys + 1)) : 0
  const tradeS = extremeBuys < 4 ? Math.min(unit, sellVol / (4 - extremeBuys + 1)) : 0
  const K = PATH_POINTS
  const bPer = (buyVol - extremeBuys * tradeB) / K
  const sPer = (sellVol - (4 - extremeBuys) * tradeS) / K
  const lnM0 = Math.log(m0)
  const lnBuy = Math.log1p(hs)
  const lnSell = Math.log1p(-hs)
  const base = Math.floor(lnM0 / LN_G) - WINDOW / 2
  // only the window's touched slots [kMin, kMax] are used (and cleared again below)
  let kMin = WINDOW
  let kMax = -1
  let y = 0
  let uPrev = 0
  let hi = -Infinity
  let lo = Infinity
  let midSum = 0
  for (let j = 0; j < K; j++) {
    const u = (j + 0.5) / K
    const rem = 1 - uPrev
    const dt = u - uPrev
    y += ((lr - y) * dt) / rem + sig * Math.sqrt((dt * (1 - u)) / rem) * rng.normal()
    uPrev = u
    if (y > hi) hi = y
    if (y < lo) lo = y
    midSum += Math.exp(y)
    const kb = Math.floor((lnM0 + y + lnBuy) / LN_G) - base
    const ks = Math.floor((lnM0 + y + lnSell) / LN_G) - base
    if (kb >= 0 && kb < WINDOW) {
      levelBuy[kb] = levelBuy[kb]! + bPer
      if (kb < kMin) kMin = kb
      if (kb > kMax) kMax = kb
    } else vapAddLevel(b, base + kb, bPer, 0)
    if (ks >= 0 && ks < WINDOW) {
      levelSell[ks] = levelSell[ks]! + sPer
      if (ks < kMin) kMin = ks
      if (ks > kMax) kMax = ks
    } else vapAddLevel(b, base + ks, sPer, 1)
  }
  for (let k = kMin; k <= kMax; k++) {
    const buy = levelBuy[k]!
    const sell = levelSell[k]!
    if (buy !== 0 || sell !== 0) vapAddLevel(b, base + k, buy, 0, sell)
    levelBuy[k] = 0
    levelSell[k] = 0
  }
  let quote = m0 * midSum * (bPer * (1 + hs) + sPer * (1 - hs))
  // n trades see more of the path's extremes than K points: widen by the discrete-monitoring correction
  const widen = Math.max(0, BGK * sig * (1 / Math.sqrt(K) - 1 / Math.sqrt(n)))
  const hiPx = m0 * Math.exp(hi + widen) * (highBuy ? 1 + hs : 1 - hs)
  const loPx = m0 * Math.exp(lo - widen) * (lowBuy ? 1 + hs : 1 - hs)
  // outward to the tick, so the range holds every level of the volume at price
  b.high = Math.max(b.open, b.close, Math.ceil(hiPx * tickInv) / tickInv)
  b.low = Math.min(b.open, b.close, Math.floor(loPx * tickInv) / tickInv)
  quote += extremeTrade(b, b.open, firstBuy ? tradeB : tradeS, firstBuy)
  quote += extremeTrade(b, b.close, lastBuy ? tradeB : tradeS, lastBuy)
  quote += extremeTrade(b, b.high, highBuy ? tradeB : tradeS, highBuy)
  quote += extremeTrade(b, b.low, lowBuy ? tradeB : tradeS, lowBuy)
  b.quoteVolume = quote
  return b
}

/** one trade at price into the bar's volume at price; returns its notional */
function extremeTrade(b: TradeMinuteBar, price: number, size: number, buy: boolean): number {
  vapAddLevel(b, vapLevel(price), size, buy ? 0 : 1)
  return price * size
}

/** add buy (and sell) volume to one level of the bar's volume at price */
function vapAddLevel(b: TradeMinuteBar, level: number, first: number, side: 0 | 1, sell = 0): void {
  const buy = side === 0 ? first : 0
  const s = side === 0 ? sell : first
  const cell = b.vap.get(level)
  if (cell) {
    cell[0] += buy
    cell[1] += s
  } else b.vap.set(level, [buy, s])
}
