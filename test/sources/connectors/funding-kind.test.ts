// Predicted vs settled funding on recorded payloads: the rate each venue's ticker loop emits is that venue's predicted
// field, and every ticker row the API builds from it says `predicted`; settled history arrives as funding events only.
import ccxt from 'ccxt'
import { afterEach, describe, expect, it } from 'vitest'
import { buildTicker } from '../../../src/analytics/ticker.js'
import { BinanceConnector } from '../../../src/sources/connectors/binance.js'
import { BybitConnector } from '../../../src/sources/connectors/bybit.js'
import type { ExchangeConnector } from '../../../src/sources/connectors/connector.js'
import { DydxConnector } from '../../../src/sources/connectors/dydx.js'
import { HyperliquidConnector } from '../../../src/sources/connectors/hyperliquid.js'
import { dydxBody, fixture, fixtureText, offlineHttp, RecordingSink, waitFor } from './offline.js'

const running: ExchangeConnector[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((c) => c.stop()))
})
const ONLY_TICKERS = { trades: false, books: false, openInterest: false, funding: false, tickers: true }

async function tickersOf(c: ExchangeConnector, sink: RecordingSink, n: number) {
  running.push(c)
  await c.start()
  await waitFor(() => sink.of('ticker').length >= n)
  return sink.of('ticker')
}

describe('ticker funding rates are the venues\' predicted rates, flagged predicted', () => {
  it('binance lastFundingRate, bybit fundingRate, hyperliquid funding, dydx nextFundingRate (recorded bodies)', async () => {
    const now = Date.UTC(2024, 11, 21, 7, 17)
    const rows: Array<{ exchange: string; rate: number; expected: number }> = []

    // Binance premiumIndex: lastFundingRate is the rate for nextFundingTime (Binance "Mark Price and Funding Rate")
    const bn = new ccxt.pro.binanceusdm()
    const instruments = fixture<{ symbols: object[] }>('binance/instruments.json')
    bn.setMarkets(instruments.symbols.map((s) => bn.parseMarket(s as any)))
    offlineHttp(bn, [['/fapi/v1/premiumIndex', fixtureText('binance/premium_index_all.json')]])
    const bnSink = new RecordingSink()
    const bnT = await tickersOf(new BinanceConnector({ coins: ['BTC'], sink: bnSink, ccxtExchange: bn, marketTypes: ['perp'], streams: ONLY_TICKERS }), bnSink, 1)
    const bnRaw = fixture<Array<Record<string, string>>>('binance/premium_index_all.json').find((r) => r.symbol === 'BTCUSDT')!
    rows.push({ exchange: 'binance', rate: bnT[0]!.fundingRate!, expected: Number(bnRaw.lastFundingRate) })

    // Bybit tickers: fundingRate applies at nextFundingTime
    const by = new ccxt.pro.bybit()
    by.setMarkets(fixture('bybit/ccxt_markets.json'))
    offlineHttp(by, [['/v5/market/tickers', fixtureText('bybit/tickers.json')]])
    const bySink = new RecordingSink()
    const byT = await tickersOf(new BybitConnector({ coins: ['BTC'], sink: bySink, ccxtExchange: by, marketTypes: ['perp'], streams: ONLY_TICKERS }), bySink, 1)
    rows.push({ exchange: 'bybit', rate: byT[0]!.fundingRate!, expected: Number(fixture('bybit/tickers.json').result.list[0].fundingRate) })

    // Hyperliquid metaAndAssetCtxs: funding is the current hourly rate, settled at the next hour
    const hl = new ccxt.pro.hyperliquid()
    offlineHttp(hl, [[(url, body) => url.endsWith('/info') && JSON.parse(body ?? '{}').type === 'metaAndAssetCtxs', fixtureText('hyperliquid/meta_and_asset_ctxs.json')]])
    const hlSink = new RecordingSink()
    const hlT = await tickersOf(new HyperliquidConnector({ coins: ['BTC'], sink: hlSink, ccxtExchange: hl, now: () => now, streams: ONLY_TICKERS }), hlSink, 1)
    const [meta, ctxs] = fixture<[{ universe: Array<{ name: string }> }, Array<Record<string, string>>]>('hyperliquid/meta_and_asset_ctxs.json')
    rows.push({ exchange: 'hyperliquid', rate: hlT[0]!.fundingRate!, expected: Number(ctxs[meta.universe.findIndex((u) => u.name === 'BTC')]!['funding']) })

    // dYdX perpetualMarkets: nextFundingRate
    const dy = new ccxt.pro.dydx()
    const markets = fixture('dydx/perpetual_markets.json').result.markets as Record<string, Record<string, string>>
    dy.setMarkets(Object.values(markets).map((m) => dy.parseMarket(m)))
    offlineHttp(dy, [['/v4/perpetualMarkets', dydxBody('dydx/perpetual_markets.json')]])
    const dySink = new RecordingSink()
    const dyT = await tickersOf(new DydxConnector({ coins: ['BTC'], sink: dySink, ccxtExchange: dy, now: () => now, streams: ONLY_TICKERS }), dySink, 1)
    rows.push({ exchange: 'dydx', rate: dyT[0]!.fundingRate!, expected: Number(markets['BTC-USD']!['nextFundingRate']) })

    for (const r of rows) expect(r.rate, r.exchange).toBe(r.expected)
    const events = [...bnT, ...byT, ...hlT, ...dyT]
    const table = buildTicker(events.map((e) => ({ ...e, ts: now })), now)
    expect(table.map((r) => r.exchange)).toEqual(['binance', 'bybit', 'hyperliquid', 'dydx'])
    for (const r of table) {
      expect(r.fundingRate, r.exchange).toBe(rows.find((x) => x.exchange === r.exchange)!.expected)
      expect(r.fundingKind, r.exchange).toBe('predicted')
    }
  })
})
