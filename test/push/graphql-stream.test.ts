// The GraphQL `stream` subscription over yoga's SSE transport: the same events as GET /v1/stream, resumable by
// lastEventId, metered the same way (1 credit per channel per minute; the minute that cannot be paid ends it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { TickerEvent } from '../../src/domain/events.js'
import { Ingest } from '../../src/ingest/ingest.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { sseReader, until } from './sse-client.js'

let t: TestService
let ingest: Ingest
let price = 1000
const ticker = (coin: string): TickerEvent => ({
  type: 'ticker', exchange: 'bybit', coin, marketType: 'perp', ts: Date.now(), markPrice: ++price, indexPrice: price, lastPrice: price, fundingRate: 0, fundingIntervalHours: 8, nextFundingTime: null,
})

beforeAll(async () => {
  t = await startTestService({ listen: true, env: { STREAM_MINUTE_MS: '400' } })
  ingest = new Ingest({ db: t.services.db, market: t.services.market })
})
afterAll(async () => t.close())

const subscribe = (key: string, query: string) =>
  fetch(`${t.url}/graphql`, { method: 'POST', headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream', 'content-type': 'application/json' }, body: JSON.stringify({ query }) })
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const payloads = (frames: { event: string; data: string }[]): any[] => frames.filter((f) => f.event === 'next').map((f) => JSON.parse(f.data).data.stream)

describe('subscription stream', () => {
  it('delivers the coin asked for, resumes after lastEventId, and charges per channel per minute', async () => {
    const { apiKey, accountId } = await t.signup()
    await t.setCredits(accountId, 3)
    const res = await subscribe(apiKey, 'subscription { stream(channels: [TICKER], coins: ["eth"]) { id channel coin data } }')
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/)
    const s = sseReader(res)
    const marks: number[] = []
    await until(async () => {
      const [a] = await t.services.db.sql.query<{ credits: number }>('SELECT credits FROM account WHERE id = $1', [accountId])
      return Number(a!.credits) === 2
    }, 5000, 'the first minute charged')
    for (let i = 0; i < 5; i++) {
      const e = ticker('ETH')
      marks.push(e.markPrice!)
      ingest.emit(e)
      ingest.emit(ticker('BTC'))
    }
    await until(() => payloads(s.frames).length >= 5, 5000, '5 events')
    const got = payloads(s.frames)
    expect(got.slice(0, 5).map((p) => p.data.mark_price)).toEqual(marks)
    expect(got.every((p) => p.channel === 'ticker' && p.coin === 'ETH')).toBe(true)
    // 3 credits: minutes one, two and three; the fourth cannot be paid and ends the stream
    await s.done
    const last = payloads(s.frames).at(-1)
    expect(last).toMatchObject({ channel: 'end', id: null, data: { reason: 'insufficient_credits', credits_remaining: 0 } })
    const rows = await t.services.db.sql.query<{ delta: number }>("SELECT delta FROM credit_ledger WHERE account_id = $1 AND kind = 'charge'", [accountId])
    expect(rows.map((r) => Number(r.delta))).toEqual([-1, -1, -1])

    // resume: what came after the second event
    await t.setCredits(accountId, 10)
    const again = sseReader(await subscribe(apiKey, `subscription { stream(channels: [TICKER], coins: ["ETH"], lastEventId: "${got[1].id}") { id data } }`))
    await until(() => payloads(again.frames).length >= 3, 5000, 'the 3 events after the second')
    again.cancel()
    expect(payloads(again.frames).slice(0, 3).map((p) => p.data.mark_price)).toEqual(marks.slice(2))
  })

  it('refuses an unknown coin by name and charges nothing', async () => {
    const { apiKey, accountId } = await t.signup()
    const s = sseReader(await subscribe(apiKey, 'subscription { stream(channels: [TICKER], coins: ["NOPE"]) { id } }'))
    await s.done
    expect(s.frames.map((f) => f.data).join('')).toContain('coins')
    const rows = await t.services.db.sql.query("SELECT 1 FROM credit_ledger WHERE account_id = $1 AND kind = 'charge'", [accountId])
    expect(rows).toHaveLength(0)
  })

  it('a lastEventId older than the replay bound replays the newest 1,000 events, after a replay_truncated event', async () => {
    const { apiKey } = await t.signup()
    const hub = t.services.market.stream
    const from = hub.lastId()
    const ids: number[] = []
    for (let i = 0; i < 1200; i++) {
      ingest.emit(ticker('XRP'))
      ids.push(hub.lastId())
    }
    // ticker frames are about 250 bytes: 1,000 of them fit in the byte bound (256 KiB), so the count bound is met
    const s = sseReader(await subscribe(apiKey, `subscription { stream(channels: [TICKER], coins: ["XRP"], lastEventId: "${from}") { id channel data } }`))
    await until(() => payloads(s.frames).at(-1)?.id === String(ids.at(-1)), 5000, 'the replay up to the newest event')
    s.cancel()
    const [notice, ...replayed] = payloads(s.frames)
    expect(notice).toMatchObject({ id: null, channel: 'replay_truncated', data: { reason: 'replay_limit', requested_after: from, first_id: ids[200], max_events: 1000, max_bytes: 256 * 1024 } })
    expect(replayed.map((p) => Number(p.id))).toEqual(ids.slice(200))
    const bytes = replayed.reduce((a, p) => a + `id: ${p.id}\nevent: ticker\ndata: ${JSON.stringify(p.data)}\n\n`.length, 0)
    expect(bytes).toBeLessThanOrEqual(256 * 1024)
  })

  // last: it ends every stream of this service
  it('a graceful shutdown ends an open subscription with a last end event, then completes it', async () => {
    const { apiKey } = await t.signup()
    const s = sseReader(await subscribe(apiKey, 'subscription { stream(channels: [TICKER], coins: ["SOL"]) { id channel coin data } }'))
    const e = ticker('SOL')
    // the subscription is live once an event ingested now reaches it
    await until(() => {
      ingest.emit({ ...e, ts: Date.now() })
      return payloads(s.frames).length > 0
    }, 5000, 'a live event')
    // what SIGTERM does (src/main.ts): the push channels close
    t.services.market.stream.close({ reason: 'shutting_down', detail: 'This node is stopping.' })
    await s.done
    expect(payloads(s.frames).at(-1)).toMatchObject({ channel: 'end', id: null, data: { reason: 'shutting_down', detail: 'This node is stopping.' } })
    expect(s.frames.at(-1)!.event).toBe('complete')
    // a subscription opened during the shutdown ends at once, charging nothing
    const before = await t.services.db.sql.query("SELECT 1 FROM credit_ledger WHERE kind = 'charge'")
    const late = sseReader(await subscribe(apiKey, 'subscription { stream(channels: [TICKER]) { id channel data } }'))
    await late.done
    expect(payloads(late.frames)).toEqual([expect.objectContaining({ channel: 'end', data: expect.objectContaining({ reason: 'shutting_down' }) })])
    expect(await t.services.db.sql.query("SELECT 1 FROM credit_ledger WHERE kind = 'charge'")).toHaveLength(before.length)
    // and GET /v1/stream is refused, uncharged
    expect((await fetch(`${t.url}/v1/stream?channels=ticker`, { headers: { authorization: `Bearer ${apiKey}` } })).status).toBe(503)
    expect(await t.services.db.sql.query("SELECT 1 FROM credit_ledger WHERE kind = 'charge'")).toHaveLength(before.length)
  })
})
