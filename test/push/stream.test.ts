// GET /v1/stream on a real port: every ticker ingested reaches a subscribed client within 1 s, a reconnect with
// Last-Event-ID loses nothing, parameters are refused by name, the stream is never compressed, and credits are
// exact (1 per channel per metered minute; the minute that cannot be paid for ends the stream).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Ingest } from '../../src/ingest/ingest.js'
import type { MarketEvent, TickerEvent } from '../../src/domain/events.js'
import { marketId } from '../../src/read/live.js'
import { liveDraft } from '../../src/read/stream/drafts.js'
import { MarketSimulator } from '../../src/sources/simulator/index.js'
import { expectProblem, startTestService, type TestService } from '../helpers/service.js'
import { sseReader, until } from './sse-client.js'

let t: TestService
let ingest: Ingest
let price = 50_000

const ticker = (coin: string, exchange: TickerEvent['exchange'] = 'binance'): TickerEvent => ({
  type: 'ticker', exchange, coin, marketType: 'perp', ts: Date.now(), markPrice: ++price, indexPrice: price, lastPrice: price, fundingRate: 0.0001, fundingIntervalHours: 8, nextFundingTime: null,
})

beforeAll(async () => {
  t = await startTestService({ listen: true, env: { STREAM_MINUTE_MS: '400', STREAM_HEARTBEAT_MS: '100' } })
  ingest = new Ingest({ db: t.services.db, market: t.services.market })
})
afterAll(async () => t.close())

const open = (key: string, query: string, headers: Record<string, string> = {}) => fetch(`${t.url}/v1/stream?${query}`, { headers: { authorization: `Bearer ${key}`, ...headers } })

describe('GET /v1/stream', () => {
  it('refuses bad parameters by name, without a key, and charges nothing', async () => {
    const { apiKey, accountId } = await t.signup()
    expect((await expectProblem(await open(apiKey, 'channels=ticker,news'), 400, 'invalid_parameter')).parameter ?? 'channels').toBe('channels')
    expect(JSON.stringify(await expectProblem(await open(apiKey, 'coin=NOPE'), 400, 'invalid_parameter'))).toContain('coin')
    expect(JSON.stringify(await expectProblem(await open(apiKey, 'channels=ticker', { 'last-event-id': 'abc' }), 400, 'invalid_parameter'))).toContain('Last-Event-ID')
    expect(JSON.stringify(await expectProblem(await open(apiKey, 'chanels=ticker'), 400, 'invalid_parameter'))).toContain('chanels')
    await expectProblem(await fetch(`${t.url}/v1/stream`), 401, 'unauthorized')
    const rows = await t.services.db.sql.query('SELECT 1 FROM credit_ledger WHERE account_id = $1 AND kind = $2', [accountId, 'charge'])
    expect(rows).toHaveLength(0)
  })

  it('delivers every ticker update of the coin asked for within 1 s of ingest, uncompressed', async () => {
    const { apiKey } = await t.signup()
    const res = await open(apiKey, 'channels=ticker&coin=btc', { 'accept-encoding': 'gzip, br' })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/)
    expect(res.headers.get('content-encoding')).toBeNull()
    const s = sseReader(res)
    const sent: { mark: number; at: number }[] = []
    for (let i = 0; i < 30; i++) {
      const e = ticker('BTC', i % 2 ? 'okx' : 'binance')
      sent.push({ mark: e.markPrice!, at: Date.now() })
      ingest.emit(e)
      ingest.emit(ticker('ETH'))
      await new Promise((r) => setImmediate(r))
    }
    await until(() => s.frames.length >= 30, 5000, '30 ticker events')
    s.cancel()
    expect(s.frames.map((f) => JSON.parse(f.data).mark_price)).toEqual(sent.map((x) => x.mark))
    for (const [i, f] of s.frames.entries()) {
      expect(f.event).toBe('ticker')
      expect(JSON.parse(f.data).coin).toBe('BTC')
      expect(f.at - sent[i]!.at).toBeLessThan(1000)
    }
    const ids = s.frames.map((f) => Number(f.id))
    expect([...ids].sort((a, b) => a - b)).toEqual(ids)
  })

  it('on the simulator: every ticker the live state takes is on the stream, in order, within 1 s', async () => {
    const { apiKey } = await t.signup()
    const s = sseReader(await open(apiKey, 'channels=ticker&coin=XRP'))
    const taken: { mark: number | null; at: number }[] = []
    const newest = new Map<string, number>()
    // what the live state keeps: a market's ticker no older than the one it holds (derived here from the raw events)
    const onEvent = (e: MarketEvent) => {
      if (e.type !== 'ticker' || e.coin !== 'XRP') return
      const id = marketId(e.exchange, e.coin, e.marketType)
      if ((newest.get(id) ?? -Infinity) > e.ts) return
      newest.set(id, e.ts)
      // dYdX publishes no mark apart from its oracle: the stream says null, as /v1/markets/ticker does
      taken.push({ mark: e.exchange === 'dydx' ? null : e.markPrice, at: Date.now() })
    }
    const sim = new MarketSimulator({ seed: 11, coins: ['XRP'] })
    const from = Date.now()
    sim.live(new Ingest({ db: t.services.db, market: t.services.market, onEvent }), { manual: true, fromTs: from })
    for (let step = 1; step <= 20; step++) {
      sim.pump(from + step * 1000)
      await new Promise((r) => setImmediate(r))
    }
    expect(taken.length).toBeGreaterThan(20)
    await until(() => s.frames.length >= taken.length, 5000, `${taken.length} simulated tickers`)
    s.cancel()
    expect(s.frames.map((f) => JSON.parse(f.data).mark_price)).toEqual(taken.map((x) => x.mark))
    for (const [i, f] of s.frames.entries()) expect(f.at - taken[i]!.at).toBeLessThan(1000)
  })

  it('a dYdX ticker says what /v1/markets/ticker says: no mark, with the note; its oracle as the index', async () => {
    const { apiKey } = await t.signup()
    const s = sseReader(await open(apiKey, 'channels=ticker&coin=LINK'))
    const oracle = 17.25
    ingest.emit({ type: 'ticker', exchange: 'dydx', coin: 'LINK', marketType: 'perp', ts: Date.now(), markPrice: oracle, indexPrice: oracle, lastPrice: null, fundingRate: 0.00001, fundingIntervalHours: 1, nextFundingTime: null })
    ingest.emit({ type: 'ticker', exchange: 'okx', coin: 'LINK', marketType: 'perp', ts: Date.now(), markPrice: 17.3, indexPrice: 17.29, lastPrice: 17.31, fundingRate: 0.0001, fundingIntervalHours: 8, nextFundingTime: null })
    await until(() => s.frames.length >= 2, 5000, 'the two LINK tickers')
    s.cancel()
    const [dydx, okx] = s.frames.map((f) => JSON.parse(f.data))
    expect(dydx).toMatchObject({ exchange: 'dydx', mark_price: null, index_price: oracle, mark_note: expect.stringContaining('no mark price apart from its oracle') })
    expect(okx).toMatchObject({ exchange: 'okx', mark_price: 17.3, index_price: 17.29, mark_note: null })
  })

  it('resumes after Last-Event-ID without losing or repeating an event', async () => {
    const { apiKey } = await t.signup()
    const first = sseReader(await open(apiKey, 'channels=ticker&coin=SOL'))
    const marks: number[] = []
    for (let i = 0; i < 5; i++) {
      const e = ticker('SOL')
      marks.push(e.markPrice!)
      ingest.emit(e)
    }
    await until(() => first.frames.length >= 5, 5000, 'first 5 events')
    const lastId = first.frames[2]!.id!
    first.cancel()
    // while the client is away
    for (let i = 0; i < 10; i++) {
      const e = ticker('SOL')
      marks.push(e.markPrice!)
      ingest.emit(e)
    }
    const again = sseReader(await open(apiKey, 'channels=ticker&coin=SOL', { 'last-event-id': lastId }))
    const e = ticker('SOL')
    marks.push(e.markPrice!)
    ingest.emit(e)
    await until(() => again.frames.length >= 13, 5000, 'the missed events and the new one')
    again.cancel()
    expect(again.frames.map((f) => JSON.parse(f.data).mark_price)).toEqual(marks.slice(3))
  })

  it('charges 1 credit per channel per minute and ends with a final event when the account cannot pay', async () => {
    const { apiKey, accountId } = await t.signup()
    await t.setCredits(accountId, 5)
    const res = await open(apiKey, 'channels=ticker,liquidations&coin=BTC')
    expect(res.status).toBe(200)
    expect(res.headers.get('x-credits-charged')).toBe('2')
    const s = sseReader(res)
    await s.done
    const end = s.frames.at(-1)!
    expect(end.event).toBe('end')
    expect(JSON.parse(end.data)).toMatchObject({ reason: 'insufficient_credits', credits_remaining: 1 })
    const rows = await t.services.db.sql.query<{ delta: number; endpoint: string }>('SELECT delta, endpoint FROM credit_ledger WHERE account_id = $1 AND kind = $2 ORDER BY id', [accountId, 'charge'])
    expect(rows.map((r) => [Number(r.delta), r.endpoint])).toEqual([[-2, '/v1/stream'], [-2, '/v1/stream']])
    const [a] = await t.services.db.sql.query<{ credits: number }>('SELECT credits FROM account WHERE id = $1', [accountId])
    expect(Number(a!.credits)).toBe(1)
    // a stream the account cannot pay the first minute of is refused
    await expectProblem(await open(apiKey, 'channels=ticker,liquidations'), 402, 'insufficient_credits')
  })

  it('a reconnect from an id older than the replay bound gets the newest 1,000 events, after an event saying what was left out', async () => {
    const { apiKey } = await t.signup()
    const hub = t.services.market.stream
    const from = hub.lastId()
    // 1,500 liquidations of one coin: small events (about 250 bytes a frame), so the count bound is the one met
    const ids: number[] = []
    for (let i = 0; i < 1500; i++) {
      hub.publish(liveDraft({ type: 'liquidation', exchange: 'okx', coin: 'DOGE', marketType: 'perp', ts: Date.now(), id: `l${i}`, side: i % 2 ? 'long' : 'short', price: 0.1 + i / 1e5, size: 1000 + i, usd: 100 + i }))
      ids.push(hub.lastId())
    }
    const s = sseReader(await open(apiKey, 'channels=liquidations&coin=DOGE', { 'last-event-id': String(from) }))
    await until(() => s.frames.length >= 1001, 5000, 'the notice and the replay')
    s.cancel()
    const [notice, ...replayed] = s.frames
    expect(notice!.event).toBe('replay_truncated')
    expect(notice!.id).toBeNull()
    expect(JSON.parse(notice!.data)).toMatchObject({ reason: 'replay_limit', requested_after: from, first_id: ids[500], max_events: 1000, max_bytes: 256 * 1024 })
    expect(replayed.map((f) => Number(f.id))).toEqual(ids.slice(500))
    expect(replayed.map((f) => JSON.parse(f.data).id)).toEqual(Array.from({ length: 1000 }, (_, i) => `l${i + 500}`))
  })

  it('the replay is also bounded by 256 KiB of frames: the newest events that fit', async () => {
    const { apiKey } = await t.signup()
    const hub = t.services.market.stream
    const from = hub.lastId()
    // 60 regime events of 10 kB each: about 600 kB of frames, more than the byte bound lets through
    const sent: { id: number; n: number; frame: string }[] = []
    for (let i = 0; i < 60; i++) {
      const data = { coin: 'ADA', n: i, pad: 'x'.repeat(10_000) }
      hub.publish({ channel: 'regime', coin: 'ADA', ts: Date.now(), data })
      const id = hub.lastId()
      // the frame as the stream's wire format (docs/streaming.md) writes it
      sent.push({ id, n: i, frame: `id: ${id}\nevent: regime\ndata: ${JSON.stringify(data)}\n\n` })
    }
    // what fits: the longest run of newest frames adding up to at most 256 KiB
    let fit = 0
    for (let bytes = 0; fit < sent.length && bytes + sent[sent.length - 1 - fit]!.frame.length <= 256 * 1024; fit++) bytes += sent[sent.length - 1 - fit]!.frame.length
    expect(fit).toBeGreaterThan(0)
    expect(fit).toBeLessThan(60)
    const expected = sent.slice(-fit)
    const s = sseReader(await open(apiKey, 'channels=regime&coin=ADA', { 'last-event-id': String(from) }))
    await until(() => s.frames.length >= fit + 1, 5000, 'the notice and the replay')
    s.cancel()
    const [notice, ...replayed] = s.frames
    expect(JSON.parse(notice!.data)).toMatchObject({ reason: 'replay_limit', requested_after: from, first_id: expected[0]!.id })
    expect(replayed.map((f) => Number(f.id))).toEqual(expected.map((x) => x.id))
    expect(replayed.map((f) => JSON.parse(f.data).n)).toEqual(expected.map((x) => x.n))
  })
})
