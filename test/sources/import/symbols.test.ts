import { describe, expect, it } from 'vitest'
import {
  coinFromBinanceSymbol,
  coinFromConcatSymbol,
  coinFromTardisSymbol,
  parseBinanceFileName,
  parseTardisFileName,
} from '../../../src/sources/import/index.js'
import { binancePathHint } from '../../../src/sources/import/symbols.js'

describe('symbol -> coin', () => {
  it('strips USD-like quotes, longest first', () => {
    expect(coinFromConcatSymbol('BTCUSDT')).toBe('BTC')
    expect(coinFromConcatSymbol('ethusdc')).toBe('ETH')
    expect(coinFromConcatSymbol('BTCFDUSD')).toBe('BTC')
    expect(coinFromConcatSymbol('BTCBUSD')).toBe('BTC')
    expect(coinFromConcatSymbol('BTCTUSD')).toBe('BTC')
    expect(coinFromConcatSymbol('BTCUSD')).toBe('BTC')
    expect(coinFromConcatSymbol('1000PEPEUSDT')).toBe('1000PEPE')
    expect(coinFromConcatSymbol('USDCUSDT')).toBe('USDC')
    expect(coinFromConcatSymbol('ETHBTC')).toBeNull()
    expect(coinFromConcatSymbol('USDT')).toBeNull()
  })

  it('binance: rejects COIN-M and dated contracts', () => {
    expect(coinFromBinanceSymbol('BTCUSDT')).toEqual({ coin: 'BTC' })
    expect(coinFromBinanceSymbol('BTCUSD_PERP')).toHaveProperty('error', expect.stringMatching(/COIN-M/))
    expect(coinFromBinanceSymbol('BTCUSDT_240329')).toHaveProperty('error', expect.stringMatching(/dated/))
    expect(coinFromBinanceSymbol('ETHBTC')).toHaveProperty('error', expect.stringMatching(/--coin/))
  })

  it('parses data.binance.vision file names', () => {
    expect(parseBinanceFileName('BTCUSDT-aggTrades-2024-01-01.zip')).toEqual({ symbol: 'BTCUSDT', kind: 'aggTrades', period: '2024-01-01' })
    expect(parseBinanceFileName('BTCUSDT-trades-2024-01.csv')).toEqual({ symbol: 'BTCUSDT', kind: 'trades', period: '2024-01' })
    expect(parseBinanceFileName('ETHUSDT-aggTrades-2025-03-01.csv')).toEqual({ symbol: 'ETHUSDT', kind: 'aggTrades', period: '2025-03-01' })
    expect(parseBinanceFileName('BTCUSDT-1m-2024-01.zip')).toEqual({ symbol: 'BTCUSDT', kind: 'klines', period: '2024-01', interval: '1m' })
    expect(parseBinanceFileName('trades.csv')).toBeNull()
    expect(parseBinanceFileName('BTCUSDT-aggTrades-2024-01-01.zip.CHECKSUM')).toBeNull()
  })

  it('path hints', () => {
    expect(binancePathHint('/data/futures/um/daily/aggTrades/BTCUSDT/x.zip')).toBe('perp')
    expect(binancePathHint('/data/spot/monthly/trades/BTCUSDT/x.zip')).toBe('spot')
    expect(binancePathHint('/data/futures/cm/daily/trades/BTCUSD_PERP/x.zip')).toBe('coin-m')
    expect(binancePathHint('C:\\dl\\futures\\um\\x.zip')).toBe('perp')
    expect(binancePathHint('/home/me/x.zip')).toBeNull()
  })

  it('tardis exchanges and symbols', () => {
    const ok: [string, string, string][] = [
      ['binance-futures', 'BTCUSDT', 'BTC'],
      ['binance-futures', 'btcusdt', 'BTC'],
      ['binance', 'ETHFDUSD', 'ETH'],
      ['bybit', 'BTCUSDT', 'BTC'],
      ['bybit', 'ETHPERP', 'ETH'],
      ['bybit-spot', 'SOLUSDC', 'SOL'],
      ['okex-swap', 'BTC-USDT-SWAP', 'BTC'],
      ['okex', 'ETH-USDT', 'ETH'],
      ['hyperliquid', 'BTC', 'BTC'],
      ['hyperliquid', 'kPEPE', 'KPEPE'],
      ['dydx-v4', 'BTC-USD', 'BTC'],
    ]
    for (const [ex, sym, coin] of ok) expect(coinFromTardisSymbol(ex, sym), `${ex} ${sym}`).toEqual({ coin })
    const bad: [string, string][] = [
      ['bybit', 'BTCUSD'], // inverse
      ['bybit', 'BTC-27DEC24'],
      ['okex-swap', 'BTC-USD-SWAP'], // inverse
      ['okex-swap', 'BTC-USDT-240329'],
      ['binance-futures', 'BTCUSDT_240329'],
      ['binance', 'ETHBTC'],
      ['hyperliquid', '@107'],
      ['hyperliquid', 'PURR/USDC'],
      ['deribit', 'BTC-PERPETUAL'],
      ['okex-futures', 'BTC-USDT-240329'],
    ]
    for (const [ex, sym] of bad) expect(coinFromTardisSymbol(ex, sym), `${ex} ${sym}`).toHaveProperty('error')
  })

  it('tardis file names', () => {
    expect(parseTardisFileName('binance-futures_trades_2024-01-01_BTCUSDT.csv.gz')).toEqual({ exchange: 'binance-futures', date: '2024-01-01', symbol: 'BTCUSDT' })
    expect(parseTardisFileName('okex-swap_trades_2024-01-01_BTC-USDT-SWAP.csv')).toEqual({ exchange: 'okex-swap', date: '2024-01-01', symbol: 'BTC-USDT-SWAP' })
  })
})
