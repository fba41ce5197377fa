// Synthetic order books around a double's price path: levels on a fixed grid (so consecutive books differ only where
// the mid moved or a size changed), sizes redrawn every 10 s. Venue files turn them into snapshots and deltas.
import { decimalsOf, hashString, noise, roundTo, type HistoryData } from './history.js'
import type { MarketType } from '../../../src/domain/exchanges.js'

export type Level = [price: number, size: number]
export interface Book {
  bids: Level[]
  asks: Level[]
}

/** the book of one market at t, `depth` levels a side, about 0.05 % of price apart */
export function bookAt(h: HistoryData, coin: string, marketType: MarketType, t: number, depth: number): Book {
  const spec = h.spec(coin, marketType)
  if (!spec) return { bids: [], asks: [] }
  const mid = h.price(coin, marketType, t)
  const spacing = Math.max(spec.tick, roundTo(mid * 0.0005, spec.tick))
  const c = hashString(coin)
  const bucket = Math.floor(t / 10_000)
  const unit = Math.max(spec.lot, roundTo(50_000 / mid, spec.lot))
  const size = (k: number) => Math.max(spec.lot, roundTo(unit * (0.3 + 2 * noise(h.seed, c, k, bucket)), spec.lot))
  const best = Math.floor(mid / spacing)
  const d = decimalsOf(spec.tick)
  const px = (k: number) => Number((k * spacing).toFixed(d))
  const bids: Level[] = []
  const asks: Level[] = []
  for (let i = 0; i < depth; i++) {
    const b = best - i
    const a = best + 1 + i
    if (b > 0) bids.push([px(b), size(b)])
    asks.push([px(a), size(a)])
  }
  return { bids, asks }
}

/** the level changes from one book side to the next: changed or new levels, and removed ones with size 0 */
export function sideDiff(prev: readonly Level[], next: readonly Level[]): Level[] {
  const before = new Map(prev.map(([p, s]) => [p, s]))
  const out: Level[] = []
  for (const [p, s] of next) {
    if (before.get(p) !== s) out.push([p, s])
    before.delete(p)
  }
  for (const p of before.keys()) out.push([p, 0])
  return out
}
