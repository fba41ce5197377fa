// The Hyperliquid double against its documented rules (hyperliquid.ts header): candleSnapshot's 5000-candle window,
// fundingHistory's 500 per response and startTime paging, the 1200-per-minute weight with per-item surcharges, streams.
import '../no-network.js'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { testSocket } from '../ws-client.js'
import { startVenueDouble, type VenueDouble } from './index.js'

const MIN = 60_000
const HOUR = 3_600_000
const DAY = 86_400_000
const T0 = Date.UTC(2026, 10, 20, 12, 0, 30)

describe('Hyperliquid double', () => {
  let clock = T0
  let d: VenueDouble
  const info = async (body: unknown) => {
    const res = await fetch(`${d.restUrl}/info`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
    const text = await res.text()
    return { status: res.status, body: text.startsWith('[') || text.startsWith('{') ? (JSON.parse(text) as any) : text }
  }

  beforeAll(async () => {
    d = await startVenueDouble('hyperliquid', { now: () => clock, seed: 9 })
  })
  afterAll(() => d.close())

  it('metaAndAssetCtxs: the recorded universe, one context per asset, open interest both sides', async () => {
    const [meta, ctxs] = (await info({ type: 'metaAndAssetCtxs' })).body
    expect(meta.universe.map((u: any) => u.name)).toEqual(['SOL', 'APT', 'ATOM', 'BTC', 'ETH', 'MATIC'])
    expect(ctxs).toHaveLength(6)
    expect(Number(ctxs[3].openInterest)).toBeCloseTo(2 * d.history.openInterestAt('BTC', clock), 4)
    expect(Number(ctxs[3].markPx)).toBe(d.history.price('BTC', 'perp', clock))
  })

  it('candleSnapshot: only the most recent 5000 candles exist, at most 5000 a response, oldest first', async () => {
    const all = (await info({ type: 'candleSnapshot', req: { coin: 'BTC', interval: '1m', startTime: clock - 10 * DAY, endTime: clock } })).body
    expect(all).toHaveLength(5000)
    expect(all[0].t).toBe(Math.floor(clock / MIN) * MIN - 4999 * MIN)
    expect(all.at(-1).t).toBe(Math.floor(clock / MIN) * MIN)
    const c = all[10]
    const trades = d.history.trades('BTC', 'perp', c.t, c.t + MIN)
    expect([Number(c.o), Number(c.c), c.n]).toEqual([trades[0]!.price, trades.at(-1)!.price, trades.length])
    expect(Number(c.v)).toBeCloseTo(trades.reduce((s, t) => s + t.size, 0), 8)
    expect(Object.keys(c).sort()).toEqual(['T', 'c', 'h', 'i', 'l', 'n', 'o', 's', 't', 'v'])
    // at 1h the same 5000-candle window reaches 208 days back
    const windowStart = Math.floor(clock / HOUR) * HOUR - 4999 * HOUR
    const hours = (await info({ type: 'candleSnapshot', req: { coin: 'ETH', interval: '1h', startTime: clock - 300 * DAY, endTime: windowStart + 2 * HOUR } })).body
    expect(hours.map((h: any) => h.t)).toEqual([0, 1, 2].map((k) => windowStart + k * HOUR))
  })

  it('fundingHistory: hourly, at most 500 a response, paged by the last time as the next startTime', async () => {
    const start = clock - 30 * DAY
    const seen: number[] = []
    let from = start
    for (let i = 0; i < 5; i++) {
      const r = (await info({ type: 'fundingHistory', coin: 'SOL', startTime: from })).body
      expect(r.length).toBeLessThanOrEqual(500)
      if (r.length === 0) break
      seen.push(...r.map((x: any) => x.time))
      from = r.at(-1).time + 1
    }
    expect(seen).toEqual(d.history.funding('SOL', start, clock + 1).map((f) => f.ts))
    expect(seen.length).toBe(720)
  })

  it('1200 weight a minute: 20 a request, +1 per 60 candles returned; the request after the budget is spent gets 429', async () => {
    clock = Math.floor(clock / MIN) * MIN + 2 * MIN
    // 5000 candles: 20 + 83
    expect((await info({ type: 'candleSnapshot', req: { coin: 'BTC', interval: '1m', startTime: 0 } })).body).toHaveLength(5000)
    const statuses: number[] = []
    for (let i = 0; i < 60; i++) statuses.push((await info({ type: 'meta' })).status)
    // 103 + 55 × 20 = 1203: the 55th meta spends the budget, the 56th is refused
    expect(statuses.findIndex((s) => s === 429)).toBe(55)
    clock += MIN
    expect((await info({ type: 'meta' })).status).toBe(200)
  })

  it('streams: trades from the history (taker side B/A), l2Book snapshots of 20 levels, ping/pong', async () => {
    const ws = testSocket(`${d.wsUrl}/ws`)
    const frames: any[] = []
    ws.on('message', (m) => frames.push(JSON.parse(String(m))))
    await new Promise((r) => ws.once('open', r))
    const from = clock
    ws.send(JSON.stringify({ method: 'subscribe', subscription: { type: 'trades', coin: 'ETH' } }))
    ws.send(JSON.stringify({ method: 'subscribe', subscription: { type: 'l2Book', coin: 'ETH' } }))
    await vi.waitFor(() => expect(frames.find((f) => f.channel === 'l2Book')).toBeDefined())
    expect(frames[0]).toEqual({ channel: 'subscriptionResponse', data: { method: 'subscribe', subscription: { type: 'trades', coin: 'ETH' } } })
    const book = frames.find((f) => f.channel === 'l2Book').data
    expect(book.levels[0]).toHaveLength(20)
    expect(Number(book.levels[0][0].px)).toBeLessThan(Number(book.levels[1][0].px))
    clock += 20_000
    await vi.waitFor(() => expect(frames.filter((f) => f.channel === 'trades').flatMap((f) => f.data).at(-1)?.time).toBe(d.history.trades('ETH', 'perp', from + 1, clock + 1).at(-1)!.ts))
    const got = frames.filter((f) => f.channel === 'trades').flatMap((f) => f.data)
    const want = d.history.trades('ETH', 'perp', from + 1, clock + 1)
    expect(got.map((t: any) => [t.tid, t.side])).toEqual(want.map((t) => [t.id, t.buy ? 'B' : 'A']))
    ws.send(JSON.stringify({ method: 'ping' }))
    await vi.waitFor(() => expect(frames.at(-1)).toEqual({ channel: 'pong' }))
    ws.close()
  })
})
