// Bybit v5 connector on recorded payloads: /work/shared/fixtures/exchanges/bybit (see SOURCES.md).
import ccxt from 'ccxt'
import { afterEach, describe, expect, it } from 'vitest'
import { BybitConnector, bybitOneSidedOi, bybitOpenInterestEvent, bybitPerpTicker } from '../../../src/sources/connectors/bybit.js'
import { klineFromOhlcv } from '../../../src/sources/connectors/klines.js'
import { marketRef, partsFromTicker, tickerEvent } from '../../../src/sources/connectors/mapping.js'
import { fixture, fixtureText, offlineHttp, offlineWs, RecordingSink, waitFor, wsClient } from './offline.js'

const running: BybitConnector[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((c) => c.stop()))
})
function connector(opts: ConstructorParameters<typeof BybitConnector>[0]) {
  const c = new BybitConnector(opts)
  running.push(c)
  return c
}
const OFF = { liquidations: false, positioning: false, trades: false, books: false, tickers: false, openInterest: false, funding: false }

function withMarkets<T extends { setMarkets(m: unknown): unknown }>(ex: T): T {
  ex.setMarkets(fixture('bybit/ccxt_markets.json'))
  return ex
}

describe('bybit markets (instruments.json, ccxt_markets.json)', () => {
  it('loads linear markets from the recorded instruments-info through the connector', async () => {
    const ex = new ccxt.pro.bybit()
    const requests = offlineHttp(ex, [['/v5/market/instruments-info', fixtureText('bybit/instruments.json')]])
    const c = connector({ coins: ['BTC', 'ETH', 'SOL', 'XRP'], sink: new RecordingSink(), ccxtExchange: ex, marketTypes: ['perp'], streams: OFF })
    await c.start()
    expect(requests.every((r) => r.url.includes('category=linear'))).toBe(true)
    expect(c.markets().map((m) => [m.coin, m.symbol, m.id, m.contractSize])).toEqual([
      ['BTC', 'BTC/USDT:USDT', 'BTCUSDT', 1],
      ['ETH', 'ETH/USDT:USDT', 'ETHUSDT', 1],
      ['SOL', 'SOL/USDT:USDT', 'SOLUSDT', 1],
    ])
    const raw = fixture('bybit/instruments.json').result.list.find((i: any) => i.symbol === 'BTCUSDT')
    expect(ex.markets!['BTC/USDT:USDT']!.info.fundingInterval).toBe(raw.fundingInterval)
  })

  it('ccxt_markets.json resolves perp and spot', () => {
    const ex = withMarkets(new ccxt.pro.bybit())
    const c = new BybitConnector({ coins: ['BTC'], sink: new RecordingSink(), ccxtExchange: ex })
    const find = (c as any).findMarket.bind(c)
    expect(find(ex, 'BTC', 'perp').symbol).toBe('BTC/USDT:USDT')
    expect(find(ex, 'ETH', 'spot').symbol).toBe('ETH/USDT')
    expect(find(ex, 'SOL', 'perp')).toBeUndefined()
  })
})

describe('bybit tickers and open interest (tickers.json, tickers_testnet.json, open_interest.json)', () => {
  it('one /v5/market/tickers call -> mark, index, last, funding, interval from fundingInterval; OI from the same row', async () => {
    const ex = withMarkets(new ccxt.pro.bybit())
    const requests = offlineHttp(ex, [['/v5/market/tickers', fixtureText('bybit/tickers.json')]])
    const sink = new RecordingSink()
    const c = connector({ coins: ['BTC'], sink, ccxtExchange: ex, marketTypes: ['perp'], streams: { liquidations: false, positioning: false, trades: false, books: false, funding: false } })
    await c.start()
    await waitFor(() => sink.of('ticker').length > 0 && sink.of('open_interest').length > 0)
    const body = fixture('bybit/tickers.json')
    const row = body.result.list[0]
    expect(sink.of('ticker')[0]).toMatchObject({
      type: 'ticker',
      exchange: 'bybit',
      coin: 'BTC',
      marketType: 'perp',
      ts: Number(body.time), // response time; CCXT stringified it in this recording
      markPrice: Number(row.markPrice),
      indexPrice: Number(row.indexPrice),
      lastPrice: Number(row.lastPrice),
      fundingRate: Number(row.fundingRate),
      fundingIntervalHours: Number(ex.markets!['BTC/USDT:USDT']!.info.fundingInterval) / 60,
      nextFundingTime: Number(row.nextFundingTime),
    })
    // open interest: the real-time tickers row, not the 5-minute /v5/market/open-interest bucket. This 2024 row predates
    // Bybit's two-sided change and has no singleOpenInterest, so its openInterest is the one-sided figure.
    expect(row.singleOpenInterest).toBeUndefined()
    expect(requests.some((r) => r.url.includes('/v5/market/open-interest'))).toBe(false)
    // one poll reads both: the tickers call is not made a second time for the open interest
    expect(requests.filter((r) => r.url.includes('/v5/market/tickers'))).toHaveLength(1)
    expect(sink.of('open_interest')[0]).toEqual({
      type: 'open_interest', exchange: 'bybit', coin: 'BTC', marketType: 'perp', ts: Number(body.time), openInterest: Number(row.openInterest),
    })
  })

  it('since the 2026 change openInterest is both sides: OI is singleOpenInterest, exactly half (ws_tickers.json through ccxt.pro)', () => {
    const ex = withMarkets(new ccxt.pro.bybit())
    const client = wsClient(ex, 'wss://stream.bybit.com/v5/public/linear')
    const ref = marketRef('bybit', 'BTC', ex.markets!['BTC/USDT:USDT']!)
    const merged: Record<string, string> = {}
    let checked = 0
    for (const f of fixture<any[]>('bybit/ws_tickers.json')) {
      ex.handleMessage(client, f)
      Object.assign(merged, f.data)
      // the recording itself: the one-sided figure is half the documented both-sides figure
      expect(Number(merged['singleOpenInterest']) * 2).toBeCloseTo(Number(merged['openInterest']), 6)
      const e = bybitOpenInterestEvent(ref, ex.tickers['BTC/USDT:USDT']!.info, f.ts)
      expect(e).toEqual({ type: 'open_interest', exchange: 'bybit', coin: 'BTC', marketType: 'perp', ts: f.ts, openInterest: Number(merged['singleOpenInterest']) })
      checked++
    }
    expect(checked).toBe(30)
  })

  it('/v5/market/open-interest (open_interest.json, 2025) parses through CCXT, but the connector no longer polls it', async () => {
    const ex = withMarkets(new ccxt.bybit())
    offlineHttp(ex, [['/v5/market/open-interest', fixtureText('bybit/open_interest.json')]])
    const oi = await ex.fetchOpenInterest('BTC/USDT:USDT', { intervalTime: '5min' })
    const raw = fixture('bybit/open_interest.json').result.list[0]
    // a 5-minute bucket stamped at its start (older than the response time), without singleOpenInterest in 2025
    expect(oi.openInterestAmount).toBe(Number(raw.openInterest))
    expect(oi.timestamp).toBe(Number(raw.timestamp))
    expect(Number(raw.timestamp)).toBeLessThan(fixture('bybit/open_interest.json').time)
    expect(bybitOneSidedOi(raw)).toBe(Number(raw.openInterest))
  })

  it('the testnet ticker body maps through fetchTicker (mark, index, last)', async () => {
    const ex = withMarkets(new ccxt.bybit())
    offlineHttp(ex, [['/v5/market/tickers', fixtureText('bybit/tickers_testnet.json')]])
    const row = fixture('bybit/tickers_testnet.json').result.list[0]
    const ref = marketRef('bybit', 'BTC', ex.markets!['BTC/USDT:USDT']!)
    const e = tickerEvent(ref, partsFromTicker(await ex.fetchTicker('BTC/USDT:USDT')), 42)
    expect(e).toMatchObject({ markPrice: Number(row.markPrice), indexPrice: Number(row.indexPrice), lastPrice: Number(row.lastPrice) })
    // fetchFundingRates on the same body: rate and next settlement
    const fr = (await ex.fetchFundingRates(['BTC/USDT:USDT']))['BTC/USDT:USDT']!
    expect(bybitPerpTicker(ref, fr, 42, (h) => h ?? 8)).toMatchObject({
      fundingRate: Number(row.fundingRate),
      nextFundingTime: Number(row.nextFundingTime),
      fundingIntervalHours: 8,
    })
  })

  it('websocket tickers: snapshot + deltas merged by ccxt.pro, then the same mapping as REST (ws_tickers.json)', () => {
    const ex = withMarkets(new ccxt.pro.bybit())
    const client = wsClient(ex, 'wss://stream.bybit.com/v5/public/linear')
    const frames = fixture<any[]>('bybit/ws_tickers.json')
    const ref = marketRef('bybit', 'BTC', ex.markets!['BTC/USDT:USDT']!)
    // expected: the snapshot with every delta's fields laid over it, in order
    const merged: Record<string, string> = {}
    for (const f of frames) {
      ex.handleMessage(client, f)
      Object.assign(merged, f.data)
      const t = ex.tickers['BTC/USDT:USDT']!
      const e = bybitPerpTicker(ref, ex.parseFundingRate(t.info, ex.markets!['BTC/USDT:USDT']), f.ts, (h) => h ?? 8)
      expect(e).toMatchObject({
        markPrice: Number(merged['markPrice']),
        indexPrice: Number(merged['indexPrice']),
        lastPrice: Number(merged['lastPrice']),
        fundingRate: Number(merged['fundingRate']),
        nextFundingTime: Number(merged['nextFundingTime']),
        fundingIntervalHours: Number(merged['fundingIntervalHour']),
      })
      expect(tickerEvent(ref, partsFromTicker(t), 0).ts).toBe(f.ts)
    }
  })
})

describe('bybit order book (orderbook.json, ws_orderbook.json)', () => {
  it('websocket snapshot + deltas through the connector equal an independent replay', async () => {
    const ex = withMarkets(new ccxt.pro.bybit())
    offlineHttp(ex, [])
    const ws = offlineWs(ex)
    const sink = new RecordingSink()
    const c = connector({ coins: ['BTC'], sink, ccxtExchange: ex, marketTypes: ['perp'], bookIntervalMs: 0, bookBand: 1, streams: { ...OFF, books: true } })
    await c.start()
    await waitFor(() => ws.sent.length > 0, 2000, 'subscribe')
    expect(ws.sent[0]!.message).toMatchObject({ op: 'subscribe', args: ['orderbook.1000.BTCUSDT'] })
    const frames = fixture<any[]>('bybit/ws_orderbook.json')
    const bids = new Map<number, number>()
    const asks = new Map<number, number>()
    for (const f of frames) {
      if (f.type === 'snapshot') {
        bids.clear()
        asks.clear()
      }
      for (const [p, q] of f.data.b) Number(q) === 0 ? bids.delete(Number(p)) : bids.set(Number(p), Number(q))
      for (const [p, q] of f.data.a) Number(q) === 0 ? asks.delete(Number(p)) : asks.set(Number(p), Number(q))
      ws.push(f)
      await waitFor(() => sink.of('book').at(-1)?.ts === f.ts, 2000, `book at ${f.ts}`)
      const book = sink.of('book').at(-1)!
      expect(book.bids).toEqual([...bids].sort((a, b) => b[0] - a[0]).map(([price, size]) => ({ price, size })))
      expect(book.asks).toEqual([...asks].sort((a, b) => a[0] - b[0]).map(([price, size]) => ({ price, size })))
      // the frames carry orderbook.200 (200 levels a side): a full side reaches its deepest level, not the whole book
      expect(book.bidEnd).toBe(bids.size >= 200 ? Math.min(...bids.keys()) : null)
      expect(book.askEnd).toBe(asks.size >= 200 ? Math.max(...asks.keys()) : null)
    }
    expect(sink.of('book').length).toBe(frames.length)
    expect(sink.of('book').at(-1)!.bidEnd).not.toBeNull()
  })

  it('REST fallback reads /v5/market/orderbook with the REST depth cap', async () => {
    const ex = withMarkets(new ccxt.bybit())
    const requests = offlineHttp(ex, [['/v5/market/orderbook', fixtureText('bybit/orderbook.json')]])
    const sink = new RecordingSink()
    const c = connector({ coins: ['BTC'], sink, ccxtExchange: ex as any, marketTypes: ['perp'], bookBand: 1, streams: { ...OFF, books: true } })
    await c.start()
    await waitFor(() => sink.of('book').length > 0)
    expect(requests[0]!.url).toContain('limit=500')
    const raw = fixture('bybit/orderbook.json').result
    expect(sink.of('book')[0]).toMatchObject({
      ts: Number(raw.ts),
      bids: raw.b.map(([p, q]: string[]) => ({ price: Number(p), size: Number(q) })),
      asks: raw.a.map(([p, q]: string[]) => ({ price: Number(p), size: Number(q) })),
    })
  })
})

describe('bybit trades (recent_trades.json, ws_public_trade.json)', () => {
  it('websocket publicTrade frames -> TradeEvents (S = taker side, i = id)', async () => {
    const ex = withMarkets(new ccxt.pro.bybit())
    offlineHttp(ex, [])
    const ws = offlineWs(ex)
    const sink = new RecordingSink()
    const c = connector({ coins: ['BTC'], sink, ccxtExchange: ex, marketTypes: ['perp'], streams: { ...OFF, trades: true } })
    await c.start()
    await waitFor(() => ws.sent.length > 0, 2000, 'subscribe')
    expect(ws.sent[0]!.message.args).toEqual(['publicTrade.BTCUSDT'])
    const frames = fixture<any[]>('bybit/ws_public_trade.json')
    const rows = frames.flatMap((f) => f.data)
    for (const f of frames) {
      ws.push(f)
      await new Promise((r) => setImmediate(r))
    }
    await waitFor(() => sink.of('trade').length === rows.length, 2000, 'all trades')
    const byId = new Map(sink.of('trade').map((t) => [t.id, t]))
    for (const r of rows) {
      expect(byId.get(r.i)).toMatchObject({ coin: 'BTC', ts: r.T, price: Number(r.p), size: Number(r.v), side: r.S === 'Buy' ? 'buy' : 'sell' })
    }
  })

  it('REST fallback maps /v5/market/recent-trade', async () => {
    const ex = withMarkets(new ccxt.bybit())
    offlineHttp(ex, [['/v5/market/recent-trade', fixtureText('bybit/recent_trades.json')]])
    const sink = new RecordingSink()
    const c = connector({ coins: ['BTC'], sink, ccxtExchange: ex as any, marketTypes: ['perp'], streams: { ...OFF, trades: true } })
    await c.start()
    await waitFor(() => sink.of('trade').length > 0)
    const r = fixture('bybit/recent_trades.json').result.list[0]
    expect(sink.of('trade')).toEqual([
      { type: 'trade', exchange: 'bybit', coin: 'BTC', marketType: 'perp', ts: Number(r.time), id: r.execId, price: Number(r.price), size: Number(r.size), side: 'buy' },
    ])
  })
})

describe('bybit klines (klines.json, ws_kline.json)', () => {
  it('fetchKlines via CCXT fetchOHLCV: newest-first rows come back oldest first, volume in coins', async () => {
    const ex = withMarkets(new ccxt.pro.bybit())
    const requests = offlineHttp(ex, [['/v5/market/kline', fixtureText('bybit/klines.json')]])
    const c = new BybitConnector({ coins: ['BTC'], sink: new RecordingSink(), ccxtExchange: ex, marketTypes: ['perp'] })
    const klines = await c.fetchKlines('BTC', 'perp', { timeframe: '1h', limit: 3 })
    expect(requests[0]!.url).toMatch(/interval=60/)
    const rows = [...fixture('bybit/klines.json').result.list].reverse()
    expect(klines).toEqual(rows.map((r: string[]) => ({ ts: Number(r[0]), open: Number(r[1]), high: Number(r[2]), low: Number(r[3]), close: Number(r[4]), volume: Number(r[5]) })))
  })

  it('kline.1 frames through the ccxt.pro handler; the confirm frame closes the 1-minute bar', () => {
    const ex = withMarkets(new ccxt.pro.bybit())
    const client = wsClient(ex, 'wss://stream.bybit.com/v5/public/linear')
    const frames = fixture<any[]>('bybit/ws_kline.json')
    for (const f of frames) ex.handleMessage(client, f)
    const cached = (ex.ohlcvs['BTC/USDT:USDT'] as any)['1m'].map(klineFromOhlcv)
    const lastOf = (start: number) => frames.filter((f) => f.data[0].start === start).at(-1)!.data[0]
    const starts = [...new Set(frames.map((f) => f.data[0].start as number))]
    expect(cached.map((k: any) => k.ts)).toEqual(starts)
    for (const [i, start] of starts.entries()) {
      const k = lastOf(start)
      expect(cached[i]).toEqual({ ts: start, open: Number(k.open), high: Number(k.high), low: Number(k.low), close: Number(k.close), volume: Number(k.volume) })
    }
    expect(lastOf(1786310760000).confirm).toBe(true)
  })
})
