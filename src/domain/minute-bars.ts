import type { Bar, CandleSource } from './bars.js'
import type { ExchangeId, MarketType } from './exchanges.js'
import type { Vap } from './volume-at-price.js'

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

export type { CandleSource } from './bars.js'

/**
 * One market's 1-minute aggregate as the store keeps it (candle_1m), with its volume at price (empty for a venue
 * kline: klines have none), and where it came from (source). Null where the source does not give a field.
 */
export interface MinuteBar extends Bar, MarketKey {
  vap: Vap
}

/** a minute folded from trades (live, imported or simulated): every field known */
export interface TradeMinuteBar extends MinuteBar {
  buyVolume: number
  sellVolume: number
  quoteVolume: number
  trades: number
}

/** where a history source sends the 1-minute aggregates that stand for trades it does not emit one by one */
export interface BarSink {
  emitBar(bar: MinuteBar): void
}

/** the sources a bar folded from trades can have */
export type TradeSource = Exclude<CandleSource, 'venue_kline'>

/** a minute's bar before any trade: zero prices and volumes, an empty volume at price */
export const emptyMinuteBar = (k: MarketKey, minute: number, source: TradeSource = 'trades'): TradeMinuteBar => ({
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
  source,
  noSplitMinutes: 0,
  klineMinutes: 0,
  vap: new Map(),
})

/** a quiet minute: flat at the previous close, zero volume, as the venues' own klines show it */
export function flatMinuteBar(k: MarketKey, minute: number, close: number, source: TradeSource = 'trades'): TradeMinuteBar {
  const b = emptyMinuteBar(k, minute, source)
  b.open = b.high = b.low = b.close = close
  return b
}

/**
 * A venue's 1-minute kline as a minute bar: source 'venue_kline', no volume at price, and null for what the venue does
 * not give (no taker-buy volume: no taker split; the sell side is volume − taker buy, never below 0).
 */
export function klineMinuteBar(k: MarketKey, kline: Kline): MinuteBar {
  const buy = kline.buyVolume ?? null
  return {
    exchange: k.exchange,
    coin: k.coin,
    marketType: k.marketType,
    ts: kline.ts,
    open: kline.open,
    high: kline.high,
    low: kline.low,
    close: kline.close,
    volume: kline.volume,
    buyVolume: buy,
    sellVolume: buy === null ? null : Math.max(0, kline.volume - buy),
    quoteVolume: kline.quoteVolume ?? null,
    trades: kline.trades ?? null,
    source: 'venue_kline',
    noSplitMinutes: buy === null ? 1 : 0,
    klineMinutes: 1,
    vap: new Map(),
  }
}

export const marketKeyString = (k: MarketKey) => `${k.exchange}:${k.coin}:${k.marketType}`
