import type { Bar } from '../domain/bars.js'
import type { ExchangeId, MarketType } from '../domain/exchanges.js'
import type { Vap } from '../domain/volume-at-price.js'

/**
 * A venue's own candle (kline) as its REST API, websocket or data dump reports it: what our bars are reconciled
 * against. A field the venue does not report is absent.
 */
export interface Kline {
  /** bucket open time, Unix ms */
  ts: number
  open: number
  high: number
  low: number
  close: number
  /** base volume, coin units */
  volume: number
  /** taker-buy base volume (Binance) */
  buyVolume?: number
  /** quote volume */
  quoteVolume?: number
  /** number of raw trades (not aggTrades) */
  trades?: number
}

export interface MarketKey {
  exchange: ExchangeId
  coin: string
  marketType: MarketType
}

/** One market's 1-minute aggregate as the store keeps it (candle_1m), with its volume at price. */
export interface MinuteBar extends Bar, MarketKey {
  vap: Vap
}

/** where a history source sends the 1-minute aggregates that stand for trades it does not emit one by one */
export interface BarSink {
  emitBar(bar: MinuteBar): void
}

/** a minute's bar before any trade: zero prices and volumes, an empty volume at price */
export const emptyMinuteBar = (k: MarketKey, minute: number): MinuteBar => ({
  exchange: k.exchange,
  coin: k.coin,
  marketType: k.marketType,
  ts: minute,
  open: 0,
  high: 0,
  low: 0,
  close: 0,
  volume: 0,
  buyVolume: 0,
  sellVolume: 0,
  quoteVolume: 0,
  trades: 0,
  vap: new Map(),
})

/** a quiet minute: flat at the previous close, zero volume, as the venues' own klines show it */
export function flatMinuteBar(k: MarketKey, minute: number, close: number): MinuteBar {
  const b = emptyMinuteBar(k, minute)
  b.open = b.high = b.low = b.close = close
  return b
}

export const marketKeyString = (k: MarketKey) => `${k.exchange}:${k.coin}:${k.marketType}`
