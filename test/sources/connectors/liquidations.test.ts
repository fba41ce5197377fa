// Liquidation and positioning payloads (test/fixtures/venues, see its SOURCES.md): the parsers against the raw
// fields read by hand, and Binance's forceOrder and Bybit's account-ratio through CCXT and the connector offline.
import { readFileSync } from 'node:fs'
import ccxt from 'ccxt'
import { afterEach, describe, expect, it } from 'vitest'
import { BinanceConnector } from '../../../src/sources/connectors/binance.js'
import { binanceForceOrder, bybitLiquidation, dydxLiquidatedTrade, dydxLiquidationOfTrade, okxLiquidationOrders } from '../../../src/sources/connectors/liquidations.js'
import type { MarketRef } from '../../../src/sources/connectors/mapping.js'
import { binancePositioning, bybitPositioning, okxPositioning, positioningCalls } from '../../../src/sources/connectors/positioning.js'
import { fixture as exchangeFixture, offlineHttp, offlineWs, RecordingSink, waitFor } from './offline.js'

const venue = <T = any>(name: string): T => JSON.parse(readFileSync(new URL(`../../fixtures/venues/${name}`, import.meta.url), 'utf8')) as T
const ref = (exchange: MarketRef['exchange'], coin: string, id: string, contractSize = 1): MarketRef => ({
  exchange,
  coin,
  marketType: 'perp',
  symbol: `${coin}/USDT:USDT`,
  id,
  contractSize,
  inverse: false,
})

describe('liquidation payloads', () => {
  it('Binance forceOrder: S=SELL is a long closed; filled quantity z at the average price ap', () => {
    const [a, b] = venue<any[]>('binance_ws_force_order.json')
    const r = ref('binance', 'BTC', 'BTCUSDT')
    expect(binanceForceOrder(r, a.o)).toEqual({ type: 'liquidation', exchange: 'binance', coin: 'BTC', marketType: 'perp', ts: 1568014460893, id: '1568014460893-long-9910-0.014', side: 'long', price: 9910, size: 0.014, usd: 9910 * 0.014 })
    // ap (18990.00) differs from the order price p (18917.15): the fill is at ap
    expect(binanceForceOrder(r, b.o)).toMatchObject({ ts: 1665523974217, side: 'long', price: 18990, size: 0.009, usd: 18990 * 0.009 })
    expect(binanceForceOrder(r, { ...a.o, S: 'BUY' })).toMatchObject({ side: 'short' })
    expect(binanceForceOrder(r, { ...a.o, S: 'X' })).toBeNull()
  })

  it('Bybit allLiquidation: S is the position side (Sell = a short closed), v in coin', () => {
    const frame = venue('bybit_ws_all_liquidation.json')
    const e = bybitLiquidation(ref('bybit', 'ROSE', 'ROSEUSDT'), frame.data[0])
    expect(e).toEqual({ type: 'liquidation', exchange: 'bybit', coin: 'ROSE', marketType: 'perp', ts: 1739502302929, id: '1739502302929-short-0.04499-20000', side: 'short', price: 0.04499, size: 20000, usd: 0.04499 * 20000 })
    expect(bybitLiquidation(ref('bybit', 'ROSE', 'ROSEUSDT'), { ...frame.data[0], S: 'Buy' })).toMatchObject({ side: 'long' })
  })

  it('OKX liquidation-orders: posSide names the position, sz in contracts × ctVal, every detail an order', () => {
    const frame = venue('okx_ws_liquidation_orders.json')
    // IOST-USDT-SWAP: ctVal 1000 IOST per contract (OKX instruments); any contract size shows the conversion
    const r = ref('okx', 'IOST', 'IOST-USDT-SWAP', 1000)
    expect(okxLiquidationOrders(r, frame.data[0])).toEqual([
      { type: 'liquidation', exchange: 'okx', coin: 'IOST', marketType: 'perp', ts: 1692266434010, id: '1692266434010-short-0.007831-13000', side: 'short', price: 0.007831, size: 13000, usd: 0.007831 * 13000 },
    ])
    const two = { ...frame.data[0], details: [frame.data[0].details[0], { ...frame.data[0].details[0], posSide: 'net', side: 'sell', ts: '1692266434011' }] }
    expect(okxLiquidationOrders(r, two).map((e) => [e.side, e.ts])).toEqual([
      ['short', 1692266434010],
      ['long', 1692266434011],
    ])
  })

  it('dYdX v4_trades: only LIQUIDATED trades, the taker side BUY closing a short, the fill id kept', () => {
    const frame = venue('dydx_ws_trades_liquidated.json')
    const r = ref('dydx', 'BTC', 'BTC-USD')
    const out = frame.contents.trades.map((t: any) => dydxLiquidatedTrade(r, t)).filter(Boolean)
    expect(out).toEqual([
      { type: 'liquidation', exchange: 'dydx', coin: 'BTC', marketType: 'perp', ts: Date.UTC(2023, 3, 4, 0, 29, 19, 353), id: '8ee6d90d-272d-5edd-bf0f-2e4d6ae3d3b7', side: 'short', price: 27839, size: 0.000100431, usd: 27839 * 0.000100431 },
      { type: 'liquidation', exchange: 'dydx', coin: 'BTC', marketType: 'perp', ts: Date.UTC(2023, 3, 4, 0, 29, 19, 353), id: '38e64479-af09-5417-a795-195f83879156', side: 'short', price: 27839, size: 0.000000004, usd: 27839 * 0.000000004 },
    ])
    // through a CCXT trade, whose info is the raw trade
    expect(dydxLiquidationOfTrade(r, { info: frame.contents.trades[0] } as any)?.id).toBe('8ee6d90d-272d-5edd-bf0f-2e4d6ae3d3b7')
    expect(dydxLiquidationOfTrade(r, { info: frame.contents.trades[2] } as any)).toBeNull()
  })
})

describe('positioning payloads', () => {
  it('Binance globalLongShortAccountRatio: longAccount/shortAccount shares and their ratio', () => {
    expect(binancePositioning(ref('binance', 'BTC', 'BTCUSDT'), 'account', venue('binance_global_long_short_account_ratio.json'))).toEqual({
      type: 'positioning', exchange: 'binance', coin: 'BTC', marketType: 'perp', ts: 1726790400000, kind: 'account', longShare: 0.4558, shortShare: 0.5442, ratio: 0.8376, periodMs: 300_000,
    })
  })
  it('Bybit account-ratio: buyRatio/sellRatio are the long and short account shares', () => {
    expect(bybitPositioning(ref('bybit', 'BTC', 'BTCUSDT'), venue('bybit_account_ratio.json'))).toMatchObject({ ts: 1729123200000, kind: 'account', longShare: 0.5707, shortShare: 0.4293, ratio: 0.5707 / 0.4293 })
  })
  it('OKX rubik: the newest [ts, ratio]; shares from the ratio', () => {
    const e = okxPositioning(ref('okx', 'BTC', 'BTC-USDT-SWAP'), venue('okx_long_short_account_ratio_contract.json'))!
    const ratio = 0.9398602814619824
    expect(e).toMatchObject({ ts: 1729323600000, kind: 'account', ratio })
    expect(e.longShare).toBeCloseTo(ratio / (1 + ratio), 12)
    expect(e.longShare + e.shortShare).toBeCloseTo(1, 12)
  })
  it('Bybit through CCXT: GET /v5/market/account-ratio, category linear, period 5min', async () => {
    const ex = new ccxt.bybit()
    const body = JSON.stringify(venue('bybit_account_ratio.json'))
    const requests = offlineHttp(ex, [['/v5/market/account-ratio', body]])
    const out = await Promise.all(positioningCalls(ex, ref('bybit', 'BTC', 'BTCUSDT')))
    expect(requests.map((r) => new URL(r.url).searchParams.get('period'))).toEqual(['5min'])
    expect(out).toHaveLength(1)
    expect(out[0]).toMatchObject({ exchange: 'bybit', longShare: 0.5707 })
  })
  it('Binance through CCXT: each figure is its own call, so an unanswered one does not withhold the other', async () => {
    const ex = new ccxt.binanceusdm()
    const rows = venue<any[]>('binance_global_long_short_account_ratio.json')
    // only the account ratio answers; topLongShortPositionRatio fails as a network error would
    offlineHttp(ex, [['/futures/data/globalLongShortAccountRatio', JSON.stringify(rows)]])
    const [account, top] = await Promise.allSettled(positioningCalls(ex, ref('binance', 'BTC', 'BTCUSDT')))
    expect(account).toMatchObject({ status: 'fulfilled', value: { kind: 'account', ts: rows[0].timestamp, longShare: Number(rows[0].longAccount), shortShare: Number(rows[0].shortAccount), ratio: Number(rows[0].longShortRatio) } })
    expect(top!.status).toBe('rejected')
  })
})

describe('Binance forceOrder through CCXT and the connector', () => {
  const running: BinanceConnector[] = []
  afterEach(async () => {
    await Promise.all(running.splice(0).map((c) => c.stop()))
  })

  it('subscribes btcusdt@forceOrder and emits the recorded orders as liquidation events', async () => {
    const ex = new ccxt.pro.binanceusdm()
    const instruments = exchangeFixture<{ symbols: any[] }>('binance/instruments.json')
    ex.setMarkets(instruments.symbols.map((s) => ex.parseMarket(s)))
    offlineHttp(ex, [])
    const ws = offlineWs(ex)
    const sink = new RecordingSink()
    const off = { trades: false, books: false, tickers: false, openInterest: false, funding: false, positioning: false }
    const c = new BinanceConnector({ coins: ['BTC'], sink, ccxtExchange: ex, marketTypes: ['perp'], streams: off })
    running.push(c)
    await c.start()
    await waitFor(() => ws.sent.length === 1, 2000, 'subscription')
    expect(ws.sent[0]!.message.params).toEqual(['btcusdt@forceOrder'])
    for (const f of venue<any[]>('binance_ws_force_order.json')) {
      ws.push({ stream: 'btcusdt@forceOrder', data: f })
      await new Promise((r) => setImmediate(r))
    }
    await waitFor(() => sink.of('liquidation').length === 2, 3000, 'liquidations')
    expect(sink.of('liquidation').map((e) => [e.ts, e.side, e.price, e.size])).toEqual([
      [1568014460893, 'long', 9910, 0.014],
      [1665523974217, 'long', 18990, 0.009],
    ])
  })
})
