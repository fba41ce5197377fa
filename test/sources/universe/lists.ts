// The venues' recorded market lists (/work/shared/fixtures/exchanges, SOURCES.md) loaded through each connector's own
// CCXT instance: the venue's market-list request answered offline, CCXT's parser, ExchangeConnector.listedPerps.
import ccxt, { type MarketInterface } from 'ccxt'
import { BinanceConnector, BybitConnector, DydxConnector, HyperliquidConnector, OkxConnector } from '../../../src/sources/connectors/index.js'
import type { ExchangeId } from '../../../src/domain/exchanges.js'
import { dydxBody, fixture, fixtureText, offlineHttp, RecordingSink, type Route } from '../connectors/offline.js'

export type Raw = Record<string, any>
const sink = new RecordingSink()
const perpOnly = { coins: [], sink, marketTypes: ['perp'] as const }

// ---- the raw lists ----------------------------------------------------------------------------------------------

export const binanceInfo = fixture<{ symbols: Raw[] }>('binance/instruments.json')
/** every USD-M symbol Binance listed on 2021-12-20 (premium_index_all.json: GET /fapi/v1/premiumIndex, untrimmed) */
export const binanceSymbols: string[] = fixture<Raw[]>('binance/premium_index_all.json').map((r) => r['symbol'])
export const bybitList = fixture<{ result: { list: Raw[] } }>('bybit/instruments.json').result.list
export const okxList = fixture<{ data: Raw[] }>('okx/instruments.json').data
/** Hyperliquid's 2023 mainnet perp universe (meta.json), 28 names */
export const hlUniverse = fixture<{ universe: Raw[] }>('hyperliquid/meta.json').universe
export const dydxMarkets = Object.values(fixture<{ result: { markets: Record<string, Raw> } }>('dydx/perpetual_markets.json').result.markets)

/**
 * Binance's exchangeInfo for every perpetual of premium_index_all.json: instruments.json keeps only BTC, ETH and SOL,
 * so the other symbols get the recorded BTCUSDT instrument with only the naming fields set from the symbol (quote
 * USDT or BUSD, margined in it). Delivery contracts (BTCUSDT_211231) are left out: they are not perpetuals.
 */
export function binanceExchangeInfo(extra: Raw[] = []): string {
  const btc = binanceInfo.symbols.find((s) => s.symbol === 'BTCUSDT')!
  const symbols = binanceSymbols
    .filter((s) => !s.includes('_'))
    .map((symbol) => {
      const recorded = binanceInfo.symbols.find((s) => s.symbol === symbol)
      if (recorded) return recorded
      const quote = /(USDT|BUSD)$/.exec(symbol)![1]!
      const base = symbol.slice(0, -quote.length)
      return { ...btc, symbol, pair: symbol, baseAsset: base, quoteAsset: quote, marginAsset: quote }
    })
  return JSON.stringify({ ...(fixture('binance/instruments.json') as Raw), symbols: [...symbols, ...extra] })
}

/** Hyperliquid's metaAndAssetCtxs body over the 2023 mainnet universe (the contexts do not enter the market list) */
export const hlMetaAndCtxs = (universe: Raw[] = hlUniverse) => JSON.stringify([{ universe }, universe.map(() => ({ funding: '0', openInterest: '0', markPx: '1', oraclePx: '1' }))])
const hlRoute = (body: string): Route => [(url, b) => url.endsWith('/info') && JSON.parse(b ?? '{}').type === 'metaAndAssetCtxs', body]

export interface Bodies {
  binance?: string
  bybit?: string
  okx?: string
  hyperliquid?: string
  dydx?: string
}

/** each venue's perps as its connector lists them (listedPerps: the market-list request, reloaded, and CCXT's parser) */
export async function listed(bodies: Bodies = {}): Promise<Record<ExchangeId, MarketInterface[]>> {
  const binance = new ccxt.pro.binanceusdm()
  offlineHttp(binance, [['/fapi/v1/exchangeInfo', bodies.binance ?? binanceExchangeInfo()]])
  const bybit = new ccxt.pro.bybit()
  offlineHttp(bybit, [['/v5/market/instruments-info', bodies.bybit ?? fixtureText('bybit/instruments.json')]])
  const okx = new ccxt.pro.okx()
  offlineHttp(okx, [['/api/v5/public/instruments?instType=SWAP', bodies.okx ?? fixtureText('okx/instruments.json')]])
  const hl = new ccxt.pro.hyperliquid()
  offlineHttp(hl, [hlRoute(bodies.hyperliquid ?? hlMetaAndCtxs())])
  const dydx = new ccxt.pro.dydx()
  offlineHttp(dydx, [['/v4/perpetualMarkets', bodies.dydx ?? dydxBody('dydx/perpetual_markets.json')]])
  return {
    binance: await new BinanceConnector({ ...perpOnly, ccxtExchange: binance }).listedPerps(),
    bybit: await new BybitConnector({ ...perpOnly, ccxtExchange: bybit }).listedPerps(),
    okx: await new OkxConnector({ ...perpOnly, ccxtExchange: okx }).listedPerps(),
    hyperliquid: await new HyperliquidConnector({ ...perpOnly, ccxtExchange: hl }).listedPerps(),
    dydx: await new DydxConnector({ ...perpOnly, ccxtExchange: dydx }).listedPerps(),
  }
}
