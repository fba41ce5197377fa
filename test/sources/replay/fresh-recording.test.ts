// A fresh recording, made by the recorder over offline-fed connectors, replayed through the whole service, gives the
// same answers as the fixture recording: the figures derived by hand from the payloads that were fed.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bookAfter, bybitBookFrames, bybitTrades, candlesOf, MINUTE } from './expected.js'
import { fixture, startReplayService, type ReplayService } from './helpers.js'
import { recordOffline } from './offline-recording.js'

let s: ReplayService
let endedAt = 0
beforeAll(async () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'fresh-')), 'fresh.jsonl')
  await recordOffline(file)
  s = await startReplayService(file, { start: Date.UTC(2026, 2, 2, 12, 0, 0), env: { LOG_LEVEL: 'silent' } })
  await s.playToEnd()
  endedAt = s.now()
})
afterAll(async () => {
  await s?.close()
})

describe('replay of a fresh recording', () => {
  it('Bybit candles and book: the trades and book frames that were fed', async () => {
    const book = s.t.services.market.live.books.get('bybit:BTC:perp')!
    await s.moveTo(s.now() + MINUTE + 5_000)
    await s.flush()
    const expected = candlesOf(bybitTrades())
    const candles = (await s.get('/v1/markets/ohlc?coin=BTC&exchange=bybit&interval=1m&lookback=1h')).body.data.candles as any[]
    const shift = candles[0].ts - expected[0]!.minute
    expect(Math.abs(shift % MINUTE)).toBe(0)
    expect(candles.map((c) => [c.ts - shift, c.open, c.high, c.low, c.close, c.trades])).toEqual(expected.map((e) => [e.minute, e.open, e.high, e.low, e.close, e.trades]))
    candles.forEach((c, i) => expect(c.volume).toBeCloseTo(expected[i]!.volume, 9))
    // the recording ends with the last frame fed, played at the end of the replay
    const frames = bybitBookFrames()
    const lastFed = Math.max(...frames.map((f) => f.ts), ...fixture<Array<{ ts: number }>>('bybit/ws_public_trade.json').map((f) => f.ts))
    expect(lastFed + shift).toBe(endedAt)
    const upTo = frames.findIndex((f) => f.ts + shift === book.ts)
    expect(upTo).toBeGreaterThanOrEqual(0)
    expect({ bids: book.bids, asks: book.asks }).toEqual(bookAfter(frames, upTo))
  })

  it('tickers and open interest from the recorded REST bodies (Hyperliquid POST /info, dYdX, Bybit)', async () => {
    const tickers = (await s.get('/v1/markets/ticker?coin=BTC')).body.data as any[]
    const [meta, ctxs] = fixture<[{ universe: Array<{ name: string }> }, Array<Record<string, string>>]>('hyperliquid/meta_and_asset_ctxs.json')
    const ctx = ctxs[meta.universe.findIndex((u) => u.name === 'BTC')]!
    expect(tickers.find((t) => t.exchange === 'hyperliquid')).toMatchObject({ mark_price: Number(ctx['markPx']), index_price: Number(ctx['oraclePx']), funding_rate: Number(ctx['funding']) })
    const bybit = fixture('bybit/tickers.json').result.list[0]
    expect(tickers.find((t) => t.exchange === 'bybit')).toMatchObject({ mark_price: Number(bybit.markPrice), index_price: Number(bybit.indexPrice) })
    const oi = (await s.get('/v1/oi/changes?coin=BTC')).body.data[0].exchanges as any[]
    expect(oi.find((e) => e.exchange === 'dydx').oi).toBe(Number(fixture('dydx/perpetual_markets.json').result.markets['BTC-USD'].openInterest))
  })
})
