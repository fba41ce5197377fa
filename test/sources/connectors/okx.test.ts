// OKX v5 connector on recorded payloads: /work/shared/fixtures/exchanges/okx (see SOURCES.md).
import ccxt from 'ccxt'
import { afterEach, describe, expect, it } from 'vitest'
import { bookEvent, marketRef, partsFromTicker, tickerEvent, tradeEvent } from '../../../src/sources/connectors/mapping.js'
import { installOkxChecksum, okxChecksum, OkxConnector, okxIndexId, parseOkxIndexTickers } from '../../../src/sources/connectors/okx.js'
import { fixture, fixtureText, offlineHttp, offlineWs, RecordingSink, waitFor, wsClient } from './offline.js'

const running: OkxConnector[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((c) => c.stop()))
})
function connector(opts: ConstructorParameters<typeof OkxConnector>[0]) {
  const c = new OkxConnector(opts)
  running.push(c)
  return c
}
const OFF = { liquidations: false, positioning: false, trades: false, books: false, tickers: false, openInterest: false, funding: false }

function withMarkets<T extends { setMarkets(m: unknown): unknown }>(ex: T): T {
  ex.setMarkets(fixture('okx/ccxt_markets.json'))
  return ex
}

/**
 * The recorded 2022 websocket session is for UNI-USD-SWAP, an INVERSE (coin-margined) swap not in our fixtures'
 * instruments. Its market is the recorded BTC-USDT-SWAP instrument with the inverse fields set as OKX specifies the
 * contract (ctType inverse, ctVal 10 USD, settled in UNI): ctVal 10 is OKX's published contract size, not recorded.
 */
function uniInverseMarket(ex: InstanceType<typeof ccxt.pro.okx>) {
  const btc = fixture('okx/instruments.json').data.find((d: any) => d.instId === 'BTC-USDT-SWAP')
  return ex.parseMarket({ ...btc, instId: 'UNI-USD-SWAP', ctType: 'inverse', ctVal: '10', ctValCcy: 'USD', settleCcy: 'UNI', uly: 'UNI-USD', tickSz: '0.001' })
}

describe('okx markets (instruments.json, ccxt_markets.json)', () => {
  it('loads SWAP markets from the recorded /public/instruments: contractSize = ctVal', async () => {
    const ex = new ccxt.pro.okx()
    const requests = offlineHttp(ex, [['/api/v5/public/instruments?instType=SWAP', fixtureText('okx/instruments.json')]])
    const c = connector({ coins: ['BTC', 'ETH', 'SOL'], sink: new RecordingSink(), ccxtExchange: ex, marketTypes: ['perp'], streams: OFF })
    await c.start()
    expect(requests).toHaveLength(1)
    const raw = fixture('okx/instruments.json').data
    expect(c.markets().map((m) => [m.coin, m.id, m.contractSize])).toEqual(raw.map((d: any) => [d.ctValCcy, d.instId, Number(d.ctVal)]))
  })

  it('ccxt_markets.json: BTC swap contractSize 0.01, ETH 0.1; spot markets resolve', () => {
    const ex = withMarkets(new ccxt.pro.okx())
    const c = new OkxConnector({ coins: ['BTC'], sink: new RecordingSink(), ccxtExchange: ex })
    const find = (c as any).findMarket.bind(c)
    expect(marketRef('okx', 'BTC', find(ex, 'BTC', 'perp')).contractSize).toBe(0.01)
    expect(marketRef('okx', 'ETH', find(ex, 'ETH', 'perp')).contractSize).toBe(0.1)
    expect(find(ex, 'BTC', 'spot').symbol).toBe('BTC/USDT')
  })
})

describe('okx tickers, open interest, funding (mark_price, index_price, ticker_spot, open_interest, funding_rate_history)', () => {
  it('assembles perp tickers from mark-price + index-tickers and spot tickers from market/tickers', async () => {
    const ex = withMarkets(new ccxt.pro.okx())
    const requests = offlineHttp(ex, [
      ['/api/v5/public/mark-price', fixtureText('okx/mark_price.json')],
      ['/api/v5/market/index-tickers', fixtureText('okx/index_price.json')],
      ['/api/v5/market/tickers?instType=SPOT', fixtureText('okx/ticker_spot.json')],
      // the recorded spot ticker body is the only tickers body there is; for SWAP it holds no swap rows
      ['/api/v5/market/tickers?instType=SWAP', fixtureText('okx/ticker_spot.json')],
      // no recording of /public/funding-rate exists (SOURCES.md): left unanswered -> partial failure, counted
    ])
    const sink = new RecordingSink()
    const c = connector({ coins: ['BTC'], sink, ccxtExchange: ex, streams: { ...OFF, tickers: true } })
    await c.start()
    await waitFor(() => sink.of('ticker').length >= 2)
    expect(requests.find((r) => r.url.includes('index-tickers'))!.url).toContain('quoteCcy=USDT')
    const mark = fixture('okx/mark_price.json').data[0]
    const idx = fixture('okx/index_price.json').data[0]
    const spot = fixture('okx/ticker_spot.json').data[0]
    const perpTicker = sink.of('ticker').find((t) => t.marketType === 'perp')!
    expect(perpTicker).toMatchObject({
      coin: 'BTC',
      markPrice: Number(mark.markPx),
      indexPrice: Number(idx.idxPx),
      lastPrice: null,
      fundingRate: null, // funding-rate call failed: the rest of the ticker still arrives
      fundingIntervalHours: 8,
      ts: Number(mark.ts), // the mark's own time, not the poll time
    })
    expect(sink.of('ticker').find((t) => t.marketType === 'spot')).toEqual({
      type: 'ticker',
      exchange: 'okx',
      coin: 'BTC',
      marketType: 'spot',
      ts: Number(spot.ts),
      markPrice: null,
      indexPrice: null,
      lastPrice: Number(spot.last),
      fundingRate: null,
      fundingIntervalHours: null,
      nextFundingTime: null,
    })
    expect(c.health().errors).toBeGreaterThan(0)
    expect(c.health().connected).toBe(true) // partial failures do not fail the loop
  })

  it('index tickers parse by instId; a SWAP maps to its underlying index', () => {
    const idx = parseOkxIndexTickers(fixture('okx/index_price.json'))
    const ex = withMarkets(new ccxt.pro.okx())
    const ref = marketRef('okx', 'BTC', ex.markets!['BTC/USDT:USDT']!)
    expect(okxIndexId(ref)).toBe('BTC-USDT')
    expect(idx.get('BTC-USDT')).toEqual({ price: 103895, ts: 1746942707815 })
  })

  it('open interest: contracts x ctVal = oiCcy coins; funding history: realizedRate, 8 h apart', async () => {
    const ex = withMarkets(new ccxt.pro.okx())
    const requests = offlineHttp(ex, [
      ['/api/v5/public/open-interest', fixtureText('okx/open_interest.json')],
      ['/api/v5/public/funding-rate-history', fixtureText('okx/funding_rate_history.json')],
    ])
    const sink = new RecordingSink()
    const c = connector({ coins: ['BTC'], sink, ccxtExchange: ex, marketTypes: ['perp'], streams: { ...OFF, openInterest: true, funding: true } })
    await c.start()
    await waitFor(() => sink.of('open_interest').length > 0 && sink.of('funding').length === 2)
    const oi = fixture('okx/open_interest.json').data[0]
    const e = sink.of('open_interest')[0]!
    expect(e.ts).toBe(Number(oi.ts))
    expect(e.openInterest).toBeCloseTo(Number(oi.oi) * 0.01, 9)
    expect(e.openInterest).toBeCloseTo(Number(oi.oiCcy), 9)
    const rows = fixture('okx/funding_rate_history.json').data
    expect(sink.of('funding').map((f) => [f.ts, f.rate, f.intervalHours])).toEqual(
      [...rows].reverse().map((r: any) => [Number(r.fundingTime), Number(r.realizedRate), 8]),
    )
    expect(requests.find((r) => r.url.includes('funding-rate-history'))!.url).toContain('instId=BTC-USDT-SWAP')
  })
})

describe('okx books and trades (orderbook.json, trades_spot.json, ws_books.json, ws_trades.json, ws_tickers.json)', () => {
  it('REST book: SWAP contracts converted to coins with ctVal', async () => {
    const ex = withMarkets(new ccxt.okx())
    const requests = offlineHttp(ex, [['/api/v5/market/books', fixtureText('okx/orderbook.json')]])
    const sink = new RecordingSink()
    const c = connector({ coins: ['BTC'], sink, ccxtExchange: ex as any, marketTypes: ['perp'], bookBand: 1, streams: { ...OFF, books: true } })
    await c.start()
    await waitFor(() => sink.of('book').length > 0)
    expect(requests.find((r) => r.url.includes('/api/v5/market/books?'))!.url).toContain('sz=400')
    const raw = fixture('okx/orderbook.json').data[0]
    const conv = ([p, sz]: string[]) => ({ price: Number(p), size: Number(sz) * 0.01 })
    const book = sink.of('book')[0]!
    expect(book.ts).toBe(Number(raw.ts))
    expect(book.bids.map((l) => l.price)).toEqual(raw.bids.map(conv).map((l: any) => l.price))
    book.bids.forEach((l, i) => expect(l.size).toBeCloseTo(conv(raw.bids[i]).size, 9))
    book.asks.forEach((l, i) => expect(l.size).toBeCloseTo(conv(raw.asks[i]).size, 9))
  })

  it('REST spot trades: size already in coins, side is the taker side', async () => {
    const ex = withMarkets(new ccxt.okx())
    offlineHttp(ex, [['/api/v5/market/trades', fixtureText('okx/trades_spot.json')]])
    const sink = new RecordingSink()
    const c = connector({ coins: ['BTC'], sink, ccxtExchange: ex as any, marketTypes: ['spot'], streams: { ...OFF, trades: true } })
    await c.start()
    await waitFor(() => sink.of('trade').length > 0)
    const r = fixture('okx/trades_spot.json').data[0]
    expect(sink.of('trade')[0]).toEqual({ type: 'trade', exchange: 'okx', coin: 'BTC', marketType: 'spot', ts: Number(r.ts), id: r.tradeId, price: Number(r.px), size: Number(r.sz), side: r.side })
  })

  it('websocket books: snapshot + 29 updates through watchOrderBook, every CRC32 verified; inverse contracts -> coins', async () => {
    const ex = new ccxt.pro.okx()
    ex.setMarkets([uniInverseMarket(ex)])
    installOkxChecksum(ex) // what OkxConnector installs on its instance
    const ws = offlineWs(ex)
    const frames = fixture<any[]>('okx/ws_books.json')
    const ref = marketRef('okx', 'UNI', ex.markets!['UNI/USD:UNI']!)
    expect(ref).toMatchObject({ inverse: true, contractSize: 10 })
    const watching = ex.watchOrderBook('UNI/USD:UNI', 400)
    await waitFor(() => ws.sent.length > 0, 2000, 'subscribe')
    expect(ws.sent[0]!.message).toEqual({ op: 'subscribe', args: [{ channel: 'books', instId: 'UNI-USD-SWAP' }] })
    ws.push(frames[0])
    await watching
    const bids = new Map<number, number>()
    const asks = new Map<number, number>()
    for (const [i, f] of frames.entries()) {
      const d = f.data[0]
      for (const [p, q] of d.bids) Number(q) === 0 ? bids.delete(Number(p)) : bids.set(Number(p), Number(q))
      for (const [p, q] of d.asks) Number(q) === 0 ? asks.delete(Number(p)) : asks.set(Number(p), Number(q))
      if (i === 0) continue
      const next = ex.watchOrderBook('UNI/USD:UNI', 400)
      ws.push(f)
      const ob = await next // a checksum mismatch rejects here
      expect(ob.timestamp).toBe(Number(d.ts))
    }
    const e = bookEvent(ref, ex.orderbooks['UNI/USD:UNI'] as any, { band: 1, now: 0 })!
    const expected = (m: Map<number, number>, dir: 1 | -1) =>
      [...m].sort((a, b) => dir * (a[0] - b[0])).map(([price, contracts]) => ({ price, size: (contracts * 10) / price }))
    expect(e.bids.map((l) => l.price)).toEqual(expected(bids, -1).map((l) => l.price))
    e.bids.forEach((l, i) => expect(l.size).toBeCloseTo(expected(bids, -1)[i]!.size, 9))
    e.asks.forEach((l, i) => expect(l.size).toBeCloseTo(expected(asks, 1)[i]!.size, 9))
  })

  it('the checksum of every recorded frame matches OKX\'s; a corrupted update rejects the watch and resubscribes', async () => {
    const frames = fixture<any[]>('okx/ws_books.json')
    // independent replay with the wire strings
    const bids = new Map<number, [string, string]>()
    const asks = new Map<number, [string, string]>()
    for (const f of frames) {
      const d = f.data[0]
      for (const [p, q] of d.bids) Number(q) === 0 ? bids.delete(Number(p)) : bids.set(Number(p), [p, q])
      for (const [p, q] of d.asks) Number(q) === 0 ? asks.delete(Number(p)) : asks.set(Number(p), [p, q])
      const sorted = (m: Map<number, [string, string]>, dir: number) => [...m].sort((a, b) => dir * (a[0] - b[0])).map(([, l]) => l)
      expect(okxChecksum(sorted(bids, -1), sorted(asks, 1))).toBe(d.checksum)
    }

    const ex = new ccxt.pro.okx()
    ex.setMarkets([uniInverseMarket(ex)])
    installOkxChecksum(ex)
    const ws = offlineWs(ex)
    const first = ex.watchOrderBook('UNI/USD:UNI', 400)
    await waitFor(() => ws.sent.length === 1, 2000, 'subscribe')
    ws.push(frames[0])
    await first
    // a deliberately corrupted copy of the first update: one bid size changed, checksum left as recorded
    const corrupted = structuredClone(frames[1])
    corrupted.data[0].bids[0][1] = String(Number(corrupted.data[0].bids[0][1]) + 1)
    const next = ex.watchOrderBook('UNI/USD:UNI', 400)
    ws.push(corrupted)
    await expect(next).rejects.toThrow(/checksum/)
    expect(ex.orderbooks['UNI/USD:UNI']).toBeUndefined()
    const again = ex.watchOrderBook('UNI/USD:UNI', 400)
    await waitFor(() => ws.sent.length === 2, 2000, 'resubscribe')
    expect(ws.sent[1]!.message).toEqual(ws.sent[0]!.message)
    ws.push(frames[2]) // an update before the new snapshot is not checked against a stale book
    ws.push(frames[0])
    expect((await again).bids.length).toBeGreaterThan(0)
  })

  it('websocket trades and tickers through the ccxt.pro handler', () => {
    const ex = new ccxt.pro.okx()
    ex.setMarkets([uniInverseMarket(ex)])
    const ref = marketRef('okx', 'UNI', ex.markets!['UNI/USD:UNI']!)
    const client = wsClient(ex, 'wss://ws.okx.com:8443/ws/v5/public')
    const [tradeFrame] = fixture<any[]>('okx/ws_trades.json')
    ex.handleMessage(client, tradeFrame)
    const r = tradeFrame.data[0]
    const t = tradeEvent(ref, (ex.trades['UNI/USD:UNI'] as any).at(-1))!
    expect(t).toMatchObject({ ts: Number(r.ts), id: r.tradeId, price: Number(r.px), side: r.side })
    expect(t.size).toBeCloseTo((Number(r.sz) * 10) / Number(r.px), 9) // 100 contracts of 10 USD at 5.123
    const [tickerFrame] = fixture<any[]>('okx/ws_tickers.json')
    ex.handleMessage(client, tickerFrame)
    const tk = tickerFrame.data[0]
    expect(tickerEvent(ref, partsFromTicker(ex.tickers['UNI/USD:UNI']!), 0)).toMatchObject({ ts: Number(tk.ts), lastPrice: Number(tk.last), markPrice: null })
  })
})

describe('okx klines (candles_swap.json, candles_spot.json)', () => {
  it('SWAP candles: volume from volCcy (coins), not vol (contracts)', async () => {
    const ex = withMarkets(new ccxt.pro.okx())
    offlineHttp(ex, [['/api/v5/market/candles?instId=BTC-USDT-SWAP', fixtureText('okx/candles_swap.json')]])
    const c = new OkxConnector({ coins: ['BTC'], sink: new RecordingSink(), ccxtExchange: ex })
    const klines = await c.fetchKlines('BTC', 'perp', { limit: 2 })
    const rows = [...fixture('okx/candles_swap.json').data].reverse()
    expect(klines).toEqual(rows.map((r: string[]) => ({ ts: Number(r[0]), open: Number(r[1]), high: Number(r[2]), low: Number(r[3]), close: Number(r[4]), volume: Number(r[6]) })))
    rows.forEach((r: string[], i: number) => expect(klines[i]!.volume).toBeCloseTo(Number(r[5]) * 0.01, 9))
  })

  it('SPOT candles: volume from vol (base)', async () => {
    const ex = withMarkets(new ccxt.pro.okx())
    const requests = offlineHttp(ex, [['/api/v5/market/candles?instId=BTC-USDT&', fixtureText('okx/candles_spot.json')]])
    const c = new OkxConnector({ coins: ['BTC'], sink: new RecordingSink(), ccxtExchange: ex })
    const klines = await c.fetchKlines('BTC', 'spot', { timeframe: '1h', limit: 3 })
    expect(requests[0]!.url).toContain('bar=1H')
    const rows = [...fixture('okx/candles_spot.json').data].reverse()
    expect(klines).toEqual(rows.map((r: string[]) => ({ ts: Number(r[0]), open: Number(r[1]), high: Number(r[2]), low: Number(r[3]), close: Number(r[4]), volume: Number(r[5]) })))
  })
})
