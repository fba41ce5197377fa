// Recorded frames reach the connection that subscribed to their stream, through ccxt.pro's own client.
import { readFileSync } from 'node:fs'
import ccxt from 'ccxt'
import { describe, expect, it } from 'vitest'
import type { WsLine } from '../../../src/sources/replay/format.js'
import { VENUE_RULES } from '../../../src/sources/replay/venues.js'
import { WsReplay } from '../../../src/sources/replay/ws-replay.js'
import { fixture, until } from './helpers.js'

const venueFixture = <T = any>(file: string): T => JSON.parse(readFileSync(new URL(`../../fixtures/venues/${file}`, import.meta.url), 'utf8')) as T

const wsLine = (venue: WsLine['venue'], url: string, frame: unknown, at = 0): WsLine => ({ v: 1, venue, at, kind: 'ws', url, frame: JSON.stringify(frame) })

describe('stream names of frames and subscriptions, per venue', () => {
  it('recorded frames name the streams CCXT subscribes to', () => {
    const r = VENUE_RULES
    // the subscription messages are the ones ccxt 4.5.84 sends (see docs/recordings.md)
    expect(r.binance.subscribedStreams({ method: 'SUBSCRIBE', params: ['btcusdt@depth@100ms', 'ethusdt@depth20@100ms'], id: 1 })).toEqual(['btcusdt@depth', 'ethusdt@depth'])
    expect(r.binance.frameStreams(fixture<any[]>('binance/ws_depth_update.json')[0])).toEqual(['sushiusdt@depth'])
    // a raw (uncombined) event names the stream its subscription did: stream names compare lower-cased
    expect(r.binance.frameStreams(fixture<any[]>('binance/ws_agg_trade.json')[0].data)).toEqual(r.binance.subscribedStreams({ method: 'SUBSCRIBE', params: ['ctkusdt@aggTrade'], id: 2 }))
    expect(r.binance.frameStreams(fixture<any[]>('binance/ws_agg_trade.json')[0].data)).toEqual(['ctkusdt@aggtrade'])
    // forceOrder events name their symbol inside the order (`o.s`): the venue's documented frame reaches btcusdt@forceOrder
    expect(r.binance.frameStreams(venueFixture<any[]>('binance_ws_force_order.json')[0])).toEqual(r.binance.subscribedStreams({ method: 'SUBSCRIBE', params: ['btcusdt@forceOrder'], id: 3 }))
    expect(r.okx.frameStreams(venueFixture('okx_ws_liquidation_orders.json'))).toEqual(r.okx.subscribedStreams({ op: 'subscribe', args: [{ channel: 'liquidation-orders', instType: 'SWAP' }] }))
    expect(r.binance.acknowledge!({ method: 'SUBSCRIBE', params: ['x'], id: 7 })).toEqual({ result: null, id: 7 })
    expect(r.bybit.subscribedStreams({ op: 'subscribe', req_id: 2, args: ['orderbook.1000.BTCUSDT'] })).toEqual(['orderbook.BTCUSDT'])
    expect(r.bybit.frameStreams(fixture<any[]>('bybit/ws_orderbook.json')[0])).toEqual(['orderbook.BTCUSDT'])
    expect(r.okx.subscribedStreams({ op: 'subscribe', args: [{ channel: 'books', instId: 'BTC-USDT-SWAP' }] })).toEqual(['books:BTC-USDT-SWAP'])
    expect(r.okx.frameStreams(fixture<any[]>('okx/ws_books.json')[0])).toEqual(['books:UNI-USD-SWAP'])
    expect(r.okx.frameStreams({ event: 'subscribe', arg: { channel: 'books', instId: 'BTC-USDT-SWAP' } })).toEqual([])
    expect(r.hyperliquid.subscribedStreams({ method: 'subscribe', subscription: { type: 'trades', coin: 'BTC' } })).toEqual(['trades:BTC'])
    expect(fixture<any[]>('hyperliquid/ws_trades_and_asset_ctx.json').map((f) => r.hyperliquid.frameStreams(f)[0])).toEqual(['trades:FXS', 'trades:FXS', 'trades:BTC', 'trades:BTC', 'activeAssetCtx:MOODENG'])
    expect(r.dydx.subscribedStreams({ type: 'subscribe', channel: 'v4_orderbook', id: 'BTC-USD', batched: true })).toEqual(['v4_orderbook:BTC-USD'])
    expect(r.dydx.frameStreams(fixture('dydx/ws_orderbook_snapshot.json'))).toEqual(['v4_orderbook:ETH-USD'])
    expect(r.dydx.frameStreams({ type: 'connected', connection_id: 'x' })).toEqual([])
  })
})

describe('WsReplay on a ccxt.pro instance', () => {
  const URL = 'wss://stream.bybit.com/v5/public/linear'
  const setup = () => {
    const ex = new ccxt.pro.bybit()
    ex.setMarkets(fixture('bybit/ccxt_markets.json'))
    const ws = new WsReplay('bybit', VENUE_RULES.bybit)
    ws.install(ex)
    return { ex, ws }
  }
  /** the watch call has registered what it waits for on the connection */
  const watcher = (ex: object) => until(() => Object.keys((ex as any).clients?.[URL]?.futures ?? {}).length > 0, 'the watcher')
  const tradeFrames = () => fixture<Array<{ data: Array<{ i: string }> }>>('bybit/ws_public_trade.json')

  it('a frame for a subscribed stream goes through CCXT\'s parser to the watcher', { timeout: 10_000 }, async () => {
    const { ex, ws } = setup()
    const watching = ex.watchTrades('BTC/USDT:USDT')
    await until(() => ws.subscriptions().includes('publicTrade.BTCUSDT'), 'the subscription')
    const frame = tradeFrames()[0]!
    expect(ws.deliver(wsLine('bybit', URL, frame), 0)).toBe('delivered')
    const trades = await watching
    expect(trades.map((t) => t.id)).toEqual(frame.data.map((d) => d.i))
    await ex.close()
  })

  it('a frame that arrives before its subscription waits for it; unattributable frames are skipped; old waiting frames expire', { timeout: 10_000 }, async () => {
    const { ex, ws } = setup()
    const [a, b] = tradeFrames()
    expect(ws.deliver(wsLine('bybit', URL, a, 0), 1_000)).toBe('pending')
    expect(ws.deliver(wsLine('bybit', URL, { op: 'pong', success: true }), 1_000)).toBe('skipped')
    expect(ws.deliver(wsLine('bybit', URL, { topic: 'publicTrade.ETHUSDT', data: [] }), 1_000)).toBe('pending')
    ws.expire(1_000 + 60_000, 60_000)
    expect(ws.pendingCount()).toBe(2)
    const trades = await ex.watchTrades('BTC/USDT:USDT')
    expect(trades.map((t) => t.id)).toEqual(a!.data.map((d) => d.i))
    // later frames for the stream queue behind it, in order
    const next = ex.watchTrades('BTC/USDT:USDT')
    await watcher(ex)
    ws.deliver(wsLine('bybit', URL, b), 2_000)
    expect((await next).map((t) => t.id)).toEqual(b!.data.map((d) => d.i))
    ws.expire(1_000 + 60_001, 60_000)
    expect(ws.pendingCount()).toBe(0)
    expect(ws.expired).toBe(1)
    await ex.close()
  })
})
