// The Bybit double against its documented rules (bybit.ts header): kline ordering and paging, cursor paging of open
// interest and long/short, funding history's endTime paging, the IP limit and its ban, retCode 10006, streams.
import '../no-network.js'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { testSocket } from '../ws-client.js'
import { startVenueDouble, type VenueDouble } from './index.js'

const MIN = 60_000
const DAY = 86_400_000
const T0 = Date.UTC(2026, 10, 20, 12, 0, 30)

describe('Bybit double', () => {
  let clock = T0
  let d: VenueDouble
  const get = async (path: string) => {
    const res = await fetch(d.restUrl + path)
    const text = await res.text()
    return { status: res.status, headers: res.headers, body: text.startsWith('{') ? (JSON.parse(text) as any) : text }
  }

  beforeAll(async () => {
    d = await startVenueDouble('bybit', { now: () => clock, seed: 5 })
  })
  afterAll(() => d.close())

  it('instruments from the recorded lists; an empty PreLaunch list', async () => {
    const linear = await get('/v5/market/instruments-info?category=linear&limit=1000')
    expect(linear.body.result.list.map((s: any) => s.symbol)).toEqual(['BTCUSDT', 'ETHUSDT', 'SOLUSDT'])
    expect(linear.body.retCode).toBe(0)
    expect((await get('/v5/market/instruments-info?category=linear&status=PreLaunch')).body.result.list).toEqual([])
    expect((await get('/v5/market/instruments-info?category=spot')).body.result.list.map((s: any) => s.symbol)).toEqual(['BTCUSDT', 'ETHUSDT'])
  })

  it('kline: newest first, start pages forward, end pages backward, limit at most 1000', async () => {
    const start = T0 - DAY
    const a = (await get(`/v5/market/kline?category=linear&symbol=BTCUSDT&interval=1&start=${start}&limit=1000`)).body.result.list
    expect(a).toHaveLength(1000)
    expect(Number(a.at(-1)[0])).toBe(Math.floor(start / MIN) * MIN)
    expect(a.every((r: string[], i: number) => i === 0 || Number(a[i - 1][0]) - Number(r[0]) === MIN)).toBe(true)
    const b = (await get(`/v5/market/kline?category=linear&symbol=BTCUSDT&interval=1&end=${start - 1}&limit=5`)).body.result.list
    // the candle containing end is the newest
    expect(b.map((r: string[]) => Number(r[0]))).toEqual([0, 1, 2, 3, 4].map((k) => Math.floor((start - 1) / MIN) * MIN - k * MIN))
    // a row is the minute's trades: 7 strings, volume = Σ size
    const row = a.at(-1)
    const trades = d.history.trades('BTC', 'perp', Number(row[0]), Number(row[0]) + MIN)
    expect(row).toHaveLength(7)
    expect(Number(row[1])).toBe(trades[0]!.price)
    expect(Number(row[5])).toBeCloseTo(trades.reduce((s, t) => s + t.size, 0), 9)
    expect((await get('/v5/market/kline?category=linear&symbol=BTCUSDT&interval=1&limit=1001')).body.retCode).toBe(10001)
    expect((await get('/v5/market/kline?category=spot&symbol=BTCUSDT&interval=1&limit=3')).body.result.list).toHaveLength(3)
  })

  it('open-interest: intervalTime 5min, at most 200 a page, newest first, nextPageCursor walks back without gaps', async () => {
    const q = `/v5/market/open-interest?category=linear&symbol=ETHUSDT&intervalTime=5min&limit=200&startTime=${T0 - DAY}&endTime=${T0}`
    const seen: number[] = []
    let cursor = ''
    for (let i = 0; i < 10; i++) {
      const r = (await get(q + (cursor ? `&cursor=${cursor}` : ''))).body.result
      expect(r.list.length).toBeLessThanOrEqual(200)
      seen.push(...r.list.map((x: any) => Number(x.timestamp)))
      for (const x of r.list) expect(Number(x.openInterest)).toBeCloseTo(2 * Number(x.singleOpenInterest), 6)
      cursor = r.nextPageCursor
      if (!cursor) break
    }
    expect(cursor).toBe('')
    const expected = d.history.openInterest('ETH', T0 - DAY, T0 + 1).map((p) => p.ts).reverse()
    expect(seen).toEqual(expected)
    expect((await get(q.replace('limit=200', 'limit=201'))).body.retCode).toBe(10001)
  })

  it('account-ratio: cursor paging as documented, limit at most 500', async () => {
    const r = (await get(`/v5/market/account-ratio?category=linear&symbol=BTCUSDT&period=5min&limit=500`)).body.result
    expect(r.list).toHaveLength(500)
    expect(Object.keys(r.list[0])).toEqual(['symbol', 'buyRatio', 'sellRatio', 'timestamp'])
    expect(r.nextPageCursor).toMatch(/^lastid%3D\d+%26lasttime%3D\d+$/)
    const next = (await get(`/v5/market/account-ratio?category=linear&symbol=BTCUSDT&period=5min&limit=2&cursor=${r.nextPageCursor}`)).body.result
    expect(Number(next.list[0].timestamp)).toBe(Number(r.list.at(-1).timestamp) - 300_000)
  })

  it('funding/history: startTime alone is refused; endTime pages backward, newest first, 200 at most', async () => {
    expect((await get(`/v5/market/funding/history?category=linear&symbol=BTCUSDT&startTime=${T0 - DAY}`)).body.retCode).toBe(10001)
    const newest = (await get('/v5/market/funding/history?category=linear&symbol=BTCUSDT&limit=3')).body.result.list
    expect(newest.map((f: any) => Number(f.fundingRateTimestamp))).toEqual(d.history.funding('BTC', T0 - 2 * DAY, T0 + 1).map((f) => f.ts).reverse().slice(0, 3))
    const older = (await get(`/v5/market/funding/history?category=linear&symbol=BTCUSDT&endTime=${Number(newest.at(-1).fundingRateTimestamp) - 1}&limit=2`)).body.result.list
    expect(Number(older[0].fundingRateTimestamp)).toBe(Number(newest.at(-1).fundingRateTimestamp) - 8 * 3_600_000)
    expect((await get('/v5/market/funding/history?category=linear&symbol=BTCUSDT&limit=201')).body.retCode).toBe(10001)
  })

  it('retCode 10006 with X-Bapi-Limit-Reset-Timestamp when injected; past 600 requests in 5 s: 403 and a 10-minute ban', async () => {
    d.fault({ kind: 'bybit10006', resetInMs: 2000, times: 1 })
    const limited = await get('/v5/market/time')
    expect(limited.status).toBe(200)
    expect(limited.body).toMatchObject({ retCode: 10006, retMsg: 'Too many visits!' })
    expect(Number(limited.headers.get('x-bapi-limit-reset-timestamp'))).toBe(clock + 2000)
    clock = Math.floor(clock / 5000) * 5000 + 5001 // a fresh 5-second window
    const statuses: number[] = []
    for (let i = 0; i < 601; i++) statuses.push((await get('/v5/market/time')).status)
    expect(statuses.findIndex((s) => s !== 200)).toBe(600)
    expect(statuses[600]).toBe(403)
    clock += 6000
    const banned = await get('/v5/market/time')
    expect([banned.status, banned.body]).toEqual([403, 'access too frequent'])
    clock += 10 * MIN
    expect((await get('/v5/market/time')).status).toBe(200)
  })

  it('streams: subscribe ack, an order book snapshot then deltas, public trades from the history', async () => {
    const ws = testSocket(`${d.wsUrl}/v5/public/linear`)
    const frames: any[] = []
    ws.on('message', (m) => frames.push(JSON.parse(String(m))))
    await new Promise((r) => ws.once('open', r))
    const from = clock
    ws.send(JSON.stringify({ op: 'subscribe', args: ['orderbook.50.BTCUSDT', 'publicTrade.BTCUSDT'], req_id: 'x' }))
    await vi.waitFor(() => expect(frames.find((f) => f.type === 'snapshot' && f.topic === 'orderbook.50.BTCUSDT')).toBeDefined())
    expect(frames[0]).toMatchObject({ success: true, op: 'subscribe', req_id: 'x' })
    expect(frames.find((f) => f.topic === 'orderbook.50.BTCUSDT').data.b).toHaveLength(50)
    clock += 30_000
    await vi.waitFor(() => expect(frames.some((f) => f.type === 'delta' && f.ts === clock)).toBe(true))
    await vi.waitFor(() => expect(frames.filter((f) => f.topic === 'publicTrade.BTCUSDT').at(-1)?.ts).toBe(clock))
    const trades = frames.filter((f) => f.topic === 'publicTrade.BTCUSDT').flatMap((f) => f.data)
    expect(trades.map((x: any) => x.T)).toEqual(d.history.trades('BTC', 'perp', from + 1, clock + 1).map((x) => x.ts))
    ws.send(JSON.stringify({ op: 'ping', req_id: 'p' }))
    await vi.waitFor(() => expect(frames.at(-1)).toMatchObject({ ret_msg: 'pong', op: 'ping' }))
    ws.close()
  })
})
