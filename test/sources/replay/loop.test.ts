// REPLAY_LOOP=1: the recording plays again and again, each pass shifted by one period (a whole number of minutes
// longer than the recording), trade ids unique per pass, every pass a new session (fresh connectors and connections).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bookAfter, bybitBookFrames, bybitTrades, candlesOf, MINUTE } from './expected.js'
import { fixture, startReplayService, subRecording, type ReplayService } from './helpers.js'

// Bybit's 2026 session without its kline and ticker frames: instruments, book and trades
const FILE = subRecording('bybit-loop', (l) => l.venue === 'bybit' && ['bybit/instruments.json', 'bybit/ws_orderbook.json', 'bybit/ws_public_trade.json'].includes(l.source ?? ''))

let s: ReplayService
beforeAll(async () => {
  s = await startReplayService(FILE, { start: Date.UTC(2026, 2, 2, 12, 0, 0), env: { LOG_LEVEL: 'silent', REPLAY_LOOP: '1' } })
})
afterAll(async () => {
  await s?.close()
})

describe('REPLAY_LOOP=1', () => {
  // by hand: the session runs from the instruments body to the last trade frame; one pass is that, rounded up to minutes
  const first = fixture('bybit/instruments.json').time as number
  const last = Math.max(...fixture<Array<{ ts: number }>>('bybit/ws_public_trade.json').map((f) => f.ts), ...bybitBookFrames().map((f) => f.ts))
  const period = Math.ceil((last - first + 1) / MINUTE) * MINUTE

  it('a second pass replays every trade again one period later, none taken for a duplicate', async () => {
    expect(period).toBe(MINUTE)
    const clock = s.replay.clock
    await s.playUntil(clock.wallAt(clock.warpedOfCompressed(last, 1)))
    expect(s.replay.stats()).toMatchObject({ pass: 1, ended: false })
    await s.runtime.ingest.flush({ final: true })
    const trades = bybitTrades()
    const twice = [...trades, ...trades.map((t) => ({ ...t, T: t.T + period }))]
    const expected = candlesOf(twice)
    const candles = (await s.get('/v1/markets/ohlc?coin=BTC&exchange=bybit&interval=1m&lookback=1h')).body.data.candles as any[]
    const shift = candles[0].ts - expected[0]!.minute
    expect(Math.abs(shift % MINUTE)).toBe(0)
    expect(candles.map((c) => [c.ts - shift, c.trades, c.open, c.close])).toEqual(expected.map((e) => [e.minute, e.trades, e.open, e.close]))
    expect(candles.reduce((a, c) => a + c.trades, 0)).toBe(2 * trades.length)
    candles.forEach((c, i) => expect(c.volume).toBeCloseTo(expected[i]!.volume, 9))
  })

  it('the book is rebuilt from the second pass\'s snapshot by a new connection', () => {
    const book = s.t.services.market.live.books.get('bybit:BTC:perp')!
    const frames = bybitBookFrames()
    const shift = s.replay.clock.warped(first, 1) - first
    const upTo = frames.findIndex((f) => f.ts + shift === book.ts)
    expect(upTo, 'a book of the second pass').toBeGreaterThanOrEqual(0)
    const expected = bookAfter(frames, upTo)
    expect(book.bids).toEqual(expected.bids)
    expect(book.asks).toEqual(expected.asks)
  })
})
