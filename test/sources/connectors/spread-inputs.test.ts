// The spread on recorded payloads: each venue's mark price with the venue's own time for it (the receive time where the
// payload has none), the quote currency of each row, and the staleness guard judged on those times.
import ccxt from 'ccxt'
import { afterEach, describe, expect, it } from 'vitest'
import { buildSpread } from '../../../src/analytics/spread.js'
import { markRows } from '../../../src/read/market-data.js'
import { BinanceConnector } from '../../../src/sources/connectors/binance.js'
import { BybitConnector } from '../../../src/sources/connectors/bybit.js'
import type { ExchangeConnector } from '../../../src/sources/connectors/connector.js'
import { DydxConnector } from '../../../src/sources/connectors/dydx.js'
import { HyperliquidConnector } from '../../../src/sources/connectors/hyperliquid.js'
import type { TickerEvent } from '../../../src/domain/events.js'
import { dydxBody, fixture, fixtureText, offlineHttp, RecordingSink, waitFor } from './offline.js'

const running: ExchangeConnector[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((c) => c.stop()))
})
const ONLY_TICKERS = { trades: false, books: false, openInterest: false, funding: false, tickers: true }

async function firstTicker(c: ExchangeConnector, sink: RecordingSink): Promise<TickerEvent> {
  running.push(c)
  await c.start()
  await waitFor(() => sink.of('ticker').length >= 1)
  return sink.of('ticker')[0]!
}

describe('spread inputs: marks with their exchange times and quotes (premium_index_all, bybit tickers, hyperliquid ctxs, dydx markets)', () => {
  it('compares marks, judges staleness on the venue\'s time, and says the USDT and USDC rows are mixed', async () => {
    const bybitBody = fixture('bybit/tickers.json')
    const bybitRow = bybitBody.result.list[0]
    // "now" is 30 s after Bybit's response; Hyperliquid and dYdX send no time, so they are stamped when received (now)
    const now = Number(bybitBody.time) + 30_000

    const bn = new ccxt.pro.binanceusdm()
    bn.setMarkets(fixture<{ symbols: object[] }>('binance/instruments.json').symbols.map((s) => bn.parseMarket(s as any)))
    offlineHttp(bn, [['/fapi/v1/premiumIndex', fixtureText('binance/premium_index_all.json')]])
    const bnSink = new RecordingSink()
    const binance = await firstTicker(new BinanceConnector({ coins: ['BTC'], sink: bnSink, ccxtExchange: bn, marketTypes: ['perp'], now: () => now, streams: ONLY_TICKERS }), bnSink)
    const bnRow = fixture<Array<Record<string, any>>>('binance/premium_index_all.json').find((r) => r.symbol === 'BTCUSDT')!

    const by = new ccxt.pro.bybit()
    by.setMarkets(fixture('bybit/ccxt_markets.json'))
    offlineHttp(by, [['/v5/market/tickers', fixtureText('bybit/tickers.json')]])
    const bySink = new RecordingSink()
    const bybit = await firstTicker(new BybitConnector({ coins: ['BTC'], sink: bySink, ccxtExchange: by, marketTypes: ['perp'], now: () => now, streams: ONLY_TICKERS }), bySink)

    const hl = new ccxt.pro.hyperliquid()
    offlineHttp(hl, [[(url, body) => url.endsWith('/info') && JSON.parse(body ?? '{}').type === 'metaAndAssetCtxs', fixtureText('hyperliquid/meta_and_asset_ctxs.json')]])
    const hlSink = new RecordingSink()
    const hyperliquid = await firstTicker(new HyperliquidConnector({ coins: ['BTC'], sink: hlSink, ccxtExchange: hl, now: () => now, streams: ONLY_TICKERS }), hlSink)
    const [meta, ctxs] = fixture<[{ universe: Array<{ name: string }> }, Array<Record<string, string>>]>('hyperliquid/meta_and_asset_ctxs.json')
    const hlCtx = ctxs[meta.universe.findIndex((u) => u.name === 'BTC')]!

    const dy = new ccxt.pro.dydx()
    const markets = fixture('dydx/perpetual_markets.json').result.markets as Record<string, Record<string, string>>
    dy.setMarkets(Object.values(markets).map((m) => dy.parseMarket(m)))
    offlineHttp(dy, [['/v4/perpetualMarkets', dydxBody('dydx/perpetual_markets.json')]])
    const dySink = new RecordingSink()
    const dydx = await firstTicker(new DydxConnector({ coins: ['BTC'], sink: dySink, ccxtExchange: dy, now: () => now, streams: ONLY_TICKERS }), dySink)

    const s = buildSpread({ coin: 'BTC', current: markRows([binance, bybit, hyperliquid, dydx]), history: [], now })
    const none = { outlier: false, outlierReason: null }
    expect(s.prices).toEqual([
      // Binance's mark is stamped with premiumIndex `time` (2021): far older than 2 min at now, so left out
      { exchange: 'binance', price: null, priceSource: null, quote: 'USDT', ts: bnRow.time, ...none },
      { exchange: 'bybit', price: Number(bybitRow.markPrice), priceSource: 'mark', quote: 'USDT', ts: Number(bybitBody.time), ...none },
      { exchange: 'okx', price: null, priceSource: null, quote: 'USDT', ts: null, ...none },
      { exchange: 'hyperliquid', price: Number(hlCtx['markPx']), priceSource: 'mark', quote: 'USDC', ts: now, ...none },
      // dYdX's ticker carries its oracle price as mark and index (it publishes no other): not a price anyone trades at,
      // so never a mark row; its tradable price is its last trade (the trades, not fed here)
      { exchange: 'dydx', price: null, priceSource: null, quote: 'USDC', ts: null, ...none },
    ])
    expect(dydx).toMatchObject({ markPrice: Number(markets['BTC-USD']!['oraclePrice']), indexPrice: Number(markets['BTC-USD']!['oraclePrice']) })
    const marks = [Number(bybitRow.markPrice), Number(hlCtx['markPx'])]
    const max = Math.max(...marks)
    const min = Math.min(...marks)
    expect(s.spreadBps).toBeCloseTo(((max - min) / ((max + min) / 2)) * 10_000, 9)
    expect(s.quotes).toEqual(['USDT', 'USDC'])
    expect(s.mixedQuotes).toBe(true)
  })
})
