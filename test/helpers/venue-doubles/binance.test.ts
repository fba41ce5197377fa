// The Binance double against its documented rules (binance.ts header): paging, page sizes, retention, weights,
// 429 → 418, faults, and the streams continuing the REST book snapshot.
import '../no-network.js'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { testSocket } from '../ws-client.js'
import { startVenueDouble, type VenueDouble } from './index.js'

const MIN = 60_000
const DAY = 86_400_000
// a fixed instant a little after a minute boundary, so "now" is inside an open minute
const T0 = Date.UTC(2026, 10, 20, 12, 0, 30)

describe('Binance double', () => {
  let clock = T0
  let d: VenueDouble
  const get = async (path: string) => {
    const res = await fetch(d.restUrl + path)
    return { status: res.status, headers: res.headers, body: (await res.json()) as any }
  }

  beforeAll(async () => {
    d = await startVenueDouble('binance', { now: () => clock, seed: 11 })
  })
  afterAll(() => d.close())

  it('serves the recorded market lists (real symbols) with the double clock as serverTime', async () => {
    const perp = await get('/fapi/v1/exchangeInfo')
    expect(perp.body.symbols.map((s: any) => s.symbol)).toEqual(['BTCUSDT', 'ETHUSDT', 'SOLUSDT'])
    expect(perp.body.serverTime).toBe(clock)
    expect(perp.body.rateLimits[0]).toMatchObject({ rateLimitType: 'REQUEST_WEIGHT', limit: 2400 })
    const spot = await get('/api/v3/exchangeInfo')
    expect(spot.body.symbols.map((s: any) => s.symbol)).toEqual(['BTCUSDT', 'ETHUSDT'])
  })

  it('klines page forward from startTime: each minute once, limit per page, rows agreeing with the minute trades', async () => {
    const from = T0 - 2 * DAY
    const seen: number[] = []
    let start = from
    while (start < T0 - 60 * MIN) {
      const page = await get(`/fapi/v1/klines?symbol=BTCUSDT&interval=1m&limit=1500&startTime=${start}`)
      expect(page.status).toBe(200)
      expect(page.body.length).toBeLessThanOrEqual(1500)
      expect(page.headers.get('x-mbx-used-weight-1m')).not.toBeNull()
      for (const row of page.body) seen.push(row[0])
      start = page.body.at(-1)[0] + MIN
    }
    expect(seen[0]).toBe(Math.ceil(from / MIN) * MIN)
    expect(new Set(seen).size).toBe(seen.length)
    expect(seen.every((t, i) => i === 0 || t - seen[i - 1]! === MIN)).toBe(true)
    // a row's figures equal the minute's trades summed (the trades the streams send)
    const page = await get(`/fapi/v1/klines?symbol=BTCUSDT&interval=1m&limit=3&startTime=${T0 - 10 * MIN}`)
    for (const row of page.body) {
      const trades = d.history.trades('BTC', 'perp', row[0], row[0] + MIN)
      const buy = trades.filter((t) => t.buy).reduce((a, t) => a + t.size, 0)
      expect(row).toHaveLength(12)
      expect(Number(row[1])).toBe(trades[0]!.price)
      expect(Number(row[4])).toBe(trades.at(-1)!.price)
      expect(Number(row[2])).toBe(Math.max(...trades.map((t) => t.price)))
      expect(Number(row[5])).toBeCloseTo(trades.reduce((a, t) => a + t.size, 0), 9)
      expect(Number(row[9])).toBeCloseTo(buy, 9)
      expect(row[8]).toBe(trades.length)
      expect(row[6]).toBe(row[0] + MIN - 1)
    }
  })

  it('klines without a range are the newest, the open minute partial; endTime alone pages backward', async () => {
    const newest = await get('/fapi/v1/klines?symbol=ETHUSDT&interval=1m&limit=5')
    expect(newest.body.map((r: any) => r[0])).toEqual([4, 3, 2, 1, 0].map((k) => Math.floor(T0 / MIN) * MIN - k * MIN))
    const partial = newest.body.at(-1)
    expect(partial[8]).toBe(d.history.trades('ETH', 'perp', Math.floor(T0 / MIN) * MIN, T0 + 1).length)
    const back = await get(`/fapi/v1/klines?symbol=ETHUSDT&interval=1m&limit=10&endTime=${T0 - DAY}`)
    expect(back.body).toHaveLength(10)
    expect(back.body.at(-1)[0]).toBe(Math.floor((T0 - DAY) / MIN) * MIN)
  })

  it('klines: weights by limit, max 1500 (USD-M) and 1000 (spot), errors in Binance form', async () => {
    clock += MIN // a fresh weight window
    const w = async (limit: number) => Number((await get(`/fapi/v1/klines?symbol=BTCUSDT&interval=1m&limit=${limit}`)).headers.get('x-mbx-used-weight-1m'))
    const a = await w(99)
    expect((await w(100)) - a).toBe(2)
    expect((await w(500)) - a - 2).toBe(5)
    expect((await w(1500)) - a - 7).toBe(10)
    expect((await get('/fapi/v1/klines?symbol=BTCUSDT&interval=1m&limit=1501')).body).toEqual({ code: -1130, msg: "Data sent for parameter 'limit' is not valid." })
    expect((await get('/api/v3/klines?symbol=BTCUSDT&interval=1m&limit=1001')).status).toBe(400)
    expect((await get('/api/v3/klines?symbol=BTCUSDT&interval=1m&limit=1000')).body).toHaveLength(1000)
    expect((await get('/fapi/v1/klines?symbol=NOPEUSDT&interval=1m')).body).toEqual({ code: -1121, msg: 'Invalid symbol.' })
    expect((await get('/fapi/v1/klines?interval=1m')).body.code).toBe(-1102)
  })

  it('openInterestHist: 30 days only, newest `limit` of a range, max 500, pages backward by endTime without gaps', async () => {
    const old = await get(`/futures/data/openInterestHist?symbol=BTCUSDT&period=5m&startTime=${clock - 31 * DAY}`)
    expect(old.status).toBe(400)
    expect(old.body).toEqual({ code: -1130, msg: "parameter 'startTime' is invalid." })
    expect((await get('/futures/data/openInterestHist?symbol=BTCUSDT&period=5m&limit=501')).status).toBe(400)
    const range = await get(`/futures/data/openInterestHist?symbol=BTCUSDT&period=5m&limit=3&startTime=${clock - DAY}&endTime=${clock}`)
    expect(range.body.map((r: any) => r.timestamp)).toEqual([2, 1, 0].map((k) => Math.floor(clock / 300_000) * 300_000 - k * 300_000))
    expect(Object.keys(range.body[0])).toEqual(['symbol', 'sumOpenInterest', 'sumOpenInterestValue', 'CMCCirculatingSupply', 'timestamp'])
    const seen: number[] = []
    let end = clock
    for (;;) {
      const page = await get(`/futures/data/openInterestHist?symbol=BTCUSDT&period=5m&limit=500&endTime=${end}`)
      if (page.body.length === 0) break
      seen.unshift(...page.body.map((r: any) => r.timestamp))
      end = page.body[0].timestamp - 1
    }
    expect(seen[0]).toBeGreaterThanOrEqual(clock - 30 * DAY)
    expect(seen[0]! - (clock - 30 * DAY)).toBeLessThan(300_000)
    expect(seen.every((t, i) => i === 0 || t - seen[i - 1]! === 300_000)).toBe(true)
    expect(seen.length).toBe(Math.floor(30 * DAY / 300_000) + (seen[0] === clock - 30 * DAY ? 1 : 0))
  })

  it('long/short ratios: the documented fields, shares summing to one', async () => {
    for (const path of ['globalLongShortAccountRatio', 'topLongShortPositionRatio']) {
      const r = await get(`/futures/data/${path}?symbol=SOLUSDT&period=5m&limit=2`)
      expect(r.body).toHaveLength(2)
      for (const row of r.body) {
        expect(Object.keys(row)).toEqual(['symbol', 'longShortRatio', 'longAccount', 'shortAccount', 'timestamp'])
        expect(Number(row.longAccount) + Number(row.shortAccount)).toBeCloseTo(1, 4)
      }
    }
  })

  it('fundingRate: from startTime forward (inclusive), at most limit, max 1000', async () => {
    const r = await get(`/fapi/v1/fundingRate?symbol=BTCUSDT&startTime=${clock - 10 * DAY}&limit=5`)
    expect(r.body).toHaveLength(5)
    expect(r.body[0].fundingTime).toBe(Math.ceil((clock - 10 * DAY) / (8 * 3_600_000)) * 8 * 3_600_000)
    expect(r.body.map((x: any) => x.fundingTime)).toEqual(d.history.funding('BTC', clock - 10 * DAY, clock).slice(0, 5).map((f) => f.ts))
    expect((await get('/fapi/v1/fundingRate?symbol=BTCUSDT&limit=1001')).status).toBe(400)
  })

  it('weight over 2400 in a minute: 429 with Retry-After to the window end; going on gets a 418 ban that lifts', async () => {
    clock = Math.floor(clock / MIN) * MIN + 2 * MIN + 10_000
    let last: Awaited<ReturnType<typeof get>> | null = null
    // premiumIndex without a symbol weighs 10: the 241st call of the window is over 2400
    for (let i = 0; i < 300 && (last?.status ?? 200) === 200; i++) last = await get('/fapi/v1/premiumIndex')
    expect(last!.status).toBe(429)
    expect(last!.headers.get('retry-after')).toBe('50')
    expect(last!.body.code).toBe(-1003)
    const statuses: number[] = []
    for (let i = 0; i < 3; i++) statuses.push((await get('/fapi/v1/time')).status)
    expect(statuses).toEqual([429, 429, 418])
    const ban = await get('/fapi/v1/time')
    expect(ban.status).toBe(418)
    expect(Number(ban.headers.get('retry-after'))).toBe(120)
    clock += 121_000
    expect((await get('/fapi/v1/time')).status).toBe(200)
  })

  it('faults: refusal (451, 403), holes in history, dropped connections', async () => {
    d.fault({ kind: 'refuse', status: 451 })
    const r = await get('/fapi/v1/exchangeInfo')
    expect(r.status).toBe(451)
    expect(r.body.msg).toMatch(/restricted location/)
    d.fault(null)
    d.fault({ kind: 'refuse', status: 403, times: 1 })
    const cf = await fetch(`${d.restUrl}/api/v3/time`)
    expect(cf.status).toBe(403)
    expect(await cf.text()).toMatch(/CloudFront distribution is configured to block access from your country/)
    expect((await get('/api/v3/time')).status).toBe(200)
    const hole = { from: clock - 60 * MIN, to: clock - 50 * MIN }
    d.fault({ kind: 'hole', path: '/fapi/v1/klines', ...hole })
    const res = await get(`/fapi/v1/klines?symbol=BTCUSDT&interval=1m&startTime=${clock - 70 * MIN}&limit=30`)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const rows = res.body
    expect(rows.map((x: any) => x[0])).toEqual(Array.from({ length: 30 + 10 }, (_, i) => Math.ceil((clock - 70 * MIN) / MIN) * MIN + i * MIN).filter((t) => t < hole.from || t >= hole.to).slice(0, 30))
    d.fault(null)
    d.fault({ kind: 'down', times: 1 })
    await expect(fetch(`${d.restUrl}/fapi/v1/time`)).rejects.toThrow()
    expect((await get('/fapi/v1/time')).status).toBe(200)
  })

  it('streams: aggTrade frames are the history trades; depth diffs continue the REST snapshot (U/u/pu)', async () => {
    const ws = testSocket(`${d.wsUrl}/public/ws/0`)
    const frames: any[] = []
    ws.on('message', (m) => frames.push(JSON.parse(String(m))))
    await new Promise((r) => ws.once('open', r))
    ws.send(JSON.stringify({ method: 'SUBSCRIBE', params: ['btcusdt@depth@100ms'], id: 1 }))
    const market = testSocket(`${d.wsUrl}/market/ws/1`)
    const trades: any[] = []
    market.on('message', (m) => trades.push(JSON.parse(String(m))))
    await new Promise((r) => market.once('open', r))
    market.send(JSON.stringify({ method: 'SUBSCRIBE', params: ['btcusdt@aggTrade'], id: 7 }))
    await vi.waitFor(() => expect(frames[0]).toEqual({ result: null, id: 1 }))
    const snap = (await get('/fapi/v1/depth?symbol=BTCUSDT&limit=1000')).body
    const subscribedAt = clock
    for (let i = 0; i < 6; i++) {
      clock += 20_000
      await vi.waitFor(() => expect(frames.filter((f) => f.e === 'depthUpdate' && f.E === clock).length).toBe(1))
    }
    const updates = frames.filter((f) => f.e === 'depthUpdate' && f.u > snap.lastUpdateId)
    expect(updates[0].pu).toBe(snap.lastUpdateId)
    updates.forEach((f, i) => i > 0 && expect(f.pu).toBe(updates[i - 1].u))
    await vi.waitFor(() => expect(trades.filter((t) => t.e === 'aggTrade').at(-1)?.E).toBe(clock))
    const got = trades.filter((t) => t.e === 'aggTrade')
    const expected = d.history.trades('BTC', 'perp', subscribedAt + 1, clock + 1)
    expect(got.map((t) => t.a)).toEqual(expected.map((t) => t.id))
    expect(got.map((t) => t.m)).toEqual(expected.map((t) => !t.buy))
    ws.close()
    market.close()
  })
})

