// Symbol / file-name / venue-name conventions of the import sources. Pure functions, no I/O.
import type { ExchangeId, MarketType } from '../../domain/exchanges.js'

/**
 * USD-like quote assets stripped from concatenated symbols (BTCUSDT -> BTC). Order matters: longer quotes that end
 * in another quote (FDUSD, BUSD, TUSD all end in USD) are tried first.
 */
const USD_QUOTES = ['FDUSD', 'BUSD', 'TUSD', 'USDT', 'USDC', 'USD'] as const

const COIN_RE = /^[A-Z0-9]+$/

/** BTCUSDT -> BTC, 1000PEPEUSDT -> 1000PEPE; null if the symbol has no USD-like quote (ETHBTC) or nothing is left. */
export function coinFromConcatSymbol(symbol: string): string | null {
  const s = symbol.toUpperCase()
  for (const q of USD_QUOTES) {
    if (s.length > q.length && s.endsWith(q)) {
      const base = s.slice(0, -q.length)
      return COIN_RE.test(base) ? base : null
    }
  }
  return null
}

// ---------------------------------------------------------------------------------------------------------------
// Binance public data archive (data.binance.vision)

export type BinanceKind = 'aggTrades' | 'trades'

export interface BinanceFileName {
  /** symbol as in the file name, upper case: BTCUSDT, BTCUSD_PERP, BTCUSDT_240329 */
  symbol: string
  kind: BinanceKind | 'klines'
  /** 2024-01 (monthly) or 2024-01-01 (daily) */
  period: string
  /** klines: the candle interval of the name, e.g. 1m */
  interval?: string
}

const BINANCE_TRADES_NAME = /^([A-Za-z0-9_]+)-(aggTrades|trades)-(\d{4}-\d{2}(?:-\d{2})?)(?:\.csv)?(?:\.zip|\.gz)?$/i
const BINANCE_KLINES_NAME = /^([A-Za-z0-9_]+)-(\d+[smhdw]|1mo)-(\d{4}-\d{2}(?:-\d{2})?)(?:\.csv)?(?:\.zip|\.gz)?$/

/** BTCUSDT-aggTrades-2024-01-01.zip -> {symbol: BTCUSDT, kind: aggTrades, period: 2024-01-01}; null if not that shape. */
export function parseBinanceFileName(fileName: string): BinanceFileName | null {
  const m = BINANCE_TRADES_NAME.exec(fileName)
  if (m) {
    const kind: BinanceKind = m[2]!.toLowerCase() === 'aggtrades' ? 'aggTrades' : 'trades'
    return { symbol: m[1]!.toUpperCase(), kind, period: m[3]! }
  }
  const k = BINANCE_KLINES_NAME.exec(fileName)
  if (k) return { symbol: k[1]!.toUpperCase(), kind: 'klines', period: k[3]!, interval: k[2]! }
  return null
}

/**
 * Coin of a Binance symbol for the markets we import (USD-M perps and spot). Throws a descriptive message (string)
 * for markets we deliberately do not support.
 */
export function coinFromBinanceSymbol(symbol: string): { coin: string } | { error: string } {
  const s = symbol.toUpperCase()
  if (s.endsWith('_PERP')) return { error: `${s} is a COIN-M (inverse) contract; sizes are contracts, not supported` }
  if (/_\d{6}$/.test(s)) return { error: `${s} is a dated (delivery) future, not a perp; not supported` }
  const coin = coinFromConcatSymbol(s)
  if (!coin) return { error: `cannot infer coin from symbol ${s} (quote is not ${USD_QUOTES.join('/')}); pass --coin` }
  return { coin }
}

/** Market type implied by a data.binance.vision directory layout in the path, if any. */
export function binancePathHint(path: string): MarketType | 'coin-m' | null {
  const p = path.replace(/\\/g, '/').toLowerCase()
  const hints: [number, MarketType | 'coin-m'][] = [
    [p.lastIndexOf('/futures/um/'), 'perp'],
    [p.lastIndexOf('/futures/cm/'), 'coin-m'],
    [p.lastIndexOf('/spot/'), 'spot'],
  ]
  let best: [number, MarketType | 'coin-m'] | null = null
  for (const h of hints) if (h[0] >= 0 && (!best || h[0] > best[0])) best = h
  return best ? best[1] : null
}

// ---------------------------------------------------------------------------------------------------------------
// Tardis.dev normalized CSV datasets

export interface TardisVenue {
  exchange: ExchangeId
  marketType: MarketType
  /** amounts are contracts that must be multiplied by a contract size (OKX swaps) */
  contracts: boolean
}

/** tardis exchange id -> our market. Anything else (okex-futures, binance-delivery, deribit, ...) is rejected. */
export const TARDIS_VENUES: Readonly<Record<string, TardisVenue>> = {
  'binance-futures': { exchange: 'binance', marketType: 'perp', contracts: false },
  binance: { exchange: 'binance', marketType: 'spot', contracts: false },
  bybit: { exchange: 'bybit', marketType: 'perp', contracts: false },
  'bybit-spot': { exchange: 'bybit', marketType: 'spot', contracts: false },
  'okex-swap': { exchange: 'okx', marketType: 'perp', contracts: true },
  okex: { exchange: 'okx', marketType: 'spot', contracts: false },
  hyperliquid: { exchange: 'hyperliquid', marketType: 'perp', contracts: false },
  'dydx-v4': { exchange: 'dydx', marketType: 'perp', contracts: false },
}

/**
 * OKX USDT-margined swap contract values (ctVal, coins per contract), from OKX /api/v5/public/instruments
 * (BTC/ETH/SOL are confirmed by the recorded instruments fixture). Any other OKX swap needs an explicit
 * contract size (--contract-size); we never guess.
 */
export const OKX_SWAP_CONTRACT_SIZES: Readonly<Record<string, number>> = {
  BTC: 0.01,
  ETH: 0.1,
  SOL: 1,
}

/** Coin of a tardis symbol on one of the supported venues, or an error message. */
export function coinFromTardisSymbol(tardisExchange: string, symbol: string): { coin: string } | { error: string } {
  const s = symbol.toUpperCase()
  const bad = (why: string) => ({ error: `unsupported ${tardisExchange} symbol ${symbol}: ${why}` })
  switch (tardisExchange) {
    case 'binance':
    case 'binance-futures':
    case 'bybit-spot': {
      if (!/^[A-Z0-9]+$/.test(s)) return bad('not a perpetual/spot USD pair')
      const coin = coinFromConcatSymbol(s)
      return coin ? { coin } : bad('quote is not USD-like')
    }
    case 'bybit': {
      // linear perps: BTCUSDT, BTCUSDC, older USDC perps BTCPERP. Inverse BTCUSD (sizes in USD) and dated
      // futures (BTCUSDM24, BTC-27DEC24) are rejected.
      if (!/^[A-Z0-9]+$/.test(s)) return bad('dated future or option')
      if (s.endsWith('PERP') && s.length > 4) return { coin: s.slice(0, -4) }
      if (s.endsWith('USDT') || s.endsWith('USDC')) {
        const coin = coinFromConcatSymbol(s)
        return coin ? { coin } : bad('cannot strip quote')
      }
      return bad('inverse or dated contract (sizes not in coins)')
    }
    case 'okex-swap': {
      const m = /^([A-Z0-9]+)-([A-Z]+)-SWAP$/.exec(s)
      if (!m) return bad('expected BASE-QUOTE-SWAP')
      if (m[2] === 'USD') return bad('inverse (coin-margined) swap, contracts are USD; not supported')
      if (m[2] !== 'USDT' && m[2] !== 'USDC') return bad('quote is not USDT/USDC')
      return { coin: m[1]! }
    }
    case 'okex': {
      const m = /^([A-Z0-9]+)-([A-Z]+)$/.exec(s)
      if (!m || !(USD_QUOTES as readonly string[]).includes(m[2]!)) return bad('expected BASE-USDT style spot pair')
      return { coin: m[1]! }
    }
    case 'hyperliquid': {
      // perps are plain coin names (BTC, kPEPE); spot pairs look like @107 or PURR/USDC
      if (!/^[A-Z0-9]+$/.test(s)) return bad('spot pair (no spot market for hyperliquid)')
      return { coin: s }
    }
    case 'dydx-v4': {
      const m = /^([A-Z0-9]+)-USD$/.exec(s)
      return m ? { coin: m[1]! } : bad('expected BASE-USD')
    }
    default:
      return { error: `unsupported tardis exchange "${tardisExchange}" (supported: ${Object.keys(TARDIS_VENUES).join(', ')})` }
  }
}

/** tardis dataset file name: binance-futures_trades_2024-01-01_BTCUSDT.csv.gz */
export function parseTardisFileName(fileName: string): { exchange: string; symbol: string; date: string } | null {
  const m = /^([a-z0-9-]+)_trades_(\d{4}-\d{2}-\d{2})_([A-Za-z0-9_\-/@.]+?)\.csv(?:\.gz)?$/.exec(fileName)
  return m ? { exchange: m[1]!, date: m[2]!, symbol: m[3]! } : null
}
