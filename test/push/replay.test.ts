// The push side on the replayed recording (recordings/fixtures.jsonl through the five live connectors, on a real
// port): GET /v1/stream carries every ticker update the replay's ingest takes, each within 1 s of its ingest; a
// client that drops and comes back with Last-Event-ID loses nothing and gets nothing twice; and price alerts on the
// replayed median mark fire at most once per entry into their condition, on the side the replay settles on, each
// delivery received once. What should arrive is derived from the events
// the replay's ingest was handed (its onEvent), never from the stream hub under test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MarketEvent, TickerEvent } from '../../src/domain/events.js'
import { marketId } from '../../src/read/live.js'
import type { TestService } from '../helpers/service.js'
import { FIXTURES_RECORDING, fixture, startReplayService, type ReplayService } from '../sources/replay/helpers.js'
import { sseReader } from './sse-client.js'
import { webhookReceiver, type Receiver } from './receiver.js'

const START = Date.UTC(2026, 2, 2, 12, 0, 0)

/** the tickers the live state takes (one no older than the market's newest), as the ingest was handed them */
const taken: { e: TickerEvent; at: number }[] = []
const newest = new Map<string, number>()
const onEvent = (e: MarketEvent) => {
  if (e.type !== 'ticker') return
  const id = marketId(e.exchange, e.coin, e.marketType)
  if ((newest.get(id) ?? -Infinity) > e.ts) return
  newest.set(id, e.ts)
  taken.push({ e, at: Date.now() })
}
const median = (values: number[]): number | null => {
  const xs = [...values].sort((a, b) => a - b)
  const m = xs.length >> 1
  return !xs.length ? null : xs.length % 2 ? xs[m]! : (xs[m - 1]! + xs[m]!) / 2
}
/**
 * the coin's perp median mark after each of the first n taken tickers (the newest per venue), what price rules compare:
 * the venues that publish a mark (dYdX's is its oracle), a mark more than 5 % from their median left out (with 3 or
 * more; none left: no price)
 */
const medians = (coin: string, n: number): (number | null)[] => {
  const marks = new Map<string, number>()
  const out: (number | null)[] = []
  for (const { e } of taken.slice(0, n)) {
    if (e.coin === coin && e.marketType === 'perp' && e.exchange !== 'dydx' && e.markPrice !== null) marks.set(e.exchange, e.markPrice)
    const all = [...marks.values()]
    const m = median(all)
    out.push(all.length < 3 ? m : median(all.filter((x) => Math.abs(x - m!) <= 0.05 * m!)))
  }
  return out
}

/** a ticker as the stream carries it: dYdX's mark null with the note, as /v1/markets/ticker says */
const asFrame = (e: TickerEvent) => ({
  exchange: e.exchange, coin: e.coin, market_type: e.marketType, ts: e.ts, mark_price: e.exchange === 'dydx' ? null : e.markPrice, index_price: e.indexPrice, last_price: e.lastPrice,
  funding_rate: e.fundingRate, funding_interval_hours: e.fundingIntervalHours, next_funding_time: e.nextFundingTime,
  mark_note: e.exchange === 'dydx' ? expect.stringContaining('no mark price apart from its oracle') : null,
})

let s: ReplayService
let receiver: Receiver | undefined
const received: { path: string; eventId: string; value: number }[] = []
type Reader = ReturnType<typeof sseReader>
let whole: Reader
let wholeOpenedAt = 0
let cut: Reader
let resumed: Reader | undefined
let resumedFrom = ''
/** per coin, the last median the rules were left with at the end of a due time (the price they settle on) */
const settled = new Map<string, number>()
/** the taken tickers up to the end of the replay (the REST polls go on answering afterwards) */
let played = 0
interface Rule {
  coin: 'BTC' | 'ETH'
  id: string
  path: string
  type: 'price_above' | 'price_below'
  value: number
}
const rules: Rule[] = []

const open = (lastEventId: string) => fetch(`${s.t.url}/v1/stream?channels=ticker`, { headers: { authorization: `Bearer ${s.key}`, 'last-event-id': lastEventId } })
const until = async (cond: () => boolean | Promise<boolean>, what: string, ms = 10_000) => {
  const end = Date.now() + ms
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 5))
  }
}
const lastTrue = async () => new Map((await s.t.services.db.sql.query<{ id: string; last_true: boolean | null }>('SELECT id, last_true FROM alert_rule')).map((r) => [r.id, r.last_true]))
const holds = (r: Rule, m: number) => (r.type === 'price_above' ? m > r.value : m < r.value)

beforeAll(async () => {
  receiver = await webhookReceiver((d) => received.push({ path: d.path, eventId: d.eventId, value: (JSON.parse(d.body) as { value: number }).value }))
  const base = receiver.base
  // BTC: the collage's four marks (46 816, 68 591, 84 660, 98 818) never agree; ETH: Binance's and Hyperliquid's
  const thresholds = [
    ['BTC', 'price_above', 92_000], ['BTC', 'price_above', 86_000], ['BTC', 'price_below', 90_000], ['BTC', 'price_below', 88_000], ['BTC', 'price_below', 86_000], ['BTC', 'price_below', 80_000],
    ['ETH', 'price_above', 3_700], ['ETH', 'price_below', 3_800], ['ETH', 'price_above', 3_850], ['ETH', 'price_below', 3_600],
  ] as const
  // the rules exist before the market starts: they follow the replayed median from its first ticker on
  const beforeMarket = async (t: TestService, key: string) => {
    for (const [i, [coin, type, value]] of thresholds.entries()) {
      const res = await t.fetch('/v1/alerts', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ coin, condition: { type, value }, url: `${base}/r${i}` }),
      })
      expect(res.status).toBe(201)
      rules.push({ coin, id: ((await res.json()) as { data: { alert_id: string } }).data.alert_id, path: `/r${i}`, type, value })
    }
  }
  s = await startReplayService(FIXTURES_RECORDING, { start: START, listen: true, onEvent, beforeMarket, env: { ALERT_ALLOW_LOOPBACK: '1', ALERT_POLL_MS: '20', ALERT_RETRY_BASE_MS: '50' } })
  // two clients from the first event on (id 0: everything retained, then live); `cut` drops a third of the way in
  const first = await open('0')
  wholeOpenedAt = Date.now()
  whole = sseReader(first)
  cut = sseReader(await open('0'))

  // play one due time at a time; after each, every rule has been evaluated on the median it reached
  const end = s.replay.clock.wallAt(s.replay.clock.warpedOfCompressed(s.replay.warp.last, 0))
  const span = end - s.now()
  const cutAt = s.now() + span / 3
  const resumeAt = s.now() + (2 * span) / 3
  for (let guard = 0; guard < 10_000; guard++) {
    const next = s.replay.nextDueWall()
    if (next === undefined || next > end) break
    await s.moveTo(Math.max(s.now() + 1, next))
    // without a price (no mark yet, or marks in two groups with none near their median) a rule keeps its state
    const now = new Map((['BTC', 'ETH'] as const).map((c) => [c, medians(c, taken.length).at(-1) ?? null]))
    for (const [c, m] of now) if (m !== null) settled.set(c, m)
    await until(async () => {
      const state = await lastTrue()
      return rules.every((r) => now.get(r.coin) === null || state.get(r.id) === holds(r, now.get(r.coin)!))
    }, `the rules evaluated at ${JSON.stringify([...now])}`)
    if (!resumedFrom && s.now() >= cutAt) {
      await until(() => cut.frames.length > 0, 'the cut client to have a frame')
      resumedFrom = cut.frames.at(-1)!.id!
      await cut.cancel()
      await cut.done
    }
    if (!resumed && resumedFrom && s.now() >= resumeAt) resumed = sseReader(await open(resumedFrom))
  }
  await s.playToEnd()
  played = taken.length
  await until(() => whole.frames.length >= played && Number(resumed?.frames.at(-1)?.id ?? 0) >= Number(whole.frames[played - 1]!.id), 'both clients to reach the end of the replay')
}, 120_000)

afterAll(async () => {
  whole?.cancel()
  resumed?.cancel()
  await s?.close()
  await receiver?.close()
})

describe('push on the replayed recording', () => {
  it('GET /v1/stream carries every ticker the replay ingested, in order, each within 1 s of its ingest', () => {
    expect(played).toBeGreaterThan(100)
    const frames = whole.frames.slice(0, played)
    expect(frames.map((f) => f.event)).toEqual(Array(played).fill('ticker'))
    expect(frames.map((f) => JSON.parse(f.data))).toEqual(taken.slice(0, played).map((x) => asFrame(x.e)))
    const ids = frames.map((f) => Number(f.id))
    for (let i = 1; i < ids.length; i++) expect(ids[i]).toBeGreaterThan(ids[i - 1]!)
    // every venue and coin the recording quotes; those taken after the client connected, within 1 s
    expect(new Set(frames.map((f) => (JSON.parse(f.data) as { exchange: string }).exchange))).toEqual(new Set(['binance', 'bybit', 'dydx', 'hyperliquid', 'okx']))
    let timed = 0
    for (const [i, f] of frames.entries()) {
      if (taken[i]!.at < wholeOpenedAt) continue
      timed++
      expect(f.at - taken[i]!.at, `ticker ${i}`).toBeLessThan(1000)
    }
    expect(timed).toBeGreaterThan(played / 2)
    // and the raw payloads' marks went through: OKX's mark_price.json, Binance's premium_index_all.json
    const btc = frames.map((f) => JSON.parse(f.data) as { exchange: string; coin: string; market_type: string; mark_price: number | null })
    const okxMark = Number(fixture('okx/mark_price.json').data[0].markPx)
    const binanceMark = Number(fixture<{ symbol: string; markPrice: string }[]>('binance/premium_index_all.json').find((r) => r.symbol === 'BTCUSDT')!.markPrice)
    expect(btc.some((t) => t.exchange === 'okx' && t.coin === 'BTC' && t.market_type === 'perp' && t.mark_price === okxMark)).toBe(true)
    expect(btc.some((t) => t.exchange === 'binance' && t.coin === 'BTC' && t.market_type === 'perp' && t.mark_price === binanceMark)).toBe(true)
  })

  it('a client that dropped and reconnects with Last-Event-ID gets every ticker it missed, none twice', () => {
    expect(resumedFrom).not.toBe('')
    const before = cut.frames
    expect(before.at(-1)!.id).toBe(resumedFrom)
    // it was away for a third of the replay: tickers were taken meanwhile
    const beforeCount = before.length
    const missed = whole.frames.findIndex((f) => f.id === resumedFrom)
    expect(missed).toBe(beforeCount - 1)
    const joined = [...before, ...resumed!.frames].slice(0, played)
    expect(joined.length).toBe(played)
    expect(joined.map((f) => f.id)).toEqual(whole.frames.slice(0, played).map((f) => f.id))
    expect(joined.map((f) => JSON.parse(f.data))).toEqual(taken.slice(0, played).map((x) => asFrame(x.e)))
    expect(resumed!.frames[0]!.at).toBeGreaterThan(before.at(-1)!.at)
  })

  it('price alerts on the replayed median mark fire at most once per entry into their condition, each delivered once; never on marks that do not agree', async () => {
    // the medians the replay went through from its first ticker on; the venues' first answers arrive within
    // milliseconds, so a rule may see a passing median or not, but the one it settles on it must have acted on
    let fired = 0
    for (const r of rules) {
      const all = medians(r.coin, played).filter((m) => m !== null)
      const final = settled.get(r.coin)
      let entries = 0
      let was = false
      for (const m of all) {
        if (holds(r, m) && !was) entries++
        was = holds(r, m)
      }
      await until(async () => (await s.t.services.db.sql.query<{ n: number }>("SELECT count(*)::int AS n FROM alert_delivery WHERE rule_id = $1 AND status <> 'delivered'", [r.id]))[0]!.n === 0, `${r.path} delivered`)
      const queued = await s.t.services.db.sql.query<{ id: string }>('SELECT id FROM alert_delivery WHERE rule_id = $1', [r.id])
      const got = received.filter((x) => x.path === r.path)
      const what = `${r.path} (${r.type} ${r.value}) over ${[...new Set(all)].join(' → ')}`
      expect(got.map((x) => x.eventId).sort(), what).toEqual(queued.map((q) => q.id).sort())
      expect(got.length, what).toBeLessThanOrEqual(entries)
      // true where the replay settled: it fired
      if (final !== undefined && holds(r, final)) expect(got.length, what).toBeGreaterThanOrEqual(1)
      // the value delivered is a median the replay went through, on the rule's side
      for (const x of got) {
        expect(all, what).toContain(x.value)
        expect(holds(r, x.value), what).toBe(true)
      }
      fired += got.length
    }
    // BTC's four marks never agree (none within 5 % of their median): the rules were never left with a price
    expect(settled.has('BTC')).toBe(false)
    expect(new Set(medians('BTC', played).filter((m) => m !== null)).size).toBeGreaterThan(2)
    // ETH's two marks are a median as they are: the rules settled on it, and those on its side fired
    expect(settled.has('ETH')).toBe(true)
    expect(fired).toBeGreaterThanOrEqual(2)
  })
})
