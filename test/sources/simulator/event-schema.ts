// zod schemas mirroring src/domain/events.ts, plus the invariants a consumer relies on, for validating simulator output
// (events, and the 1-minute bars that stand for history's trades).
import { z } from 'zod'
import { type MarketEvent } from '../../../src/domain/events.js'
import { EXCHANGE_IDS, hasMarket } from '../../../src/domain/exchanges.js'
import type { MinuteBar } from '../../../src/domain/minute-bars.js'
import { vapLevelHigh, vapLevelLow } from '../../../src/domain/volume-at-price.js'

const pos = z.number().finite().positive()
const base = {
  exchange: z.enum(EXCHANGE_IDS),
  coin: z.string().regex(/^[A-Z0-9]+$/),
  marketType: z.enum(['perp', 'spot']),
  ts: z.number().int().nonnegative(),
}
const level = z.object({ price: pos, size: pos }).strict()

const eventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('trade'), ...base, id: z.string().min(1), price: pos, size: pos, side: z.enum(['buy', 'sell']) }).strict(),
  z
    .object({
      type: z.literal('book'),
      ...base,
      bids: z.array(level).min(1),
      asks: z.array(level).min(1),
      // how far the snapshot reaches: a price, or null for a whole side
      bidEnd: pos.nullable(),
      askEnd: pos.nullable(),
    })
    .strict(),
  z
    .object({
      type: z.literal('ticker'),
      ...base,
      markPrice: pos.nullable(),
      indexPrice: pos.nullable(),
      lastPrice: pos.nullable(),
      fundingRate: z.number().finite().nullable(),
      fundingIntervalHours: pos.nullable(),
      nextFundingTime: z.number().int().nullable(),
    })
    .strict(),
  z.object({ type: z.literal('open_interest'), ...base, openInterest: pos }).strict(),
  z.object({ type: z.literal('funding'), ...base, rate: z.number().finite(), intervalHours: pos }).strict(),
  z.object({ type: z.literal('liquidation'), ...base, id: z.string().min(1), side: z.enum(['long', 'short']), price: pos, size: pos, usd: pos }).strict(),
  z
    .object({
      type: z.literal('positioning'),
      ...base,
      kind: z.enum(['account', 'top_position']),
      longShare: z.number().min(0).max(1),
      shortShare: z.number().min(0).max(1),
      ratio: pos,
      periodMs: pos,
    })
    .strict(),
])

/** throws with a readable message when an event breaks the shape or an invariant */
export function validateEvent(e: MarketEvent): void {
  const r = eventSchema.safeParse(e)
  if (!r.success) throw new Error(`invalid ${e.type} event: ${r.error.message}\n${JSON.stringify(e).slice(0, 400)}`)
  if (!hasMarket(e.exchange, e.marketType)) throw new Error(`${e.exchange} has no ${e.marketType} market`)
  switch (e.type) {
    case 'book': {
      for (let i = 1; i < e.bids.length; i++) if (!(e.bids[i]!.price < e.bids[i - 1]!.price)) throw new Error('bids not strictly descending')
      for (let i = 1; i < e.asks.length; i++) if (!(e.asks[i]!.price > e.asks[i - 1]!.price)) throw new Error('asks not strictly ascending')
      if (!(e.bids[0]!.price < e.asks[0]!.price)) throw new Error('crossed book')
      break
    }
    case 'ticker': {
      if (e.marketType === 'spot') {
        if (e.fundingRate !== null || e.fundingIntervalHours !== null || e.nextFundingTime !== null) throw new Error('spot ticker with funding')
      } else {
        if (e.markPrice === null || e.indexPrice === null || e.fundingRate === null) throw new Error('perp ticker without mark/index/funding')
        if (!(e.nextFundingTime! > e.ts)) throw new Error('nextFundingTime not in the future')
        if (e.nextFundingTime! % (e.fundingIntervalHours! * 3_600_000) !== 0) throw new Error('nextFundingTime not aligned')
      }
      break
    }
    case 'liquidation':
      if (Math.abs(e.usd - e.price * e.size) > 1e-9 * e.usd) throw new Error('liquidation usd != price × size')
      if (e.exchange === 'hyperliquid') throw new Error('hyperliquid publishes no liquidations')
    // falls through
    case 'positioning':
    case 'open_interest':
    case 'funding':
      if (e.marketType !== 'perp') throw new Error(`${e.type} for a spot market`)
      break
  }
}

/** throws when a 1-minute bar breaks what a reader of candle_1m relies on */
export function validateBar(b: MinuteBar): void {
  const where = `${b.exchange}:${b.coin}:${b.marketType}@${b.ts}`
  if (!hasMarket(b.exchange, b.marketType)) throw new Error(`${where}: no such market`)
  if (b.ts % 60_000 !== 0) throw new Error(`${where}: not on a minute`)
  for (const p of [b.open, b.high, b.low, b.close]) if (!(p > 0) || !Number.isFinite(p)) throw new Error(`${where}: bad price ${p}`)
  if (!(b.low <= Math.min(b.open, b.close) && Math.max(b.open, b.close) <= b.high)) throw new Error(`${where}: open/close outside low..high`)
  if (!Number.isInteger(b.trades!) || b.trades! < 0) throw new Error(`${where}: bad trade count`)
  const rel = (a: number, c: number) => Math.abs(a - c) <= 1e-9 * Math.max(1, Math.abs(c))
  if (!rel(b.buyVolume! + b.sellVolume!, b.volume) || b.buyVolume! < 0 || b.sellVolume! < 0) throw new Error(`${where}: buy + sell != volume`)
  if (b.trades === 0) {
    if (b.volume !== 0 || b.quoteVolume !== 0 || b.vap.size !== 0 || b.open !== b.high || b.low !== b.close || b.open !== b.close) throw new Error(`${where}: a minute without trades must be flat with zero volume`)
    return
  }
  if (!(b.volume > 0)) throw new Error(`${where}: trades without volume`)
  // VWAP inside the range, volume at price summing to the volume and lying inside the range (1-bp levels)
  const vwap = b.quoteVolume! / b.volume
  if (!(vwap >= b.low * (1 - 1e-9) && vwap <= b.high * (1 + 1e-9))) throw new Error(`${where}: VWAP ${vwap} outside ${b.low}..${b.high}`)
  let buy = 0
  let sell = 0
  for (const [level, [bv, sv]] of b.vap) {
    buy += bv
    sell += sv
    if (vapLevelHigh(level) < b.low * (1 - 1e-9) || vapLevelLow(level) > b.high * (1 + 1e-9)) throw new Error(`${where}: volume at level ${level} outside the range`)
  }
  if (!rel(buy, b.buyVolume!) || !rel(sell, b.sellVolume!)) throw new Error(`${where}: volume at price does not sum to the buy/sell volume`)
}
