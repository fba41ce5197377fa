// A trade into a minute bar, and the check a source's whole bar passes: the one place a trade's price, size and
// side enter a bar (the aggregator's minutes and the simulator's thin minutes both fold through here).
import type { MinuteBar, TradeMinuteBar } from '../../domain/minute-bars.js'
import type { TradeEvent } from '../../domain/events.js'
import { vapAdd } from '../../domain/minute-vap.js'

/** adds the trade's extremes, volumes, count and volume at price; open and close are the caller's (they follow time order) */
export function addTrade(bar: TradeMinuteBar, t: TradeEvent): void {
  const { price, size } = t
  if (price > bar.high) bar.high = price
  if (price < bar.low) bar.low = price
  bar.volume += size
  if (t.side === 'buy') bar.buyVolume += size
  else bar.sellVolume += size
  bar.quoteVolume += price * size
  bar.trades++
  vapAdd(bar.vap, price, size, t.side)
}

const isPrice = (x: number) => x > 0 && x < Infinity
const isAmount = (x: number) => x >= 0 && x < Infinity
/** null: the source does not give it */
const isAmountOrNull = (x: number | null) => x === null || isAmount(x)

/**
 * positive finite prices, non-negative finite volumes, a whole trade count and a finite ts; a field the source does
 * not give is null (a venue kline), and the taker split is both sides or neither
 */
export function isWholeBar(b: MinuteBar): boolean {
  return (
    isPrice(b.open) && isPrice(b.high) && isPrice(b.low) && isPrice(b.close) && Number.isFinite(b.ts) &&
    (b.trades === null || (Number.isInteger(b.trades) && b.trades >= 0)) &&
    isAmount(b.volume) && isAmountOrNull(b.buyVolume) && isAmountOrNull(b.sellVolume) && (b.buyVolume === null) === (b.sellVolume === null) &&
    isAmountOrNull(b.quoteVolume)
  )
}
