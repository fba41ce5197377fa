// A venue's liquidation stream reports its own liveness from the connection and the subscription, never from the
// liquidations it carries: Binance's forceOrder through CCXT on an offline socket, with the socket made to fail.
import { readFileSync } from 'node:fs'
import ccxt from 'ccxt'
import { afterEach, describe, expect, it } from 'vitest'
import { BinanceConnector } from '../../../src/sources/connectors/binance.js'
import { DydxConnector } from '../../../src/sources/connectors/dydx.js'
import { fixture, offlineHttp, offlineWs, RecordingSink, waitFor } from './offline.js'

const off = { trades: false, books: false, tickers: false, openInterest: false, funding: false, positioning: false }
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms))
const forceOrders = JSON.parse(readFileSync(new URL('../../fixtures/venues/binance_ws_force_order.json', import.meta.url), 'utf8')) as unknown[]

function dydx() {
  const ex = new ccxt.pro.dydx()
  ex.setMarkets(Object.values(fixture('dydx/perpetual_markets.json').result.markets as Record<string, unknown>).map((m) => ex.parseMarket(m as any)))
  offlineHttp(ex, [])
  offlineWs(ex)
  return ex
}

function binance() {
  const ex = new ccxt.pro.binanceusdm()
  ex.setMarkets(fixture<{ symbols: any[] }>('binance/instruments.json').symbols.map((s) => ex.parseMarket(s)))
  offlineHttp(ex, [])
  return { ex, ws: offlineWs(ex) }
}

describe('liquidation stream liveness', () => {
  const running: { stop(): Promise<void> }[] = []
  afterEach(async () => {
    await Promise.all(running.splice(0).map((c) => c.stop()))
  })

  it('Binance forceOrder: up once subscribed on a connected socket, still up while quiet, down from the moment the socket fails until it is subscribed again, down at stop', async () => {
    const { ex, ws } = binance()
    const sink = new RecordingSink()
    let clock = 1_000_000
    const c = new BinanceConnector({ coins: ['BTC', 'ETH'], sink, ccxtExchange: ex, marketTypes: ['perp'], streams: { ...off, liquidations: true }, livenessMs: 10, now: () => clock, backoff: { baseMs: 300, factor: 1, maxMs: 300, jitter: 0 } })
    running.push(c)
    await c.start()
    await waitFor(() => sink.feeds.length === 1, 2000, 'the stream up')
    expect(ws.sent.map((s) => s.message.params)).toEqual([['btcusdt@forceOrder', 'ethusdt@forceOrder']])
    expect(sink.feeds[0]).toEqual({ exchange: 'binance', stream: 'liquidations', coins: ['BTC', 'ETH'], ts: 1_000_000, up: true })
    // no liquidation for a while is not a dead stream
    await pause(200)
    expect(sink.feeds).toHaveLength(1)
    // the socket fails: CCXT drops the client and rejects the watch; the loop backs off
    clock = 2_000_000
    const client = Object.values<any>((ex as any).clients)[0]
    client.onError(new Error('socket hang up'))
    await waitFor(() => sink.feeds.length === 2, 2000, 'the stream down')
    expect(sink.feeds[1]).toMatchObject({ exchange: 'binance', ts: 2_000_000, up: false })
    // after the backoff the watch connects and subscribes again: up from then on
    clock = 3_000_000
    await waitFor(() => sink.feeds.length === 3, 3000, 'the stream up again')
    expect(sink.feeds[2]).toMatchObject({ ts: 3_000_000, up: true })
    expect(ws.sent).toHaveLength(2)
    // and it carries liquidations again
    ws.push({ stream: 'btcusdt@forceOrder', data: forceOrders[0] })
    await waitFor(() => sink.of('liquidation').length === 1, 2000, 'a liquidation')
    clock = 4_000_000
    await c.stop()
    expect(sink.feeds.slice(3)).toEqual([{ exchange: 'binance', stream: 'liquidations', coins: ['BTC', 'ETH'], ts: 4_000_000, up: false }])
  })

  it('dYdX: the liquidations come with the trade stream, so its subscription is what is probed; no stream, no uptime', async () => {
    const ex = dydx()
    const sink = new RecordingSink()
    const c = new DydxConnector({ coins: ['BTC'], sink, ccxtExchange: ex, streams: { ...off, trades: true, liquidations: true }, livenessMs: 10, now: () => 5_000 })
    running.push(c)
    await c.start()
    await waitFor(() => sink.feeds.length === 1, 2000, 'the stream up')
    expect(sink.feeds[0]).toEqual({ exchange: 'dydx', stream: 'liquidations', coins: ['BTC'], ts: 5_000, up: true })
    // without the trade stream the venue's liquidations are not collected: never up
    const quiet = new RecordingSink()
    const c2 = new DydxConnector({ coins: ['BTC'], sink: quiet, ccxtExchange: dydx(), streams: { ...off, liquidations: true }, livenessMs: 10 })
    running.push(c2)
    await c2.start()
    await pause(100)
    expect(quiet.feeds).toEqual([])
  })
})
