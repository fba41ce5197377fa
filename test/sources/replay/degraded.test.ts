// A call the recording cannot answer: logged once per path, the venue marked degraded (the exchanges endpoint says
// so), the call failing like a network error; the service keeps running and answering.
import { pino } from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startReplayService, subRecording, type ReplayService } from './helpers.js'

// Bybit's 2026 session: instruments, trades, book; no tickers body, no open interest, no funding history
const FILE = subRecording('bybit-session', (l) => l.venue === 'bybit' && (l.kind === 'ws' || l.source === 'bybit/instruments.json'))

let s: ReplayService
const logs: Array<Record<string, unknown>> = []
const unhandled: unknown[] = []
const onUnhandled = (e: unknown) => unhandled.push(e)

beforeAll(async () => {
  process.on('unhandledRejection', onUnhandled)
  const logger = pino({ level: 'warn' }, { write: (line: string) => void logs.push(JSON.parse(line)) })
  s = await startReplayService(FILE, { start: Date.UTC(2026, 2, 2, 12, 0, 0), env: { LOG_LEVEL: 'silent' }, logger })
  // halfway through the session: the feed is fresh
  await s.playUntil(s.replay.clock.wallAt(s.replay.clock.warpedOfCompressed(s.replay.warp.first + 20_000, 0)))
})
afterAll(async () => {
  process.off('unhandledRejection', onUnhandled)
  await s?.close()
})

describe('an unanswerable REST call during a replay', () => {
  it('marks the venue degraded while its feed is fresh; /v1/markets/exchanges reports it', async () => {
    const res = await s.get('/v1/markets/exchanges')
    expect(res.status).toBe(200)
    const bybit = (res.body.data as any[]).find((e) => e.id === 'bybit')
    expect(bybit.status).toBe('degraded')
    // trades and books keep flowing: the feed itself is fresh
    expect(s.now() - bybit.last_update).toBeLessThan(30_000)
    const reason = s.t.services.market.degradedReason('bybit')!
    expect(reason).toMatch(/^replay: the recording has no response for /)
    expect(reason).toContain('/v5/market/tickers')
    // not recorded venues are not running at all
    expect([...s.t.services.market.enabled]).toEqual(['bybit'])
  })

  it('is logged once per venue, method and path however often the connector retries', () => {
    const warned = logs.filter((l) => String(l['msg']).startsWith('replay: the recording has no response'))
    const paths = warned.map((l) => String(l['call']).split(' ').slice(0, 2).join(' '))
    expect(new Set(paths).size).toBe(paths.length)
    // open interest comes from the tickers row (one-sided singleOpenInterest), so /v5/market/open-interest is never asked
    expect(paths).toEqual(expect.arrayContaining(['GET /v5/market/tickers', 'GET /v5/market/funding/history']))
    expect(paths).not.toContain('GET /v5/market/open-interest')
    // the connectors did call again (polls every POLL_MS, retries with backoff), and were answered with a network error
    expect(s.replay.stats().http.unanswerable).toBeGreaterThan(paths.length)
  })

  it('never crashes: no unhandled rejection, the analytics still answer from what was recorded', async () => {
    expect(unhandled).toEqual([])
    const ohlc = await s.get('/v1/markets/ohlc?coin=BTC&exchange=bybit&interval=1m&lookback=1h')
    expect(ohlc.status).toBe(200)
    const ticker = await s.get('/v1/markets/ticker?coin=BTC&exchange=bybit')
    expect(ticker.status).toBe(200)
    // no tickers body in the recording: the venue's row says why, with no numbers
    expect(ticker.body.data).toHaveLength(1)
    expect(ticker.body.data[0]).toMatchObject({ coin: 'BTC', exchange: 'bybit', mark_price: null, ts: null, stale: true, status: 'degraded' })
    expect(ticker.body.data[0].reason).toMatch(/^the Bybit feed is degraded; /)
    // halfway through the session no minute has closed yet: the candles' coverage says so, and names the degraded venue
    expect(ohlc.body.data.coverage.exchanges).toEqual([])
    expect(ohlc.body.data.coverage.missing).toEqual([{ exchange: 'bybit', status: 'degraded', reason: 'the Bybit feed is degraded; no trades in the window' }])
    expect(ohlc.body.data.coverage.partial).toBe(true)
  })
})
