// Hyperliquid connector on recorded payloads: /work/shared/fixtures/exchanges/hyperliquid (see SOURCES.md).
import ccxt from 'ccxt'
import { afterEach, describe, expect, it } from 'vitest'
import {
  HyperliquidConnector,
  hyperliquidCtx,
  hyperliquidUniverse,
  parseAllDexsAssetCtxs,
} from '../../../src/sources/connectors/hyperliquid.js'
import { marketRef, partsFromTicker, tickerEvent } from '../../../src/sources/connectors/mapping.js'
import { fixture, fixtureText, offlineHttp, offlineWs, RecordingSink, waitFor, wsClient, type Route } from './offline.js'

const running: HyperliquidConnector[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((c) => c.stop()))
})
function connector(opts: ConstructorParameters<typeof HyperliquidConnector>[0]) {
  const c = new HyperliquidConnector(opts)
  running.push(c)
  return c
}
const OFF = { trades: false, books: false, tickers: false, openInterest: false, funding: false }
const HOUR = 3_600_000

/** POST /info routes by request type */
const info = (type: string, file: string): Route => [(url, body) => url.endsWith('/info') && JSON.parse(body ?? '{}').type === type, fixtureText(file)]
const bodyOf = (r: { body: string | undefined }) => JSON.parse(r.body ?? '{}')

/** 2023 mainnet `meta` universe -> CCXT markets, the way fetchSwapMarkets builds them (universe entry + baseId = index). */
function marketsFromMeta(ex: InstanceType<typeof ccxt.pro.hyperliquid>) {
  const meta = fixture<{ universe: object[] }>('hyperliquid/meta.json')
  return meta.universe.map((u, i) => ex.parseMarket({ ...u, baseId: i }))
}

describe('hyperliquid markets, tickers, open interest (meta_and_asset_ctxs.json — TESTNET, meta.json)', () => {
  it('a first market load that fails is asked again (CCXT keeps the failed load: it would never ask the venue again)', async () => {
    const ex = new ccxt.pro.hyperliquid()
    const requests = offlineHttp(ex, [info('metaAndAssetCtxs', 'hyperliquid/meta_and_asset_ctxs.json')])
    const answer = (ex as any).fetchImplementation
    let failed = 0
    ;(ex as any).fetchImplementation = async (url: string, params: { method: string; body?: string }) => {
      // the venue answers a 429 to the first request (rate limited, or down, at the service's start)
      if (failed++ === 0) return new Response('Too many requests', { status: 429 })
      return answer(url, params)
    }
    const c = connector({ coins: ['BTC'], sink: new RecordingSink(), ccxtExchange: ex, backoff: { baseMs: 10, maxMs: 20 }, streams: OFF })
    await c.start()
    await waitFor(() => c.markets().length === 1, 5_000, 'the markets after a failed first load')
    expect(requests.length).toBeGreaterThanOrEqual(1)
    expect(c.markets().map((m) => m.coin)).toEqual(['BTC'])
  })

  it('loads perps from metaAndAssetCtxs and polls mark/oracle/funding and halved OI from the same body', async () => {
    const ex = new ccxt.pro.hyperliquid()
    const requests = offlineHttp(ex, [info('metaAndAssetCtxs', 'hyperliquid/meta_and_asset_ctxs.json')])
    const sink = new RecordingSink()
    const now = Date.UTC(2024, 11, 21, 7, 17)
    const c = connector({ coins: ['BTC', 'ETH', 'SOL', 'DOGE'], sink, ccxtExchange: ex, now: () => now, streams: { ...OFF, tickers: true, openInterest: true } })
    await c.start()
    await waitFor(() => sink.of('ticker').length >= 3 && sink.of('open_interest').length >= 3)
    // only the main-dex perps are loaded (no spotMeta, no perpDexs)
    expect(new Set(requests.map((r) => bodyOf(r).type))).toEqual(new Set(['metaAndAssetCtxs']))
    const [meta, ctxs] = fixture<[{ universe: Array<{ name: string }> }, Array<Record<string, string>>]>('hyperliquid/meta_and_asset_ctxs.json')
    expect(c.markets().map((m) => [m.coin, m.id])).toEqual(['BTC', 'ETH', 'SOL'].map((coin) => [coin, String(meta.universe.findIndex((u) => u.name === coin))]))
    for (const coin of ['BTC', 'ETH', 'SOL']) {
      const ctx = ctxs[meta.universe.findIndex((u) => u.name === coin)]!
      expect(sink.of('ticker').find((t) => t.coin === coin)).toMatchObject({
        exchange: 'hyperliquid',
        marketType: 'perp',
        markPrice: Number(ctx['markPx']),
        indexPrice: Number(ctx['oraclePx']),
        fundingRate: Number(ctx['funding']),
        fundingIntervalHours: 1,
        lastPrice: null,
      })
      // product decision: Hyperliquid's openInterest is two-sided -> halved
      expect(sink.of('open_interest').find((e) => e.coin === coin)!.openInterest).toBe(Number(ctx['openInterest']) / 2)
    }
    // next settlement: the next full UTC hour (CCXT computes it from its own clock)
    const next = sink.of('ticker')[0]!.nextFundingTime!
    expect(next % HOUR).toBe(0)
  })

  it('meta.json universe -> markets whose baseId is the asset index', () => {
    const ex = new ccxt.pro.hyperliquid()
    ex.setMarkets(marketsFromMeta(ex))
    const uni = hyperliquidUniverse(ex)
    const meta = fixture<{ universe: Array<{ name: string }> }>('hyperliquid/meta.json')
    expect(uni.size).toBe(meta.universe.length)
    expect(uni.get(0)).toBe('BTC')
    expect(uni.get(4)).toBe('DYDX')
  })
})

describe('hyperliquid CCXT markets file (ccxt_markets.json, 4.4-era)', () => {
  it('loads with setMarkets; its asset indexes agree with the 2023 meta universe', () => {
    const ex = new ccxt.pro.hyperliquid()
    ex.setMarkets(fixture('hyperliquid/ccxt_markets.json'))
    const c = new HyperliquidConnector({ coins: ['BTC'], sink: new RecordingSink(), ccxtExchange: ex })
    const btc = (c as any).findMarket(ex, 'BTC')
    expect(marketRef('hyperliquid', 'BTC', btc)).toMatchObject({ symbol: 'BTC/USDC:USDC', id: '0', contractSize: 1 })
    expect((c as any).findMarket(ex, 'PURR')).toBeUndefined() // spot only
    const meta = fixture<{ universe: Array<{ name: string }> }>('hyperliquid/meta.json').universe
    for (const [index, coin] of hyperliquidUniverse(ex)) {
      if (index < meta.length) expect(meta[index]!.name).toBe(coin)
    }
    // SOURCES.md caveat: these markets predate `baseName`, which CCXT 4.5 sends as the `coin` of /info requests,
    // so the tests build markets the way 4.5.84 does (fetchSwapMarkets / parseMarket) instead
    expect((btc as any).baseName).toBeUndefined()
  })
})

describe('hyperliquid settled funding (funding_history.json)', () => {
  it('emits the newest settlements once; the interval is inferred from their spacing (8 h in this 2023 recording)', async () => {
    const ex = new ccxt.pro.hyperliquid()
    ex.setMarkets(marketsFromMeta(ex))
    const requests = offlineHttp(ex, [info('fundingHistory', 'hyperliquid/funding_history.json')])
    const sink = new RecordingSink()
    const c = connector({ coins: ['BTC'], sink, ccxtExchange: ex, pollIntervalMs: { fundingMs: 10 }, streams: { ...OFF, funding: true } })
    await c.start()
    await waitFor(() => requests.length >= 3)
    expect(bodyOf(requests[0]!)).toMatchObject({ type: 'fundingHistory', coin: 'BTC' })
    expect(typeof bodyOf(requests[0]!).startTime).toBe('number')
    const rows = fixture<Array<{ fundingRate: string; time: number }>>('hyperliquid/funding_history.json')
    // CCXT keeps the last `limit` (10) rows; repeated polls of the same body emit nothing new
    expect(sink.of('funding').map((f) => [f.ts, f.rate, f.intervalHours])).toEqual(rows.slice(-10).map((r) => [r.time, Number(r.fundingRate), 8]))
  })
})

describe('hyperliquid trades (ws_trades_and_asset_ctx.json, recent_trades.json — TESTNET)', () => {
  it('ws trades frames -> TradeEvents for followed coins; side A = taker sell, B = taker buy; id = tid', async () => {
    const ex = new ccxt.pro.hyperliquid()
    ex.setMarkets(marketsFromMeta(ex))
    offlineHttp(ex, [])
    const ws = offlineWs(ex)
    const sink = new RecordingSink()
    const c = connector({ coins: ['BTC'], sink, ccxtExchange: ex, streams: { ...OFF, trades: true } })
    await c.start()
    await waitFor(() => ws.sent.length > 0, 2000, 'subscribe')
    expect(ws.sent[0]!.message).toEqual({ method: 'subscribe', subscription: { type: 'trades', coin: 'BTC' } })
    // Hyperliquid sends a `trades` channel per subscribed coin: only the BTC frames would reach this connection
    // (the FXS ones belong to another subscription; FXS is not even a market in the 2023 universe used here)
    const frames = fixture<any[]>('hyperliquid/ws_trades_and_asset_ctx.json').filter((f) => f.channel === 'trades' && f.data[0].coin === 'BTC')
    expect(frames.length).toBe(2)
    for (const f of frames) {
      ws.push(f)
      await new Promise((r) => setImmediate(r))
    }
    const btc = frames.flatMap((f) => f.data)
    await waitFor(() => sink.of('trade').length === btc.length, 2000, 'BTC trades')
    const byId = new Map(sink.of('trade').map((t) => [t.id, t]))
    for (const t of btc) {
      expect(byId.get(String(t.tid))).toMatchObject({ coin: 'BTC', ts: t.time, price: Number(t.px), size: Number(t.sz), side: t.side === 'B' ? 'buy' : 'sell' })
    }
    // the ticker's lastPrice comes from the trade stream
    expect((c as any).lastTradePrice.get('BTC/USDC:USDC')).toBe(Number(btc.at(-1).px))
  })

  it('REST fallback: POST /info recentTrades parsed by the CCXT trade parser', async () => {
    const ex = new ccxt.hyperliquid()
    ex.setMarkets(marketsFromMeta(ex as any))
    const requests = offlineHttp(ex, [info('recentTrades', 'hyperliquid/recent_trades.json')])
    const sink = new RecordingSink()
    const c = connector({ coins: ['BTC'], sink, ccxtExchange: ex as any, streams: { ...OFF, trades: true } })
    await c.start()
    const rows = fixture<any[]>('hyperliquid/recent_trades.json')
    await waitFor(() => sink.of('trade').length === rows.length)
    expect(bodyOf(requests[0]!)).toEqual({ type: 'recentTrades', coin: 'BTC' })
    const events = sink.of('trade')
    expect(events.map((e) => e.ts)).toEqual([...events.map((e) => e.ts)].sort((a, b) => a - b)) // newest-first body, emitted oldest first
    for (const r of rows) {
      expect(events.find((e) => e.id === String(r.tid))).toMatchObject({ price: Number(r.px), size: Number(r.sz), ts: r.time, side: r.side === 'B' ? 'buy' : 'sell' })
    }
  })
})

describe('hyperliquid book and candles (l2_book.json, candles.json)', () => {
  it('REST l2Book -> book snapshot (20 levels per side is all Hyperliquid serves)', async () => {
    const ex = new ccxt.hyperliquid()
    ex.setMarkets(marketsFromMeta(ex as any))
    // only the exact book is answered here: the coarser nSigFigs polls are covered in book-reach.test.ts
    const requests = offlineHttp(ex, [[(url, body) => url.endsWith('/info') && JSON.parse(body ?? '{}').type === 'l2Book' && JSON.parse(body ?? '{}').nSigFigs === undefined, fixtureText('hyperliquid/l2_book.json')]])
    const sink = new RecordingSink()
    const c = connector({ coins: ['DYDX'], sink, ccxtExchange: ex as any, bookBand: 1, streams: { ...OFF, books: true } })
    await c.start()
    await waitFor(() => sink.of('book').length > 0)
    expect(bodyOf(requests.find((r) => bodyOf(r).nSigFigs === undefined)!)).toMatchObject({ type: 'l2Book', coin: 'DYDX' })
    const raw = fixture<{ levels: Array<Array<{ px: string; sz: string }>>; time: number }>('hyperliquid/l2_book.json')
    expect(sink.of('book')[0]).toEqual({
      type: 'book',
      exchange: 'hyperliquid',
      coin: 'DYDX',
      marketType: 'perp',
      ts: raw.time,
      bids: raw.levels[0]!.map((l) => ({ price: Number(l.px), size: Number(l.sz) })),
      asks: raw.levels[1]!.map((l) => ({ price: Number(l.px), size: Number(l.sz) })),
      // 20 levels a side is all Hyperliquid sends: the book stops at its 20th level, it is not the whole side
      bidEnd: Number(raw.levels[0]![19]!.px),
      askEnd: Number(raw.levels[1]![19]!.px),
    })
  })

  it('fetchKlines: candleSnapshot via CCXT fetchOHLCV (coin by its Hyperliquid name, kPEPE)', async () => {
    const ex = new ccxt.pro.hyperliquid()
    ex.setMarkets(marketsFromMeta(ex))
    const requests = offlineHttp(ex, [info('candleSnapshot', 'hyperliquid/candles.json')])
    const c = new HyperliquidConnector({ coins: ['KPEPE'], sink: new RecordingSink(), ccxtExchange: ex })
    const klines = await c.fetchKlines('KPEPE', 'perp', { timeframe: '1h', since: 1684702007000 })
    expect(bodyOf(requests[0]!).req).toMatchObject({ coin: 'kPEPE', interval: '1h', startTime: 1684702007000 })
    // CCXT drops the candle that opened before `since`
    const rows = fixture<any[]>('hyperliquid/candles.json').filter((r) => r.t >= 1684702007000)
    expect(rows.length).toBe(23)
    expect(klines).toEqual(rows.map((r) => ({ ts: r.t, open: Number(r.o), high: Number(r.h), low: Number(r.l), close: Number(r.c), volume: Number(r.v) })))
  })
})

describe('hyperliquid websocket asset contexts (ws_trades_and_asset_ctx.json, ws_all_dexs_asset_ctxs.json, all_mids.json)', () => {
  it('activeAssetCtx: our parser keeps mark and oracle (the CCXT ticker from it has neither, only the mid as last)', () => {
    const frame = fixture<any[]>('hyperliquid/ws_trades_and_asset_ctx.json').find((f) => f.channel === 'activeAssetCtx')
    const ctx = frame.data.ctx
    const now = Date.UTC(2024, 9, 29, 0, 30)
    const { parts, openInterest } = hyperliquidCtx(ctx, now)
    expect(parts).toEqual({
      markPrice: Number(ctx.markPx),
      indexPrice: Number(ctx.oraclePx),
      fundingRate: Number(ctx.funding),
      fundingIntervalHours: 1,
      nextFundingTime: Date.UTC(2024, 9, 29, 1),
    })
    expect(openInterest).toBe(Number(ctx.openInterest) / 2)

    const ex = new ccxt.pro.hyperliquid()
    ex.setMarkets(marketsFromMeta(ex))
    ex.handleMessage(wsClient(ex, 'wss://api.hyperliquid.xyz/ws'), frame)
    const t = Object.values(ex.tickers).find((x) => x.symbol?.startsWith('MOODENG'))!
    expect(partsFromTicker(t)).toMatchObject({ lastPrice: Number(ctx.midPx), markPrice: null, indexPrice: null })
  })

  it('allDexsAssetCtxs: main-dex contexts by universe index (mainnet order from meta.json)', () => {
    const ex = new ccxt.pro.hyperliquid()
    ex.setMarkets(marketsFromMeta(ex))
    const frame = fixture('hyperliquid/ws_all_dexs_asset_ctxs.json')
    const rows = parseAllDexsAssetCtxs(frame, hyperliquidUniverse(ex))
    const main = frame.data.ctxs.find(([dex]: [string]) => dex === '')[1]
    expect(rows.map((r) => r.coin)).toEqual(['BTC', 'ETH', 'ATOM', 'MATIC', 'DYDX'].slice(0, main.length))
    const btc = rows[0]!
    expect(btc.ctx).toBe(main[0])
    const ref = marketRef('hyperliquid', 'BTC', ex.markets!['BTC/USDC:USDC']!)
    const e = tickerEvent(ref, hyperliquidCtx(btc.ctx, 0).parts, 0)
    expect(e).toMatchObject({ markPrice: Number(main[0].markPx), indexPrice: Number(main[0].oraclePx), fundingRate: Number(main[0].funding) })
    expect(parseAllDexsAssetCtxs({ channel: 'trades' }, hyperliquidUniverse(ex))).toEqual([])
  })

  it('allMids: CCXT maps mids to ticker `last`, which is why the connector does not use it as lastPrice', () => {
    // all_mids.json is the REST allMids body; the ws allMids frame carries the same map under data.mids
    const mids = fixture<Record<string, string>>('hyperliquid/all_mids.json')
    const ex = new ccxt.pro.hyperliquid()
    ex.setMarkets(marketsFromMeta(ex))
    ex.handleMessage(wsClient(ex, 'wss://api.hyperliquid.xyz/ws'), { channel: 'allMids', data: { mids } })
    expect(ex.tickers['BTC/USDC:USDC']!.last).toBe(Number(mids['BTC']))
    expect(ex.tickers['DYDX/USDC:USDC']!.last).toBe(Number(mids['DYDX']))
  })
})
