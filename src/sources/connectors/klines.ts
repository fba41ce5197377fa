// Venue klines (candles) -> one small shape, for the importer and for reconciling our own 1-minute bars.
import type { OHLCV } from 'ccxt'
import type { Kline } from '../../domain/minute-bars.js'
import { num } from '../../domain/numbers.js'

/**
 * A CCXT OHLCV row. On our five venues CCXT already puts coin units in the volume slot: OKX swaps use volCcy
 * (index 6, coins) instead of vol (contracts), Bybit linear uses volume, Hyperliquid v, dYdX baseTokenVolume.
 */
export function klineFromOhlcv(row: OHLCV): Kline | null {
  const [t, o, h, l, c, v] = row.map(num)
  if (t == null || o == null || h == null || l == null || c == null || v == null) return null
  return { ts: t, open: o, high: h, low: l, close: c, volume: v }
}

/**
 * Binance REST kline (spot /api/v3/klines and USD-M /fapi/v1/klines):
 * [openTime, open, high, low, close, volume, closeTime, quoteVolume, trades, takerBuyBase, takerBuyQuote, ignore].
 * Parsed from the raw row because CCXT's OHLCV drops the taker-buy volume, the quote volume and the trade count.
 */
export function binanceKline(row: readonly unknown[]): Kline | null {
  const k = klineFromOhlcv(row.slice(0, 6) as unknown as OHLCV)
  if (!k) return null
  const [quote, trades, buy] = [num(row[7]), num(row[8]), num(row[9])]
  return { ...k, ...(buy === null ? {} : { buyVolume: buy }), ...(quote === null ? {} : { quoteVolume: quote }), ...(trades === null ? {} : { trades }) }
}

export interface BinanceWsKline {
  /** venue symbol, e.g. BTCUSDT */
  symbol: string
  kline: Kline
  /** x: the bar is final */
  closed: boolean
}

/** A Binance `<symbol>@kline_<interval>` event (bare, or wrapped as {stream, data} by combined streams). */
export function binanceWsKline(frame: unknown): BinanceWsKline | null {
  const f = frame as { data?: unknown } | null
  const data = (f && typeof f === 'object' && 'data' in f ? f.data : frame) as
    | { e?: string; s?: string; k?: Record<string, unknown> }
    | null
  if (!data || data.e !== 'kline' || !data.k) return null
  const k = data.k
  const row = [k.t, k.o, k.h, k.l, k.c, k.v, k.T, k.q, k.n, k.V]
  const kline = binanceKline(row)
  if (!kline || typeof data.s !== 'string') return null
  return { symbol: data.s, kline, closed: k.x === true }
}
