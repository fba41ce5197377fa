// zod schemas mirroring src/market/events.ts, plus the invariants a consumer relies on, for validating simulator output.
import { z } from 'zod'
import { EXCHANGE_IDS, type MarketEvent } from '../../../src/market/events.js'
import { hasMarket } from '../../../src/market/exchanges.js'

const pos = z.number().finite().positive()
const base = {
  exchange: z.enum(EXCHANGE_IDS),
  coin: z.string().regex(/^[A-Z0-9]+$/),
  marketType: z.enum(['perp', 'spot']),
  ts: z.number().int().nonnegative(),
}
const level = z.object({ price: pos, size: pos }).strict()

export const eventSchema = z.discriminatedUnion('type', [
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
    case 'open_interest':
    case 'funding':
      if (e.marketType !== 'perp') throw new Error(`${e.type} for a spot market`)
      break
  }
}
