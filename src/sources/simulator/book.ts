// Order-book snapshots of a simulated market: levels dense near the touch and sparser away out to ±5 %, total depth
// per side a fixed number of minutes of the market's average volume, a slowly varying bid/ask asymmetry.
import { MINUTE_MS } from '../../domain/time.js'
import type { BookSnapshotEvent } from '../../domain/events.js'
import type { BookLevel } from '../../domain/books.js'
import { Rng, hash2, vnoise } from './rng.js'
import { MODEL } from './params.js'
import type { SimMarket } from './markets.js'

const BOOK_DEPTH_RANGE = 0.05

/** a book snapshot around mid, drawn from hash(market, second): the same second always gives the same book */
export function bookSnapshot(mk: SimMarket, ts: number, mid: number, levels: number, rng: Rng): BookSnapshotEvent {
  rng.reseed(hash2(mk.bookKey, Math.floor(ts / 1000)))
  const N = levels
  const hs = mk.halfSpread
  const tickInv = mk.tickInv
  const tick = 1 / tickInv
  const lotInv = mk.lotInv
  const minLot = 1 / lotInv
  const asym = 0.12 * vnoise(mk.asymKey, ts, 10 * MINUTE_MS)
  // total size per side within ±5 % = bookDepthMinutes of average volume; E[level factor] = 1.5, E[lognormal] = 1
  const unit = (mk.notionalPerMin * MODEL.bookDepthMinutes) / mid / (N * 1.5)
  const bidMult = unit * Math.exp(asym)
  const askMult = unit * Math.exp(-asym)
  const bids: BookLevel[] = new Array(N)
  const asks: BookLevel[] = new Array(N)
  let prevBid = Infinity
  let prevAsk = -Infinity
  for (let k = 0; k < N; k++) {
    const q = k / (N - 1)
    const d = hs + (BOOK_DEPTH_RANGE - hs) * q * q
    let bp = Math.floor(mid * (1 - d) * tickInv) / tickInv
    if (bp >= prevBid) bp = Math.round((prevBid - tick) * tickInv) / tickInv
    let ap = Math.ceil(mid * (1 + d) * tickInv) / tickInv
    if (ap <= prevAsk) ap = Math.round((prevAsk + tick) * tickInv) / tickInv
    prevBid = bp
    prevAsk = ap
    const shape = 0.5 + 2 * q
    let bs = Math.round(bidMult * shape * Math.exp(0.35 * rng.normal() - 0.06125) * lotInv) / lotInv
    let as = Math.round(askMult * shape * Math.exp(0.35 * rng.normal() - 0.06125) * lotInv) / lotInv
    if (bs < minLot) bs = minLot
    if (as < minLot) as = minLot
    bids[k] = { price: bp, size: bs }
    asks[k] = { price: ap, size: as }
  }
  // the simulated book is the whole book: nothing rests beyond its last level
  return { type: 'book', exchange: mk.exchange, coin: mk.coin, marketType: mk.marketType, ts, bids, asks, bidEnd: null, askEnd: null }
}
