import { describe, expect, it } from 'vitest'
import { detectFormat } from '../../../src/sources/import/detect.js'
import { ImportFileError } from '../../../src/sources/import/errors.js'
import { FUT_AGG_HEADER, FUT_TRADES_HEADER, futAggRows, futTradeRows, spotAggRows, spotTradeRows } from './helpers.js'

describe('detectFormat', () => {
  it('recognizes each Binance layout with and without header', () => {
    expect(detectFormat('x.csv', [FUT_AGG_HEADER, futAggRows[0]!])).toEqual({ format: 'binance-aggTrades', hasHeader: true, columns: 7, layoutMarketType: 'perp' })
    expect(detectFormat('x.csv', futAggRows)).toEqual({ format: 'binance-aggTrades', hasHeader: false, columns: 7, layoutMarketType: 'perp' })
    expect(detectFormat('x.csv', [FUT_TRADES_HEADER, futTradeRows[0]!])).toEqual({ format: 'binance-trades', hasHeader: true, columns: 6, layoutMarketType: 'perp' })
    expect(detectFormat('x.csv', futTradeRows)).toMatchObject({ format: 'binance-trades', hasHeader: false, columns: 6 })
    expect(detectFormat('x.csv', spotAggRows)).toEqual({ format: 'binance-aggTrades', hasHeader: false, columns: 8, layoutMarketType: 'spot' })
    // spot trades and futures aggTrades both have 7 columns: told apart by where the booleans are
    expect(detectFormat('x.csv', spotTradeRows)).toEqual({ format: 'binance-trades', hasHeader: false, columns: 7, layoutMarketType: 'spot' })
    // a spot header variant (snake_case, with is_best_match)
    expect(detectFormat('x.csv', [`${FUT_AGG_HEADER},is_best_match`, spotAggRows[0]!])).toMatchObject({ format: 'binance-aggTrades', hasHeader: true, layoutMarketType: 'spot' })
  })

  it('handles BOM, CRLF and blank lines', () => {
    expect(detectFormat('x.csv', ['\uFEFF' + FUT_AGG_HEADER + '\r', '', futAggRows[0]! + '\r'])).toMatchObject({ format: 'binance-aggTrades', hasHeader: true })
  })

  it('recognizes tardis and kline files', () => {
    expect(detectFormat('t.csv', ['exchange,symbol,timestamp,local_timestamp,id,side,price,amount'])).toMatchObject({ format: 'tardis-trades', hasHeader: true })
    expect(detectFormat('k.csv', ['1712738460000,71481.90,71481.90,71481.90,71481.90,0.002,1712738519999,142.96380,1,0.002,142.96380,0'])).toMatchObject({ format: 'binance-klines' })
  })

  it('uses the file name for empty files, and rejects contradictions and junk', () => {
    expect(detectFormat('BTCUSDT-trades-2024-01.csv', [])).toMatchObject({ format: 'binance-trades', columns: null })
    expect(() => detectFormat('empty.csv', [])).toThrow(/empty file/)
    expect(() => detectFormat('BTCUSDT-trades-2024-01.csv', futAggRows)).toThrow(/file name says trades but the content is aggTrades/)
    expect(() => detectFormat('x.csv', ['1,2,3'])).toThrow(ImportFileError)
    expect(() => detectFormat('x.csv', ['time,price,size'])).toThrow(/unrecognized header/)
    expect(() => detectFormat('x.csv', ['id,price,qty,base_qty,time,is_buyer_maker'])).toThrow(/COIN-M/)
    expect(() => detectFormat('x.csv', [FUT_AGG_HEADER, futTradeRows[0]!])).toThrow(/header says/)
  })
})
