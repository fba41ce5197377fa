// dYdX v4 connector on recorded payloads: /work/shared/fixtures/exchanges/dydx (see SOURCES.md). The NT http_*
// recordings wrap the indexer body in {requestId, status, isoTimestamp, result}: the HTTP body served is `result`.
import ccxt from 'ccxt'
import { afterEach, describe, expect, it } from 'vitest'
import { DydxConnector, dydxTickerParts, installDydxWsFixes, parseDydxMarketsMessage, parseDydxPerpetualMarkets } from '../../../src/sources/connectors/dydx.js'
import { klineFromOhlcv } from '../../../src/sources/connectors/klines.js'
import { bookEvent, marketRef } from '../../../src/sources/connectors/mapping.js'
import { dydxBody, fixture, offlineHttp, offlineWs, RecordingSink, waitFor, wsClient } from './offline.js'

const running: DydxConnector[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((c) => c.stop()))
})
function connector(opts: ConstructorParameters<typeof DydxConnector>[0]) {
  const c = new DydxConnector(opts)
  running.push(c)
  return c
}
const OFF = { trades: false, books: false, tickers: false, openInterest: false, funding: false }
const HOUR = 3_600_000
const markets = () => fixture('dydx/perpetual_markets.json').result.markets as Record<string, Record<string, any>>

function loaded<T extends { parseMarket(m: unknown): unknown; setMarkets(m: unknown): unknown }>(ex: T): T {
  ex.setMarkets(Object.values(markets()).map((m) => ex.parseMarket(m)))
  return ex
}

describe('dydx markets, tickers, open interest (perpetual_markets.json, ccxt_markets.json)', () => {
  it('one GET /v4/perpetualMarkets body: markets, oracle price as mark and index, hourly funding, one-sided OI', async () => {
    const ex = new ccxt.pro.dydx()
    const requests = offlineHttp(ex, [['/v4/perpetualMarkets', dydxBody('dydx/perpetual_markets.json')]])
    const sink = new RecordingSink()
    const now = Date.UTC(2025, 11, 8, 16, 12)
    const c = connector({ coins: ['BTC', 'ETH', 'SOL'], sink, ccxtExchange: ex, now: () => now, streams: { ...OFF, tickers: true, openInterest: true } })
    await c.start()
    await waitFor(() => sink.of('ticker').length === 3 && sink.of('open_interest').length === 3)
    expect(new Set(requests.map((r) => new URL(r.url).pathname))).toEqual(new Set(['/v4/perpetualMarkets']))
    expect(c.markets().map((m) => [m.coin, m.id, m.contractSize])).toEqual([
      ['BTC', 'BTC-USD', 1],
      ['ETH', 'ETH-USD', 1],
      ['SOL', 'SOL-USD', 1],
    ])
    for (const coin of ['BTC', 'ETH', 'SOL']) {
      const m = markets()[`${coin}-USD`]!
      expect(sink.of('ticker').find((t) => t.coin === coin)).toEqual({
        type: 'ticker',
        exchange: 'dydx',
        coin,
        marketType: 'perp',
        ts: now,
        markPrice: Number(m['oraclePrice']),
        indexPrice: Number(m['oraclePrice']),
        lastPrice: null,
        fundingRate: Number(m['nextFundingRate']),
        fundingIntervalHours: 1,
        nextFundingTime: Date.UTC(2025, 11, 8, 17),
      })
      // openInterest, not baseOpenInterest (the OI-cap baseline)
      expect(sink.of('open_interest').find((e) => e.coin === coin)).toMatchObject({ ts: now, openInterest: Number(m['openInterest']) })
    }
  })

  it('ccxt_markets.json (testnet) loads with setMarkets and resolves BTC', () => {
    const ex = new ccxt.pro.dydx()
    ex.setMarkets(fixture('dydx/ccxt_markets.json'))
    const c = new DydxConnector({ coins: ['BTC'], sink: new RecordingSink(), ccxtExchange: ex })
    const m = (c as any).findMarket(ex, 'BTC')
    expect(marketRef('dydx', 'BTC', m)).toMatchObject({ symbol: 'BTC/USDC:USDC', id: 'BTC-USD', contractSize: 1, marketType: 'perp' })
    // the raw indexer entry CCXT keeps in info parses like the REST body
    expect(parseDydxPerpetualMarkets({ markets: { 'BTC-USD': m.info } })[0]).toEqual({
      ticker: 'BTC-USD',
      oraclePrice: Number(m.info.oraclePrice),
      openInterest: Number(m.info.openInterest),
      nextFundingRate: Number(m.info.nextFundingRate),
    })
  })
})

describe('dydx REST trades, book, funding, candles (trades.json, orderbook.json, historical_funding.json, candles.json)', () => {
  it('REST fallback: trades (taker side BUY/SELL, createdAt) and book', async () => {
    const ex = loaded(new ccxt.dydx())
    offlineHttp(ex, [
      ['/v4/trades/perpetualMarket/BTC-USD', dydxBody('dydx/trades.json')],
      ['/v4/orderbooks/perpetualMarket/BTC-USD', dydxBody('dydx/orderbook.json')],
    ])
    const sink = new RecordingSink()
    const now = 1765210320000
    const c = connector({ coins: ['BTC'], sink, ccxtExchange: ex as any, now: () => now, bookBand: 1, streams: { ...OFF, trades: true, books: true } })
    await c.start()
    const rows = fixture('dydx/trades.json').result.trades as any[]
    await waitFor(() => sink.of('trade').length === rows.length && sink.of('book').length > 0)
    for (const r of rows) {
      expect(sink.of('trade').find((t) => t.id === r.id)).toMatchObject({ ts: Date.parse(r.createdAt), price: Number(r.price), size: Number(r.size), side: r.side.toLowerCase() })
    }
    const ob = fixture('dydx/orderbook.json').result
    expect(sink.of('book')[0]).toMatchObject({
      ts: now, // the indexer book carries no time
      bids: ob.bids.map((l: any) => ({ price: Number(l.price), size: Number(l.size) })),
      asks: ob.asks.map((l: any) => ({ price: Number(l.price), size: Number(l.size) })),
    })
  })

  it('settled funding: hourly rows, interval inferred as 1 h', async () => {
    const ex = loaded(new ccxt.pro.dydx())
    const requests = offlineHttp(ex, [['/v4/historicalFunding/BTC-USD', dydxBody('dydx/historical_funding.json')]])
    const sink = new RecordingSink()
    const c = connector({ coins: ['BTC'], sink, ccxtExchange: ex, streams: { ...OFF, funding: true } })
    await c.start()
    const rows = fixture('dydx/historical_funding.json').result.historicalFunding as any[]
    await waitFor(() => sink.of('funding').length === rows.length)
    expect(requests[0]!.url).toContain('limit=10')
    expect(sink.of('funding').map((f) => [f.ts, f.rate, f.intervalHours])).toEqual(
      [...rows].reverse().map((r) => [Date.parse(r.effectiveAt), Number(r.rate), 1]),
    )
  })

  it('fetchKlines: 1MIN candles oldest first, volume = baseTokenVolume', async () => {
    const ex = loaded(new ccxt.pro.dydx())
    const requests = offlineHttp(ex, [['/v4/candles/perpetualMarkets/BTC-USD', dydxBody('dydx/candles.json')]])
    const c = new DydxConnector({ coins: ['BTC'], sink: new RecordingSink(), ccxtExchange: ex })
    const klines = await c.fetchKlines('BTC', 'perp', { limit: 3 })
    expect(requests[0]!.url).toContain('resolution=1MIN')
    const rows = [...fixture('dydx/candles.json').result.candles].reverse()
    expect(klines).toEqual(rows.map((r: any) => ({ ts: Date.parse(r.startedAt), open: Number(r.open), high: Number(r.high), low: Number(r.low), close: Number(r.close), volume: Number(r.baseTokenVolume) })))
  })
})

describe('dydx websocket (ws_orderbook_snapshot/batched/update.json, ws_trades.json, ws_candles.json)', () => {
  it('book: subscribed snapshot + a batched frame through the connector (batches unrolled) equal an independent replay', async () => {
    const ex = loaded(new ccxt.pro.dydx())
    offlineHttp(ex, [])
    const ws = offlineWs(ex)
    const sink = new RecordingSink()
    const c = connector({ coins: ['ETH'], sink, ccxtExchange: ex, bookIntervalMs: 0, bookBand: 1, streams: { ...OFF, books: true } })
    await c.start()
    await waitFor(() => ws.sent.length > 0, 2000, 'subscribe')
    expect(ws.sent[0]!.message).toEqual({ type: 'subscribe', channel: 'v4_orderbook', id: 'ETH-USD', batched: true })
    const snapshot = fixture('dydx/ws_orderbook_snapshot.json')
    const batched = fixture('dydx/ws_orderbook_batched.json')
    const bids = new Map<number, number>(snapshot.contents.bids.map((l: any) => [Number(l.price), Number(l.size)]))
    const asks = new Map<number, number>(snapshot.contents.asks.map((l: any) => [Number(l.price), Number(l.size)]))
    ws.push(snapshot)
    await waitFor(() => sink.of('book').length === 1, 2000, 'snapshot book')
    expect(sink.of('book')[0]!.bids.length).toBe(bids.size)
    for (const u of batched.contents) {
      for (const [p, q] of u.bids ?? []) Number(q) === 0 ? bids.delete(Number(p)) : bids.set(Number(p), Number(q))
      for (const [p, q] of u.asks ?? []) Number(q) === 0 ? asks.delete(Number(p)) : asks.set(Number(p), Number(q))
    }
    ws.push(batched)
    await waitFor(() => (ex.orderbooks['ETH/USDC:USDC'] as any)?.nonce === batched.message_id && sink.of('book').length === 2, 2000, 'batched book')
    const book = sink.of('book').at(-1)!
    // the two recordings come from different sessions (3393 vs 2396 USD), so the merged book is crossed; the
    // replay is what matters: CCXT alone would have ignored every update in the batch
    expect(book.bids).toEqual([...bids].sort((a, b) => b[0] - a[0]).map(([price, size]) => ({ price, size })))
    expect(book.asks).toEqual([...asks].sort((a, b) => a[0] - b[0]).map(([price, size]) => ({ price, size })))

    // a resubscription snapshot replaces the book instead of merging into it
    ws.push(snapshot)
    await waitFor(() => sink.of('book').length === 3, 2000, 'resnapshot')
    expect(sink.of('book')[2]!.bids).toEqual(sink.of('book')[0]!.bids)
  })

  it('control: plain CCXT reads a channel_batch_data frame as empty (why installDydxWsFixes exists)', () => {
    const ex = loaded(new ccxt.pro.dydx())
    const client = wsClient(ex, 'wss://indexer.dydx.trade/v4/ws')
    const snapshot = fixture('dydx/ws_orderbook_snapshot.json')
    ex.handleMessage(client, snapshot)
    const before = (ex.orderbooks['ETH/USDC:USDC'] as any).bids.length
    ex.handleMessage(client, fixture('dydx/ws_orderbook_batched.json'))
    expect((ex.orderbooks['ETH/USDC:USDC'] as any).bids.length).toBe(before)
    expect(before).toBe(snapshot.contents.bids.length)
  })

  it('book: a channel_data delete of a level we do not hold leaves an empty book and emits nothing', () => {
    const ex = loaded(new ccxt.pro.dydx())
    installDydxWsFixes(ex)
    const update = fixture('dydx/ws_orderbook_update.json')
    ex.handleMessage(wsClient(ex, 'wss://indexer.dydx.trade/v4/ws'), update)
    const ob = ex.orderbooks['BTC/USDC:USDC'] as any
    expect(ob.nonce).toBe(update.message_id)
    expect(ob.bids.length).toBe(0)
    expect(bookEvent(marketRef('dydx', 'BTC', ex.markets!['BTC/USDC:USDC']!), ob, { now: 0 })).toBeNull()
  })

  it('trades: channel_data frame -> TradeEvents through the connector', async () => {
    const ex = loaded(new ccxt.pro.dydx())
    offlineHttp(ex, [])
    const ws = offlineWs(ex)
    const sink = new RecordingSink()
    const c = connector({ coins: ['ETH'], sink, ccxtExchange: ex, streams: { ...OFF, trades: true } })
    await c.start()
    await waitFor(() => ws.sent.length > 0, 2000, 'subscribe')
    expect(ws.sent[0]!.message).toEqual({ type: 'subscribe', channel: 'v4_trades', id: 'ETH-USD' })
    const frame = fixture('dydx/ws_trades.json')
    ws.push(frame)
    await waitFor(() => sink.of('trade').length === frame.contents.trades.length, 2000, 'trades')
    for (const r of frame.contents.trades) {
      expect(sink.of('trade').find((t) => t.id === r.id)).toMatchObject({ coin: 'ETH', ts: Date.parse(r.createdAt), price: Number(r.price), size: Number(r.size), side: r.side.toLowerCase() })
    }
  })

  it('candles: a v4_candles frame through the ccxt.pro handler', () => {
    const ex = loaded(new ccxt.pro.dydx())
    const frame = fixture('dydx/ws_candles.json')
    ex.handleMessage(wsClient(ex, 'wss://indexer.dydx.trade/v4/ws'), frame)
    const c = frame.contents
    expect(klineFromOhlcv((ex.ohlcvs['ETH/USDC:USDC'] as any)['1m'].at(-1))).toEqual({
      ts: Date.parse(c.startedAt),
      open: Number(c.open),
      high: Number(c.high),
      low: Number(c.low),
      close: Number(c.close),
      volume: Number(c.baseTokenVolume),
    })
  })
})

describe('dydx v4_markets frames (ws_markets_oracle_price.json, ws_markets_trading.json) — not handled by CCXT', () => {
  it('oraclePrices -> oracle price and time; mapped like the REST ticker', () => {
    const frame = fixture('dydx/ws_markets_oracle_price.json')
    const p = frame.contents.oraclePrices['FTM-USD']
    const updates = parseDydxMarketsMessage(frame)
    expect(updates).toEqual([{ ticker: 'FTM-USD', oraclePrice: Number(p.oraclePrice), oracleTs: Date.parse(p.effectiveAt) }])
    const parts = dydxTickerParts(updates[0]!, Date.parse(p.effectiveAt))
    expect(parts).toMatchObject({ ts: Date.parse(p.effectiveAt), markPrice: Number(p.oraclePrice), indexPrice: Number(p.oraclePrice), fundingRate: null, fundingIntervalHours: 1 })
    expect(parts.nextFundingTime! % HOUR).toBe(0)
  })

  it('trading updates carrying only baseOpenInterest yield nothing (it is the OI-cap baseline, not OI)', () => {
    const frame = fixture('dydx/ws_markets_trading.json')
    expect(frame.contents.trading['CRO-USD'].baseOpenInterest).toBeDefined()
    expect(parseDydxMarketsMessage(frame)).toEqual([])
    expect(parseDydxMarketsMessage({ channel: 'v4_trades', contents: {} })).toEqual([])
  })
})
