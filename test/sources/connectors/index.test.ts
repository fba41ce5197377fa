import { describe, expect, it, vi } from 'vitest'
import {
  BinanceConnector,
  BybitConnector,
  createConnector,
  DydxConnector,
  HyperliquidConnector,
  MarketSourceError,
  OkxConnector,
  parseMarketSource,
} from '../../../src/sources/connectors/index.js'
import { EXCHANGE_IDS } from '../../../src/domain/exchanges.js'
import { RecordingSink } from './offline.js'

describe('parseMarketSource (MARKET_SOURCE)', () => {
  it('unset, empty or "auto" -> auto (the default); "simulator" -> simulator', () => {
    expect(parseMarketSource(undefined)).toEqual({ kind: 'auto' })
    expect(parseMarketSource('')).toEqual({ kind: 'auto' })
    expect(parseMarketSource('  ')).toEqual({ kind: 'auto' })
    expect(parseMarketSource('Auto')).toEqual({ kind: 'auto' })
    expect(parseMarketSource('Simulator')).toEqual({ kind: 'simulator' })
    expect(() => parseMarketSource('auto,binance')).toThrow(/"auto" cannot be combined/)
  })

  it('"live" -> all five exchanges', () => {
    expect(parseMarketSource('live')).toEqual({ kind: 'live', exchanges: ['binance', 'bybit', 'okx', 'hyperliquid', 'dydx'] })
    expect(parseMarketSource('LIVE,okx')).toEqual({ kind: 'live', exchanges: [...EXCHANGE_IDS] })
  })

  it('a list of exchange ids: case-insensitive, trimmed, deduplicated, order kept', () => {
    expect(parseMarketSource('binance,okx')).toEqual({ kind: 'live', exchanges: ['binance', 'okx'] })
    expect(parseMarketSource(' OKX , binance,okx,')).toEqual({ kind: 'live', exchanges: ['okx', 'binance'] })
    expect(parseMarketSource('dydx')).toEqual({ kind: 'live', exchanges: ['dydx'] })
  })

  it('unknown names and simulator mixed with exchanges are errors naming what is allowed', () => {
    expect(() => parseMarketSource('binance,kraken')).toThrow(/unknown source "kraken"/)
    expect(() => parseMarketSource('simulator,okx')).toThrow(MarketSourceError)
    try {
      parseMarketSource('ftx')
    } catch (e) {
      expect((e as MarketSourceError).allowed).toEqual(['auto', 'simulator', 'live', 'none', 'replay:<file>', ...EXCHANGE_IDS])
    }
  })
})

describe('createConnector', () => {
  it('returns the venue class; constructing one opens nothing and calls nothing', () => {
    const fetchSpy = vi.spyOn(globalThis, 'fetch')
    const classes = { binance: BinanceConnector, bybit: BybitConnector, okx: OkxConnector, hyperliquid: HyperliquidConnector, dydx: DydxConnector }
    for (const id of EXCHANGE_IDS) {
      const c = createConnector(id, { coins: ['btc'], sink: new RecordingSink() })
      expect(c).toBeInstanceOf(classes[id])
      expect(c.exchange).toBe(id)
      expect(c.health()).toEqual({ exchange: id, lastEventAt: null, connected: false, errors: 0, failing: [], refused: null })
      for (const ex of (c as any).instances()) {
        expect(Object.keys(ex.clients ?? {})).toEqual([])
        expect(ex.markets).toBeUndefined()
      }
    }
    expect(fetchSpy).not.toHaveBeenCalled()
    fetchSpy.mockRestore()
  })

  it('uses ccxt.pro classes: binanceusdm for perps and binance for spot, one instance elsewhere', () => {
    const b = createConnector('binance', { coins: ['BTC'], sink: new RecordingSink() }) as any
    expect(b.perp.id).toBe('binanceusdm')
    expect(b.spot.id).toBe('binance')
    expect(b.perp.has.watchTrades).toBe(true)
    expect(b.perp.options.watchTrades.name).toBe('aggTrade')
    const perpOnly = createConnector('binance', { coins: ['BTC'], sink: new RecordingSink(), marketTypes: ['perp'] }) as any
    expect(perpOnly.spot).toBeUndefined()
    for (const id of ['bybit', 'okx', 'hyperliquid', 'dydx'] as const) {
      const c = createConnector(id, { coins: ['BTC'], sink: new RecordingSink() }) as any
      expect(c.ex.id).toBe(id)
      expect(c.ex.has.watchOrderBook).toBe(true)
    }
  })

  it('pollIntervalMs: a number sets the ticker poll and scales OI (x6), funding (x12), wide books (x3) and positioning (x60); an object sets each', () => {
    const a = createConnector('okx', { coins: ['BTC'], sink: new RecordingSink(), pollIntervalMs: 2_000 }) as any
    expect(a.intervals).toEqual({ tickerMs: 2_000, openInterestMs: 12_000, fundingMs: 24_000, wideBookMs: 6_000, positioningMs: 120_000 })
    const b = createConnector('okx', { coins: ['BTC'], sink: new RecordingSink(), pollIntervalMs: { openInterestMs: 15_000 } }) as any
    expect(b.intervals).toEqual({ tickerMs: 5_000, openInterestMs: 15_000, fundingMs: 60_000, wideBookMs: 15_000, positioningMs: 300_000 })
  })
})
