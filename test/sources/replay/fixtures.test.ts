// The whole service on recordings/fixtures.jsonl (the shared real payloads as one recording): every analytics
// endpoint answers, and figures derived here by hand from the raw payloads come out of the REST API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readFileSync } from 'node:fs'
import { ENDPOINTS as ROUTES } from '../../../src/endpoints/index.js'
import { bookAfter, bybitBookFrames, bybitTrades, candlesOf, MINUTE } from './expected.js'
import { FIXTURES_RECORDING, fixture, startReplayService, type ReplayService } from './helpers.js'

const START = Date.UTC(2026, 2, 2, 12, 0, 0)

// one path per analytics route, with the parameters it requires
const CALLS: Record<string, string> = {
  '/v1/markets/ohlc': '/v1/markets/ohlc?coin=BTC&interval=1m&lookback=1h',
  '/v1/structure/volume-profile': '/v1/structure/volume-profile?coin=BTC&lookback=1h',
  '/v1/signals/liquidation-cascade': '/v1/signals/liquidation-cascade?coin=BTC&trigger_price=64000',
  '/v1/markets/exchanges': '/v1/markets/exchanges',
  '/v1/markets/coins': '/v1/markets/coins?coin=BTC',
  '/v1/signals/snapshot': '/v1/signals/snapshot',
  '/v1/signals/divergence': '/v1/signals/divergence?coin=BTC',
  '/v1/structure/spread': '/v1/structure/spread?coin=BTC',
  '/v1/funding/weighted': '/v1/funding/weighted?coin=BTC',
  '/v1/flow/imbalance': '/v1/flow/imbalance?coin=BTC',
  '/v1/markets/ticker': '/v1/markets/ticker?coin=BTC',
  '/v1/oi/changes': '/v1/oi/changes?coin=BTC',
  '/v1/liquidations/history': '/v1/liquidations/history?coin=BTC',
  '/v1/liquidations/orders': '/v1/liquidations/orders?coin=BTC',
  '/v1/positioning/long-short': '/v1/positioning/long-short?coin=BTC',
  '/v1/liquidations/heatmap': '/v1/liquidations/heatmap?coin=BTC',
  '/v1/signals/backtest': '/v1/signals/backtest?coin=BTC&lookback=7d',
  '/v1/oi/history': '/v1/oi/history?coin=BTC&interval=1m&lookback=1h',
  '/v1/funding/history': '/v1/funding/history?coin=BTC',
  '/v1/flow/cvd': '/v1/flow/cvd?coin=BTC&interval=1m&lookback=1h',
  '/v1/flow/taker-volume': '/v1/flow/taker-volume?coin=BTC&interval=1m&lookback=1h',
  '/v1/structure/basis': '/v1/structure/basis?coin=BTC&interval=1m&lookback=1h',
  '/v1/markets/overview': '/v1/markets/overview',
  '/v1/funding/arbitrage': '/v1/funding/arbitrage?coin=BTC',
  '/v1/flow/large-trades': '/v1/flow/large-trades?min_usd=100000',
  '/v1/signals/regime': '/v1/signals/regime?coin=BTC',
}

let s: ReplayService
/** the answers at the moment the recording's last line has played */
const atEnd = new Map<string, { status: number; body: any }>()
let endedAt = 0

beforeAll(async () => {
  s = await startReplayService(FIXTURES_RECORDING, { start: START, env: { LOG_LEVEL: 'silent' } })
  await s.playToEnd()
  endedAt = s.now()
  for (const [route, path] of Object.entries(CALLS)) atEnd.set(route, await s.get(path))
  // a minute and its grace later: the last minute of trades is closed and stored
  await s.moveTo(s.now() + MINUTE + 5_000)
  await s.flush()
})
afterAll(async () => {
  await s?.close()
})

describe('replay of recordings/fixtures.jsonl through the whole service', () => {
  it('the recording is the committed file, played as one session ending at the replay clock', () => {
    expect(readFileSync(FIXTURES_RECORDING, 'utf8').length).toBeGreaterThan(0)
    expect(s.replay.stats().ended).toBe(true)
    // no simulator, no backfill: only recorded venues are enabled
    expect([...s.t.services.market.enabled].sort()).toEqual(['binance', 'bybit', 'dydx', 'hyperliquid', 'okx'])
  })

  it('every analytics endpoint answers 200', () => {
    expect(Object.keys(CALLS).sort()).toEqual(ROUTES.map((r) => r.path).sort())
    for (const [route, res] of atEnd) expect(res.status, `${route}: ${JSON.stringify(res.body).slice(0, 300)}`).toBe(200)
  })

  it('ticker: OKX mark and index from mark_price.json and index_price.json, Binance from premium_index_all.json', () => {
    const rows = atEnd.get('/v1/markets/ticker')!.body.data as any[]
    const okx = rows.find((r) => r.exchange === 'okx')
    expect(okx.mark_price).toBe(Number(fixture('okx/mark_price.json').data[0].markPx))
    expect(okx.index_price).toBe(Number(fixture('okx/index_price.json').data[0].idxPx))
    const raw = fixture<any[]>('binance/premium_index_all.json').find((r) => r.symbol === 'BTCUSDT')
    const binance = rows.find((r) => r.exchange === 'binance')
    expect(binance).toMatchObject({ mark_price: Number(raw.markPrice), index_price: Number(raw.indexPrice), funding_rate: Number(raw.lastFundingRate) })
    // the settlement keeps its distance from the payload's own time through the time warp
    expect(binance.next_funding_time - binance.ts).toBe(raw.nextFundingTime - raw.time)
  })

  it('open interest: dYdX from perpetual_markets.json, OKX contracts x ctVal from open_interest.json and instruments.json', () => {
    const rows = atEnd.get('/v1/oi/changes')!.body.data[0].exchanges as any[]
    const dydx = fixture('dydx/perpetual_markets.json').result.markets['BTC-USD']
    expect(rows.find((r) => r.exchange === 'dydx').oi).toBe(Number(dydx.openInterest))
    const ctVal = Number(fixture('okx/instruments.json').data.find((i: any) => i.instId === 'BTC-USDT-SWAP').ctVal)
    expect(rows.find((r) => r.exchange === 'okx').oi).toBeCloseTo(Number(fixture('okx/open_interest.json').data[0].oi) * ctVal, 9)
  })

  it('funding: dYdX nextFundingRate and Binance lastFundingRate as recorded', () => {
    const ex = atEnd.get('/v1/funding/weighted')!.body.data[0].exchanges as any[]
    expect(ex.find((e) => e.exchange === 'dydx').rate).toBe(Number(fixture('dydx/perpetual_markets.json').result.markets['BTC-USD'].nextFundingRate))
    expect(ex.find((e) => e.exchange === 'binance').rate).toBe(Number(fixture<any[]>('binance/premium_index_all.json').find((r) => r.symbol === 'BTCUSDT').lastFundingRate))
  })

  it('Bybit BTC 1-minute candles are the publicTrade trades of ws_public_trade.json, on the venue minute boundaries', async () => {
    const trades = bybitTrades()
    const expected = candlesOf(trades)
    expect(expected.length).toBe(2)
    const candles = (await s.get('/v1/markets/ohlc?coin=BTC&exchange=bybit&interval=1m&lookback=1h')).body.data.candles as any[]
    expect(candles.length).toBe(expected.length)
    const shift = candles[0].ts - expected[0]!.minute
    // the warp moves the session by whole minutes: each candle holds exactly the venue's minute
    expect(Math.abs(shift % MINUTE)).toBe(0)
    candles.forEach((c, i) => {
      const e = expected[i]!
      expect(c.ts).toBe(e.minute + shift)
      expect(c).toMatchObject({ open: e.open, high: e.high, low: e.low, close: e.close, trades: e.trades })
      expect(c.volume).toBeCloseTo(e.volume, 9)
      expect(c.buy_volume).toBeCloseTo(e.buy_volume, 9)
      expect(c.sell_volume).toBeCloseTo(e.sell_volume, 9)
    })
    // the recording ended at the replay clock: its last line (Bybit's last kline frame) played at the end
    const lastAt = Math.max(...fixture<Array<{ ts: number }>>('bybit/ws_kline.json').map((f) => f.ts))
    expect(lastAt + shift).toBe(endedAt)
  })

  it('Bybit BTC book: the orderbook.200 snapshot with every delta up to the book time applied', async () => {
    const frames = bybitBookFrames()
    const book = s.t.services.market.live.books.get('bybit:BTC:perp')!
    const candle = ((await s.get('/v1/markets/ohlc?coin=BTC&exchange=bybit&interval=1m&lookback=1h')).body.data.candles as any[])[0]
    const shift = candle.ts - candlesOf(bybitTrades())[0]!.minute
    const upTo = frames.findIndex((f) => f.ts + shift === book.ts)
    expect(upTo, `a frame at ${book.ts - shift}`).toBeGreaterThanOrEqual(0)
    expect(frames[0]!.type).toBe('snapshot')
    const expected = bookAfter(frames, upTo)
    // every level is within ±5 % of mid here, so the connector keeps them all
    expect(book.bids).toEqual(expected.bids)
    expect(book.asks).toEqual(expected.asks)
    // the REST imbalance answers from that book: its mid is the recorded best bid and ask
    const row = (atEnd.get('/v1/flow/imbalance')!.body.data[0].exchanges as any[]).find((e) => e.exchange === 'bybit')
    expect(row.mid).toBe((expected.bids[0]!.price + expected.asks[0]!.price) / 2)
  })

  it('exchanges: Bybit is degraded because the fixtures hold no REST funding history (SOURCES.md "Not found")', () => {
    const rows = atEnd.get('/v1/markets/exchanges')!.body.data as any[]
    expect(rows.map((r) => r.id)).toEqual(['binance', 'bybit', 'okx', 'hyperliquid', 'dydx'])
    expect(rows.find((r) => r.id === 'bybit').status).toBe('degraded')
    expect(s.t.services.market.degradedReason('bybit')).toContain('/v5/market/funding/history')
  })
})
