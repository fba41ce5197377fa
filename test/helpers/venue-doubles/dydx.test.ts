// The dYdX double against its documented rules (dydx.ts header): candles newest first paged by toISO with
// startingOpenInterest, historicalFunding paged by effectiveBeforeOrAt, the limit maximum, 100 requests per 10 s,
// and the indexer's stream protocol (connected, subscribed, channel_data / channel_batch_data).
import '../no-network.js'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { testSocket } from '../ws-client.js'
import { startVenueDouble, type VenueDouble } from './index.js'

const MIN = 60_000
const HOUR = 3_600_000
const DAY = 86_400_000
const T0 = Date.UTC(2026, 10, 20, 12, 0, 30)
const iso = (ms: number) => new Date(ms).toISOString()

describe('dYdX double', () => {
  let clock = T0
  let d: VenueDouble
  const get = async (path: string) => {
    const res = await fetch(d.restUrl + path)
    return { status: res.status, body: (await res.json()) as any }
  }

  beforeAll(async () => {
    d = await startVenueDouble('dydx', { now: () => clock, seed: 4 })
  })
  afterAll(() => d.close())

  it('perpetualMarkets: the recorded markets with live oracle price and open interest', async () => {
    const m = (await get('/v4/perpetualMarkets')).body.markets
    expect(Object.keys(m)).toEqual(['BTC-USD', 'ETH-USD', 'SOL-USD'])
    expect(Number(m['BTC-USD'].openInterest)).toBeCloseTo(d.history.openInterestAt('BTC', clock), 4)
    expect(m['BTC-USD'].atomicResolution).toBe(-10)
  })

  it('candles: newest first, toISO pages back (inclusive), startingOpenInterest is the OI history, limit at most 1000', async () => {
    const a = (await get('/v4/candles/perpetualMarkets/BTC-USD?resolution=1MIN&limit=1000')).body.candles
    expect(a).toHaveLength(1000)
    expect(Date.parse(a[0].startedAt)).toBe(Math.floor(clock / MIN) * MIN)
    const oldest = Date.parse(a.at(-1).startedAt)
    const b = (await get(`/v4/candles/perpetualMarkets/BTC-USD?resolution=1MIN&limit=3&toISO=${iso(oldest - 1)}`)).body.candles
    expect(b.map((c: any) => Date.parse(c.startedAt))).toEqual([1, 2, 3].map((k) => oldest - k * MIN))
    const c = b[0]
    const trades = d.history.trades('BTC', 'perp', Date.parse(c.startedAt), Date.parse(c.startedAt) + MIN)
    expect([Number(c.open), Number(c.close), c.trades]).toEqual([trades[0]!.price, trades.at(-1)!.price, trades.length])
    expect(Number(c.startingOpenInterest)).toBeCloseTo(d.history.openInterestAt('BTC', Date.parse(c.startedAt)), 4)
    const range = (await get(`/v4/candles/perpetualMarkets/BTC-USD?resolution=1MIN&fromISO=${iso(clock - 10 * MIN)}&toISO=${iso(clock - 5 * MIN)}`)).body.candles
    // inclusive bounds: the candles starting at 11:51 … 11:55 of a 11:50:30 … 11:55:30 range
    expect(range).toHaveLength(5)
    const over = await get('/v4/candles/perpetualMarkets/BTC-USD?resolution=1MIN&limit=1001')
    expect(over.status).toBe(400)
    expect(over.body.errors[0].param).toBe('limit')
    expect((await get('/v4/candles/perpetualMarkets/NOPE-USD?resolution=1MIN')).status).toBe(404)
  })

  it('historicalFunding: hourly, newest first, effectiveBeforeOrAt pages back', async () => {
    const a = (await get('/v4/historicalFunding/ETH-USD?limit=24')).body.historicalFunding
    expect(a).toHaveLength(24)
    expect(a.map((f: any) => Date.parse(f.effectiveAt))).toEqual(d.history.funding('ETH', clock - DAY - HOUR, clock + 1).map((f) => f.ts).reverse().slice(0, 24))
    const b = (await get(`/v4/historicalFunding/ETH-USD?limit=2&effectiveBeforeOrAt=${a.at(-1).effectiveAt}`)).body.historicalFunding
    expect(b[0].effectiveAt).toBe(a.at(-1).effectiveAt)
    expect(Date.parse(b[1].effectiveAt)).toBe(Date.parse(a.at(-1).effectiveAt) - HOUR)
  })

  it('100 requests per 10 s per IP, then 429', async () => {
    clock = Math.floor(clock / 10_000) * 10_000 + 10_000
    const statuses: number[] = []
    for (let i = 0; i < 101; i++) statuses.push((await get('/v4/height')).status)
    expect(statuses.findIndex((s) => s !== 200)).toBe(100)
    clock += 10_000
    expect((await get('/v4/height')).status).toBe(200)
  })

  it('streams: connected, subscribed with the book, batched book updates, trades with LIQUIDATED ones', async () => {
    const ws = testSocket(`${d.wsUrl}/v4/ws`)
    const frames: any[] = []
    ws.on('message', (m) => frames.push(JSON.parse(String(m))))
    await vi.waitFor(() => expect(frames[0]?.type).toBe('connected'))
    ws.send(JSON.stringify({ type: 'subscribe', channel: 'v4_orderbook', id: 'BTC-USD', batched: true }))
    ws.send(JSON.stringify({ type: 'subscribe', channel: 'v4_trades', id: 'BTC-USD' }))
    await vi.waitFor(() => expect(frames.filter((f) => f.type === 'subscribed')).toHaveLength(2))
    const snap = frames.find((f) => f.type === 'subscribed' && f.channel === 'v4_orderbook').contents
    expect(snap.bids).toHaveLength(100)
    expect(Object.keys(snap.bids[0])).toEqual(['price', 'size'])
    const from = clock
    clock += 10 * MIN
    await vi.waitFor(() => expect(frames.some((f) => f.type === 'channel_batch_data' && f.channel === 'v4_orderbook')).toBe(true))
    await vi.waitFor(() => expect(frames.some((f) => f.type === 'channel_data' && f.channel === 'v4_trades')).toBe(true))
    const trades = frames.filter((f) => f.type === 'channel_data' && f.channel === 'v4_trades').flatMap((f) => f.contents.trades)
    expect(trades).toHaveLength(d.history.trades('BTC', 'perp', from + 1, clock + 1).length)
    expect(trades.some((t: any) => t.type === 'LIQUIDATED')).toBe(true)
    ws.close()
  })
})
