// Live events as push-channel events: tickers and liquidations as they arrive, in the REST field names.
import { noMarkReason } from '../../domain/venue-prices.js'
import type { LiquidationEvent, TickerEvent } from '../../domain/events.js'
import type { StreamDraft } from './hub.js'

export function liveDraft(e: TickerEvent | LiquidationEvent): StreamDraft {
  if (e.type === 'ticker') {
    // as /v1/markets/ticker says it: a venue without a mark of its own (dYdX) has a null mark, its oracle is the index
    const markNote = noMarkReason(e.exchange)
    return {
      channel: 'ticker', coin: e.coin, ts: e.ts,
      data: {
        exchange: e.exchange, coin: e.coin, market_type: e.marketType, ts: e.ts,
        mark_price: markNote === null ? e.markPrice : null, index_price: e.indexPrice, last_price: e.lastPrice,
        funding_rate: e.fundingRate, funding_interval_hours: e.fundingIntervalHours, next_funding_time: e.nextFundingTime, mark_note: markNote,
      },
    }
  }
  return {
    channel: 'liquidations', coin: e.coin, ts: e.ts,
    data: { exchange: e.exchange, coin: e.coin, market_type: e.marketType, ts: e.ts, id: e.id, side: e.side, price: e.price, size: e.size, usd: e.usd },
  }
}
