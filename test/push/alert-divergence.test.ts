// divergence_active end to end: 30 h of simulated SOL minutes in the store, a rule on the 1h oi_price divergence,
// then a short-covering rally written into the last 30 stored minutes through the ingest (price +4 %, open interest
// −5 %, taker flow balanced). Whether the signal is active is derived here from the stored rows (composite closes,
// summed open interest, the documented z-scores and readings of docs/methodology.md#divergence), not by the code
// under test: inactive before the rally (no delivery), active after it (one delivery, value true), and no second
// delivery while it stays active.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HOUR_MS, MINUTE_MS } from '../../src/domain/time.js'
import { Ingest } from '../../src/ingest/ingest.js'
import { TEST_NOW, seedMarket } from '../helpers/market.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { until } from './sse-client.js'
import { webhookReceiver, type Receiver } from './receiver.js'

const COIN = 'SOL'
const CURRENT_MINUTE = Math.floor(TEST_NOW / MINUTE_MS) * MINUTE_MS
const LAST_MINUTE = CURRENT_MINUTE - MINUTE_MS
const RALLY_FROM = CURRENT_MINUTE - 30 * MINUTE_MS
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Row = Record<string, any>

let now = TEST_NOW
let t: TestService
let receiver: Receiver | undefined
let base = ''
const received: { path: string; eventId: string; body: { value: unknown; alert: { alert_id: string } } }[] = []

beforeAll(async () => {
  receiver = await webhookReceiver((d) => received.push({ path: d.path, eventId: d.eventId, body: JSON.parse(d.body) as never }))
  base = receiver.base
  t = await startTestService({ clock: () => now, env: { ALERT_ALLOW_LOOPBACK: '1', ALERT_POLL_MS: '40', ALERT_RETRY_BASE_MS: '100', PUSH_SIGNAL_MS: '100' } })
  await seedMarket(t, { hours: 30, coins: [COIN] })
}, 120_000)
afterAll(async () => {
  await receiver?.close()
  await t?.close()
})

const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0)
const sd = (xs: number[]) => {
  const m = sum(xs) / xs.length
  return Math.sqrt(sum(xs.map((x) => (x - m) ** 2)) / (xs.length - 1))
}
const z = (x: number, h: number[]) => (x - sum(h) / h.length) / sd(h)
/** a leg moves up / down at |z| ≥ 0.5 */
const move = (x: number) => (x >= 0.5 ? 1 : x <= -0.5 ? -1 : 0)

/**
 * The 1h oi_price signal rebuilt from the store (docs/methodology.md#divergence, "How the models are fed"): windows
 * ending at the last stored minute and every hour before it; price = the composite perp close (Σ close × volume /
 * Σ volume; minute rows for the last 6 h, hourly rows before), OI = Σ of the venues' open interest.
 */
async function oiPrice1h(): Promise<{ active: boolean; direction: string; z: number }> {
  const { sql } = t.services.db
  const tailStart = Math.floor((CURRENT_MINUTE - 6 * HOUR_MS) / HOUR_MS) * HOUR_MS
  const close = async (ts: number) => {
    const [table, at] = ts >= tailStart ? ['candle_1m', ts] : ['candle_1h', Math.floor(ts / HOUR_MS) * HOUR_MS]
    const rows = await sql.query<Row>(`SELECT close, volume FROM ${table} WHERE coin = $1 AND market_type = 'perp' AND ts = $2`, [COIN, at])
    const vol = sum(rows.map((r) => Number(r.volume)))
    return vol > 0 ? sum(rows.map((r) => Number(r.close) * Number(r.volume))) / vol : sum(rows.map((r) => Number(r.close))) / rows.length
  }
  const oi = async (ts: number) => {
    const rows = await sql.query<Row>(`SELECT open_interest FROM market_sample WHERE coin = $1 AND market_type = 'perp' AND ts = $2`, [COIN, ts])
    expect(rows).toHaveLength(5)
    return sum(rows.map((r) => Number(r.open_interest)))
  }
  const first = Number((await sql.query<Row>(`SELECT min(ts) AS ts FROM candle_1h WHERE coin = $1 AND market_type = 'perp'`, [COIN]))[0]!.ts)
  const t0 = first + HOUR_MS - MINUTE_MS
  const a: number[] = []
  const b: number[] = []
  for (let e = LAST_MINUTE; e - HOUR_MS >= t0; e -= HOUR_MS) {
    a.push(Math.log((await close(e)) / (await close(e - HOUR_MS))))
    b.push(Math.log((await oi(e)) / (await oi(e - HOUR_MS))))
  }
  const [ha, hb] = [a.slice(1), b.slice(1)]
  expect(ha.length).toBeGreaterThanOrEqual(24)
  const za = z(a[0]!, ha)
  const zb = z(b[0]!, hb)
  const sign = move(za) * move(zb) > 0 ? 1 : -1
  const [ma, mb, sa, sb] = [sum(ha) / ha.length, sum(hb) / hb.length, sd(ha), sd(hb)]
  const zd = z(za + sign * zb, ha.map((x, i) => (x - ma) / sa + (sign * (hb[i]! - mb)) / sb))
  // price and OI moving together: new longs / long liquidation (bullish); apart: short covering / new shorts (bearish)
  const direction = move(za) === 0 || move(zb) === 0 ? 'none' : move(za) === move(zb) ? 'bullish' : 'bearish'
  return { active: Math.abs(zd) >= 2 && direction !== 'none', direction, z: zd }
}

/** the rally of test/rest/signals/signals.test.ts: every venue's last 30 minutes ramped to +4 %, OI ramped to −5 % */
async function shortCoveringRally(): Promise<void> {
  const { db, market } = t.services
  const bars = await db.sql.query<Row>(`SELECT exchange, ts, close, volume FROM candle_1m WHERE coin = $1 AND market_type = 'perp' AND ts >= $2 AND ts < $3`, [COIN, RALLY_FROM, CURRENT_MINUTE])
  const samples = await db.sql.query<Row>(`SELECT * FROM market_sample WHERE coin = $1 AND market_type = 'perp' AND ts >= $2 AND ts < $3`, [COIN, RALLY_FROM, CURRENT_MINUTE])
  expect(samples.length).toBe(5 * 30)
  const ingest = new Ingest({ db, market, trackLive: false, sampleEveryMs: MINUTE_MS })
  const step = (ts: number) => (ts - RALLY_FROM) / MINUTE_MS + 1
  for (const b of bars) {
    const ts = Number(b.ts)
    const price = Number(b.close) * (1 + (0.04 * step(ts)) / 30)
    for (const side of ['buy', 'sell'] as const)
      ingest.emit({ type: 'trade', exchange: b.exchange, coin: COIN, marketType: 'perp', ts: ts + 1000, id: `rally-${ts}-${side}`, price, size: Math.max(Number(b.volume), 1) / 2, side })
  }
  for (const s of samples) {
    const ts = Number(s.ts)
    ingest.emit({
      type: 'ticker', exchange: s.exchange, coin: COIN, marketType: 'perp', ts, markPrice: s.mark_price, indexPrice: s.index_price, lastPrice: s.last_price,
      fundingRate: s.funding_rate, fundingIntervalHours: s.funding_interval_hours, nextFundingTime: s.next_funding_time == null ? null : Number(s.next_funding_time),
    })
    ingest.emit({ type: 'open_interest', exchange: s.exchange, coin: COIN, marketType: 'perp', ts, openInterest: Number(s.open_interest) * (1 - (0.05 * step(ts)) / 30) })
  }
  await ingest.flush({ final: true })
}

describe('alert divergence_active', () => {
  it('fires once when the 1h oi_price divergence becomes active, with value true', async () => {
    const { apiKey } = await t.signup()
    const before = await oiPrice1h()
    expect(before.active, `before the rally: z ${before.z}, ${before.direction}`).toBe(false)
    const res = await t.fetch('/v1/alerts', {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ coin: COIN, condition: { type: 'divergence_active', pair: 'oi_price', timeframe: '1h' }, url: `${base}/div` }),
    })
    expect(res.status).toBe(201)
    const id = ((await res.json()) as { data: { alert_id: string } }).data.alert_id
    const state = async () => (await t.services.db.sql.query<{ last_true: boolean | null }>('SELECT last_true FROM alert_rule WHERE id = $1', [id]))[0]!.last_true
    await until(async () => (await state()) === false, 15_000, 'the first evaluation: inactive')
    /** the 1h oi_price signal of the newest divergence computation at or after `from` (what the rule read) */
    const computed = (from: number) =>
      (t.services.market.stream.since(['divergence'], 0).filter((e) => e.coin === COIN && e.ts >= from).at(-1)?.data.pairs as { pair: string; timeframe: string; z_score: number; active: boolean }[] | undefined)
        ?.find((x) => x.pair === 'oi_price' && x.timeframe === '1h')
    expect(computed(0)!.z_score).toBeCloseTo(before.z, 6)

    await shortCoveringRally()
    const after = await oiPrice1h()
    expect(after, `after the rally: z ${after.z}`).toMatchObject({ active: true, direction: 'bearish' })
    // a later computation slot (a flip needs data newer than the last one's), the same minute
    now += 1000
    await until(async () => (await state()) === true, 15_000, 'active after the rally')
    expect(computed(TEST_NOW + 1000)).toMatchObject({ active: true })
    expect(computed(TEST_NOW + 1000)!.z_score).toBeCloseTo(after.z, 6)
    const deliveries = async () => t.services.db.sql.query<{ id: string; status: string }>('SELECT id, status FROM alert_delivery WHERE rule_id = $1', [id])
    await until(async () => (await deliveries()).every((d) => d.status === 'delivered') && received.length >= 1, 10_000, 'the delivery')
    // still active over later slots: nothing more is queued
    const slotsComputed = () => t.services.market.stream.since(['divergence'], 0).filter((e) => e.coin === COIN && e.ts > TEST_NOW + 1000).length
    now += 1000
    await until(() => slotsComputed() > 0, 10_000, 'a later slot computed')
    now += 1000
    await until(() => new Set(t.services.market.stream.since(['divergence'], 0).filter((e) => e.coin === COIN && e.ts > TEST_NOW + 1000).map((e) => e.ts)).size >= 2, 10_000, 'two later slots computed')
    const all = await deliveries()
    expect(all).toHaveLength(1)
    expect(received.map((r) => r.eventId)).toEqual([all[0]!.id])
    expect(received[0]).toMatchObject({ path: '/div', body: { value: true, alert: { alert_id: id } } })
  })
})
