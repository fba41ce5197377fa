// Live events as push-channel events: tickers and liquidations as they arrive, in the REST field names.
import type { LiquidationEvent, TickerEvent } from '../events.js'
import type { StreamDraft } from './hub.js'

export function liveDraft(e: TickerEvent | LiquidationEvent): StreamDraft {
  if (e.type === 'ticker')
    return {
      channel: 'ticker', coin: e.coin, ts: e.ts,
      data: {
        exchange: e.exchange, coin: e.coin, market_type: e.marketType, ts: e.ts, mark_price: e.markPrice, index_price: e.indexPrice, last_price: e.lastPrice,
        funding_rate: e.fundingRate, funding_interval_hours: e.fundingIntervalHours, next_funding_time: e.nextFundingTime,
      },
    }
  return {
    channel: 'liquidations', coin: e.coin, ts: e.ts,
    data: { exchange: e.exchange, coin: e.coin, market_type: e.marketType, ts: e.ts, id: e.id, side: e.side, price: e.price, size: e.size, usd: e.usd },
  }
}
