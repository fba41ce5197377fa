// How far a venue's book reaches, on recorded payloads, and depth bands that are numbers only where it reaches them.
import ccxt from 'ccxt'
import { afterEach, describe, expect, it } from 'vitest'
import { bookImbalance, buildImbalance } from '../../../src/analytics/imbalance.js'
import type { ExchangeConnector } from '../../../src/sources/connectors/connector.js'
import { HyperliquidConnector } from '../../../src/sources/connectors/hyperliquid.js'
import { bookEvent, marketRef } from '../../../src/sources/connectors/mapping.js'
import { OkxConnector } from '../../../src/sources/connectors/okx.js'
import { fixture, fixtureText, offlineHttp, RecordingSink, waitFor, wsClient } from './offline.js'

const running: ExchangeConnector[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((c) => c.stop()))
})
const BOOKS_ONLY = { trades: false, tickers: false, openInterest: false, funding: false, books: true }
const BANDS = [0.5, 1, 2, 5]

describe('bybit orderbook.200 (ws_orderbook.json, 2026): 200 levels of BTC span only ~0.04 % of price', () => {
  it('the book event carries its reach; every band beyond it is null with the reason, and the aggregate leaves bybit out', () => {
    const ex = new ccxt.pro.bybit()
    ex.setMarkets(fixture('bybit/ccxt_markets.json'))
    const client = wsClient(ex, 'wss://stream.bybit.com/v5/public/linear')
    const frames = fixture<any[]>('bybit/ws_orderbook.json')
    // the recorded topic says how many levels a side the stream carries
    const depth = Number(/^orderbook\.(\d+)\./.exec(frames[0].topic)![1])
    expect(depth).toBe(200)
    const bids = new Map<number, number>()
    const asks = new Map<number, number>()
    for (const f of frames) {
      ex.handleMessage(client, f)
      if (f.type === 'snapshot') (bids.clear(), asks.clear())
      for (const [p, q] of f.data.b) Number(q) === 0 ? bids.delete(Number(p)) : bids.set(Number(p), Number(q))
      for (const [p, q] of f.data.a) Number(q) === 0 ? asks.delete(Number(p)) : asks.set(Number(p), Number(q))
    }
    const ref = marketRef('bybit', 'BTC', ex.markets!['BTC/USDT:USDT']!)
    const e = bookEvent(ref, ex.orderbooks['BTC/USDT:USDT']!, { now: 0, depth })!
    const lowestBid = Math.min(...bids.keys())
    const highestAsk = Math.max(...asks.keys())
    expect(bids.size).toBe(200)
    expect([e.bidEnd, e.askEnd]).toEqual([lowestBid, highestAsk])

    const mid = (Math.max(...bids.keys()) + Math.min(...asks.keys())) / 2
    const bidReach = ((mid - lowestBid) / mid) * 100
    const askReach = ((highestAsk - mid) / mid) * 100
    expect(bidReach).toBeLessThan(0.05)
    expect(askReach).toBeLessThan(0.06)
    const r = bookImbalance(e)
    expect(r.bidReachPct).toBeCloseTo(bidReach, 9)
    expect(r.askReachPct).toBeCloseTo(askReach, 9)
    expect(r.bands!.map((b) => [b.bandPct, b.bidDepthUsd, b.askDepthUsd, b.ratio, b.source])).toEqual(BANDS.map((b) => [b, null, null, null, null]))
    const two = (x: number) => Number(x.toPrecision(2))
    expect(r.bands![0]!.reason).toBe(`the venue's book reaches bids to -${two(bidReach)} % and asks to +${two(askReach)} % of mid, short of ±0.5 %`)

    // aggregated with a venue that sent its whole (here: a made-up two-level) book, the bands sum that one only, and say why bybit is out
    const other = { exchange: 'okx' as const, ts: e.ts, bids: [{ price: mid * 0.999, size: 1 }], asks: [{ price: mid * 1.001, size: 2 }], bidEnd: null, askEnd: null }
    const c = buildImbalance({ coin: 'BTC', now: e.ts, books: [{ ...e, exchange: 'bybit' }, other] })
    for (const b of c.aggregate.bands!) {
      expect(b.exchanges).toEqual(['okx'])
      expect(b.excluded).toEqual([{ exchange: 'bybit', reason: expect.stringMatching(/short of ±/) }])
      expect(b.bidDepthUsd).toBeCloseTo(mid * 0.999, 6)
    }
  })
})

describe('hyperliquid: 20 exact levels a side, plus the coarser nSigFigs aggregations for the wide bands (l2_book.json)', () => {
  it('polls l2Book at nSigFigs 4, 3, 2 beside the exact book and attaches them, finest first, with their bucket width', async () => {
    const ex = new ccxt.hyperliquid()
    const meta = fixture<{ universe: object[] }>('hyperliquid/meta.json')
    ex.setMarkets(meta.universe.map((u, i) => ex.parseMarket({ ...u, baseId: i } as any)))
    // No aggregated l2Book response was ever recorded: every l2Book request, with or without nSigFigs, is answered with
    // the one recorded (exact) body. This checks the requests, the labels and the bucket widths, not the aggregation.
    const requests = offlineHttp(ex, [[(url, body) => url.endsWith('/info') && JSON.parse(body ?? '{}').type === 'l2Book', fixtureText('hyperliquid/l2_book.json')]])
    const sink = new RecordingSink()
    const c = new HyperliquidConnector({ coins: ['DYDX'], sink, ccxtExchange: ex as any, bookBand: 1, bookIntervalMs: 0, streams: BOOKS_ONLY })
    running.push(c)
    await c.start()
    await waitFor(() => sink.of('book').some((b) => (b.wide?.length ?? 0) === 3), 3_000, 'a book with its wide snapshots')
    const sigFigs = requests.map((r) => JSON.parse(r.body ?? '{}')).filter((b) => b.nSigFigs !== undefined)
    expect(sigFigs.slice(0, 3).map((b) => [b.coin, b.nSigFigs])).toEqual([['DYDX', 4], ['DYDX', 3], ['DYDX', 2]])
    const book = sink.of('book').find((b) => b.wide?.length === 3)!
    const raw = fixture<{ levels: Array<Array<{ px: string }>> }>('hyperliquid/l2_book.json')
    const mid = (Number(raw.levels[0]![0]!.px) + Number(raw.levels[1]![0]!.px)) / 2
    const magnitude = Math.floor(Math.log10(mid))
    expect(book.wide!.map((w) => [w.source, w.granularity])).toEqual([
      ['nSigFigs=4', 10 ** (magnitude - 3)],
      ['nSigFigs=3', 10 ** (magnitude - 2)],
      ['nSigFigs=2', 10 ** (magnitude - 1)],
    ])
    // 20 levels: not the whole side, so the reach is the 20th level
    expect([book.bidEnd, book.askEnd]).toEqual([Number(raw.levels[0]![19]!.px), Number(raw.levels[1]![19]!.px)])
    // a band is a number only when a snapshot reaches it on both sides; here every snapshot holds the same 20 levels
    const bidReach = ((mid - book.bidEnd!) / mid) * 100
    const askReach = ((book.askEnd! - mid) / mid) * 100
    const r = bookImbalance(book, BANDS, () => true)
    for (const b of r.bands!) {
      const reached = bidReach >= b.bandPct && askReach >= b.bandPct
      expect(b.bidDepthUsd !== null, `±${b.bandPct} %`).toBe(reached)
      if (!reached) expect(b.reason).toMatch(/nSigFigs=4, nSigFigs=3, nSigFigs=2/)
    }
  })
})

describe('okx: the 400-level books stream plus GET /api/v5/market/books-full for the wide bands', () => {
  it('asks books-full for 5 000 levels and labels the snapshot', async () => {
    const ex = new ccxt.okx()
    ex.setMarkets(fixture('okx/ccxt_markets.json'))
    // only the request and the label are checked: no books-full response was recorded (the sz=2 books body answers it)
    const requests = offlineHttp(ex, [['/api/v5/market/books', fixtureText('okx/orderbook.json')]])
    const sink = new RecordingSink()
    const c = new OkxConnector({ coins: ['BTC'], sink, ccxtExchange: ex as any, marketTypes: ['perp'], bookIntervalMs: 0, streams: BOOKS_ONLY })
    running.push(c)
    await c.start()
    await waitFor(() => sink.of('book').some((b) => b.wide !== undefined), 3_000, 'a book with books-full')
    expect(requests.find((r) => r.url.includes('/books-full'))!.url).toMatch(/instId=BTC-USDT-SWAP.*sz=5000|sz=5000.*instId=BTC-USDT-SWAP/)
    expect(sink.of('book').find((b) => b.wide)!.wide!.map((w) => [w.source, w.granularity])).toEqual([['books-full', 0]])
  })
})
