// Alerts end to end on the in-process service and a real local receiver: rules are checked by name, a rule fires
// once per crossing (including at its first evaluation), deliveries are signed in the payment provider's scheme
// (verified here with the recipe of docs/streaming.md and with Stripe's own library), survive a receiver that is
// down, are not sent when the account cannot pay, cost exactly 2 credits each, and two nodes deliver once.
import { createHmac, timingSafeEqual } from 'node:crypto'
import Stripe from 'stripe'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EXCHANGE_IDS } from '../../src/domain/exchanges.js'
import type { TickerEvent } from '../../src/domain/events.js'
import { Ingest } from '../../src/ingest/ingest.js'
import { activeRules, recordEvaluation } from '../../src/accounts/alerts.js'
import { refusedAddress } from '../../src/accounts/webhook-address.js'
import { sendEvent } from '../../src/push/webhook.js'
import { alertPrice } from '../../src/push/alerts.js'
import { createApp, stopApp } from '../../src/server.js'
import { expectProblem, startTestService, type TestService } from '../helpers/service.js'
import { until } from './sse-client.js'
import { webhookReceiver, type Receiver } from './receiver.js'

interface Received {
  path: string
  body: string
  signature: string
  eventId: string
}

let t: TestService
let ingest: Ingest
let receiver: Receiver | undefined
let base = ''
const received: Received[] = []
let down = false
/** the other nodes' apps a test makes on t's store: their engines run on timers until stopped, before the store closes */
const otherApps: ReturnType<typeof createApp>[] = []

/** the recipe of docs/streaming.md#verifying-an-alert */
function verify(body: string, header: string, secret: string, nowMs: number, toleranceS = 300): boolean {
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=') as [string, string]))
  const t = Number(parts.t)
  if (!Number.isInteger(t) || Math.abs(nowMs / 1000 - t) > toleranceS || !parts.v1) return false
  const expected = createHmac('sha256', secret).update(`${t}.${body}`).digest()
  const given = Buffer.from(parts.v1, 'hex')
  return given.length === expected.length && timingSafeEqual(given, expected)
}

const setMark = (coin: string, mark: number) => {
  for (const exchange of EXCHANGE_IDS) {
    const e: TickerEvent = { type: 'ticker', exchange, coin, marketType: 'perp', ts: Date.now(), markPrice: mark, indexPrice: mark, lastPrice: mark, fundingRate: 0.0001, fundingIntervalHours: 8, nextFundingTime: null }
    ingest.emit(e)
  }
}

const post = (key: string, body: unknown) => t.fetch('/v1/alerts', { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const list = async (key: string): Promise<any[]> => ((await (await t.get('/v1/alerts', key)).json()) as { data: unknown[] }).data as any[]
const stateOf = async (id: string) => (await t.services.db.sql.query<{ last_true: boolean | null }>('SELECT last_true FROM alert_rule WHERE id = $1', [id]))[0]!.last_true
const deliveriesOf = (ruleId: string) => t.services.db.sql.query<{ id: string; status: string; attempts: number }>('SELECT id, status, attempts FROM alert_delivery WHERE rule_id = $1 ORDER BY created_at', [ruleId])

beforeAll(async () => {
  receiver = await webhookReceiver((d) => received.push({ path: d.path, body: d.body, signature: d.signature, eventId: d.eventId }), { failing: () => (down ? 503 : null) })
  base = receiver.base
  t = await startTestService({ env: { ALERT_ALLOW_LOOPBACK: '1', ALERT_POLL_MS: '40', ALERT_RETRY_BASE_MS: '100' } })
  ingest = new Ingest({ db: t.services.db, market: t.services.market })
})
afterAll(async () => {
  for (const app of otherApps) await stopApp(app)
  await receiver?.close()
  await t.close()
})

describe('alert rules', () => {
  it('refuses bad rules naming the field, shows the secret once, lists and deletes', async () => {
    const { apiKey } = await t.signup()
    expect(JSON.stringify(await expectProblem(await post(apiKey, { coin: 'BTC', condition: { type: 'price_sideways', value: 1 }, url: base }), 400, 'invalid_parameter'))).toContain('condition.type')
    expect(JSON.stringify(await expectProblem(await post(apiKey, { coin: 'BTC', condition: { type: 'price_above', value: -1 }, url: base }), 400, 'invalid_parameter'))).toContain('condition.value')
    expect(JSON.stringify(await expectProblem(await post(apiKey, { coin: 'BTC', condition: { type: 'divergence_active', pair: 'moon' }, url: base }), 400, 'invalid_parameter'))).toContain('condition.pair')
    expect(JSON.stringify(await expectProblem(await post(apiKey, { coin: 'NOPE', condition: { type: 'price_above', value: 1 }, url: base }), 400, 'invalid_parameter'))).toContain('coin')
    expect(JSON.stringify(await expectProblem(await post(apiKey, { coin: 'BTC', condition: { type: 'price_above', value: 1 }, url: 'ftp://x' }), 400, 'invalid_parameter'))).toContain('url')
    await expectProblem(await post('nope', { coin: 'BTC', condition: { type: 'price_above', value: 1 }, url: base }), 401, 'unauthorized')
    const res = await post(apiKey, { coin: 'eth', condition: { type: 'imbalance_below', band: 1, value: 0.5 }, url: `${base}/hook`, name: 'thin bids' })
    expect(res.status).toBe(201)
    const { data } = (await res.json()) as { data: Record<string, unknown> }
    expect(data).toMatchObject({ coin: 'ETH', name: 'thin bids', status: 'active', condition: { type: 'imbalance_below', band: 1, value: 0.5 } })
    expect(String(data.secret)).toMatch(/^whsec_/)
    const rows = await list(apiKey)
    expect(rows.map((r) => r.alert_id)).toEqual([data.alert_id])
    expect(rows[0].secret).toBeUndefined()
    expect((await t.fetch(`/v1/alerts/${String(data.alert_id)}`, { method: 'DELETE', headers: { authorization: `Bearer ${apiKey}` } })).status).toBe(200)
    await expectProblem(await t.fetch(`/v1/alerts/${String(data.alert_id)}`, { method: 'DELETE', headers: { authorization: `Bearer ${apiKey}` } }), 404, 'not_found')
    expect(await list(apiKey)).toEqual([])
  })

  it('fires once per crossing, signed; a forged or replayed delivery fails verification; 2 credits per delivery', async () => {
    const { apiKey, accountId } = await t.signup()
    setMark('BTC', 59_000)
    const res = await post(apiKey, { coin: 'BTC', condition: { type: 'price_above', value: 60_000 }, url: `${base}/btc` })
    const rule = ((await res.json()) as { data: { alert_id: string; secret: string } }).data
    const state = async (v: boolean) => (await list(apiKey))[0].condition_true === v
    await until(() => state(false), 5000, 'first evaluation (false)')
    setMark('BTC', 61_000)
    await until(() => state(true), 5000, 'crossing up')
    setMark('BTC', 62_000) // still above: no second firing
    await until(async () => (await deliveriesOf(rule.alert_id)).every((d) => d.status === 'delivered'), 5000, 'delivery')
    setMark('BTC', 59_500)
    await until(() => state(false), 5000, 'crossing down')
    setMark('BTC', 61_500)
    await until(() => state(true), 5000, 'crossing up again')
    await until(async () => (await deliveriesOf(rule.alert_id)).filter((d) => d.status === 'delivered').length === 2, 5000, 'two deliveries')
    const mine = received.filter((r) => r.path === '/btc')
    expect(mine).toHaveLength(2)
    const events = mine.map((r) => JSON.parse(r.body) as { id: string; value: number; alert: { alert_id: string }; exchanges: string[]; outliers: unknown[] })
    expect(events.map((e) => e.value)).toEqual([61_000, 61_500])
    // the median is of the venues that publish a mark (dYdX's is its oracle), none set aside
    for (const e of events) expect([e.exchanges, e.outliers]).toEqual([['binance', 'bybit', 'okx', 'hyperliquid'], []])
    expect(new Set(events.map((e) => e.id)).size).toBe(2)
    for (const r of mine) {
      expect(r.eventId).toBe(JSON.parse(r.body).id)
      expect(verify(r.body, r.signature, rule.secret, Date.now())).toBe(true)
      // the same scheme as the payment provider's: Stripe's library accepts it as it is
      expect(() => Stripe.webhooks.constructEvent(r.body, r.signature, rule.secret, 300)).not.toThrow()
      expect(verify(r.body.replace('61', '71'), r.signature, rule.secret, Date.now())).toBe(false) // forged body
      expect(verify(r.body, r.signature, 'whsec_other', Date.now())).toBe(false) // wrong secret
      expect(verify(r.body, r.signature, rule.secret, Date.now() + 10 * 60_000)).toBe(false) // replayed later
    }
    const charges = await t.services.db.sql.query<{ delta: number; endpoint: string }>("SELECT delta, endpoint FROM credit_ledger WHERE account_id = $1 AND kind = 'charge'", [accountId])
    expect(charges.map((c) => [Number(c.delta), c.endpoint])).toEqual([[-2, '/v1/alerts'], [-2, '/v1/alerts']])
  })

  it('fires at the first evaluation when the condition already holds; a receiver that is down gets the event after it comes back', async () => {
    const { apiKey } = await t.signup()
    setMark('SOL', 150)
    down = true
    const rule = ((await (await post(apiKey, { coin: 'SOL', condition: { type: 'price_below', value: 200 }, url: `${base}/sol` })).json()) as { data: { alert_id: string } }).data
    await until(async () => (await deliveriesOf(rule.alert_id)).some((d) => d.attempts >= 2), 10_000, 'failed attempts')
    expect(received.filter((r) => r.path === '/sol')).toHaveLength(0)
    expect((await list(apiKey))[0].last_delivery).toMatchObject({ status: 'pending', last_error: 'http_5xx' })
    down = false
    await until(() => received.some((r) => r.path === '/sol'), 10_000, 'delivery after the receiver came back')
    const [d] = await deliveriesOf(rule.alert_id)
    expect(received.filter((r) => r.path === '/sol').map((r) => r.eventId)).toEqual([d!.id])
    await until(async () => (await deliveriesOf(rule.alert_id))[0]!.status === 'delivered', 5000, 'delivered')
  })

  it('does not send a delivery the account cannot pay for, and says so', async () => {
    const { apiKey, accountId } = await t.signup()
    await t.setCredits(accountId, 1)
    setMark('ETH', 3000)
    await post(apiKey, { coin: 'ETH', condition: { type: 'price_above', value: 10 }, url: `${base}/eth-unpaid` })
    await until(async () => (await list(apiKey))[0].last_delivery?.status === 'unpaid', 5000, 'unpaid delivery')
    expect((await list(apiKey))[0].status_reason).toMatch(/^insufficient_credits/)
    expect(received.filter((r) => r.path === '/eth-unpaid')).toHaveLength(0)
    const [a] = await t.services.db.sql.query<{ credits: number }>('SELECT credits FROM account WHERE id = $1', [accountId])
    expect(Number(a!.credits)).toBe(1)
  })

  it('two API nodes on one store deliver each firing once', async () => {
    otherApps.push(createApp(t.services)) // a second node: its own engine over the same store
    const { apiKey } = await t.signup()
    setMark('BTC', 70_000)
    const rule = ((await (await post(apiKey, { coin: 'BTC', condition: { type: 'price_above', value: 65_000 }, url: `${base}/two` })).json()) as { data: { alert_id: string } }).data
    await until(async () => (await deliveriesOf(rule.alert_id)).some((d) => d.status === 'delivered'), 5000, 'delivery')
    setMark('BTC', 71_000)
    await until(async () => (await list(apiKey))[0].condition_true === true, 5000, 'evaluated')
    expect(await deliveriesOf(rule.alert_id)).toHaveLength(1)
    expect(received.filter((r) => r.path === '/two')).toHaveLength(1)
  })
})

describe('evaluations from nodes at different points of the data', () => {
  it('an evaluation on data no newer than the last flip changes nothing: a lagging node cannot make a crossing fire twice', async () => {
    const { apiKey } = await t.signup()
    // far above any mark the other tests set, so the engine itself sees it false and leaves it to this test
    const res = await post(apiKey, { coin: 'LTC', condition: { type: 'price_above', value: 1e12 }, url: `${base}/lag` })
    const id = ((await res.json()) as { data: { alert_id: string } }).data.alert_id
    const rule = (await activeRules(t.services.db.sql)).find((r) => r.id === id)!
    const payload = (eventId: string) => JSON.stringify({ id: eventId })
    const at = Date.now()
    const fire = (isTrue: boolean, dataTs: number) => recordEvaluation(t.services.db.sql, rule, isTrue, dataTs, payload, at)
    expect(await fire(true, 1000)).not.toBeNull() // node A, data of t=1000: fires
    expect(await fire(false, 900)).toBeNull() // node B, behind (t=900): not a flip back
    expect(await stateOf(id)).toBe(true)
    expect(await fire(true, 1100)).toBeNull() // still true: no second delivery
    expect(await fire(false, 1200)).toBeNull() // A: false at t=1200
    expect(await stateOf(id)).toBe(false)
    expect(await fire(true, 1150)).toBeNull() // B still behind: the old true does not fire
    expect(await fire(true, 1300)).not.toBeNull() // a new crossing fires
    expect(await deliveriesOf(id)).toHaveLength(2)
  })
})

describe('the price a price rule compares', () => {
  const tk = (exchange: (typeof EXCHANGE_IDS)[number], markPrice: number | null, ts = 1000) => ({ exchange, markPrice, ts })

  it('the median of the venues\' marks, dYdX\'s oracle not among them, a mark more than 5 % from their median left out and named', () => {
    // marks 100, 101, 102, 140 (dydx's oracle 150 is no mark): median 101.5, 140 is 38.5 away, beyond 5.075: out;
    // the median of 100, 101, 102 is 101 (all five together, as before: 102)
    const a = alertPrice([tk('binance', 100, 1000), tk('bybit', 101, 3000), tk('okx', 102, 2000), tk('hyperliquid', 140, 1500), tk('dydx', 150, 9000)])!
    expect(a).toEqual({
      price: 101, exchanges: ['binance', 'bybit', 'okx'], dataTs: 3000,
      outliers: [{ exchange: 'hyperliquid', reason: expect.stringContaining('price 140 is 37.93 % from the venues\' median 101.5') }],
    })
  })

  it('no mark, or venues in two groups far apart with none near their median: no price, the rule waits', () => {
    expect(alertPrice([tk('dydx', 150)])).toBeNull()
    expect(alertPrice([tk('binance', null)])).toBeNull()
    // 100, 100, 200, 200: median 150, every mark 33 % from it
    expect(alertPrice([tk('binance', 100), tk('bybit', 100), tk('okx', 200), tk('hyperliquid', 200)])).toBeNull()
    // two venues: no majority, their median as it is
    expect(alertPrice([tk('binance', 100), tk('okx', 200)])).toMatchObject({ price: 150, outliers: [] })
  })
})

describe('what a delivery costs and tells (issue 31)', () => {
  const charges = async (accountId: string) =>
    (await t.services.db.sql.query<{ n: number }>("SELECT count(*)::int AS n FROM credit_ledger WHERE account_id = $1 AND kind = 'charge'", [accountId]))[0]!.n
  const credits = async (accountId: string) => Number((await t.services.db.sql.query<{ credits: number }>('SELECT credits FROM account WHERE id = $1', [accountId]))[0]!.credits)

  it('a delivery to a refused address is never sent and never charged; last_error says only refused_address', async () => {
    const { apiKey, accountId } = await t.signup()
    setMark('XRP', 2)
    const rule = ((await (await post(apiKey, { coin: 'XRP', condition: { type: 'price_above', value: 1 }, url: `${base}/xrp` })).json()) as { data: { alert_id: string } }).data
    // a rule from before the creation check (or a name that now resolves there): the sender refuses the address
    await t.services.db.sql.query("UPDATE alert_rule SET url = 'http://192.0.2.10:8080/x' WHERE id = $1", [rule.alert_id])
    await until(async () => (await deliveriesOf(rule.alert_id)).some((d) => d.attempts >= 2), 10_000, 'attempts')
    expect((await list(apiKey))[0].last_delivery).toMatchObject({ status: 'pending', last_error: 'refused_address' })
    expect(await charges(accountId)).toBe(0)
    expect(await credits(accountId)).toBe(1000)
  })

  it('no connection (nothing listens): not sent, not charged, connection_error; a receiver that answered 503 was sent to: charged once, http_5xx', async () => {
    const { apiKey, accountId } = await t.signup()
    setMark('ADA', 1)
    // a port nothing listens on: the receiver's, once it is closed
    const gone = await webhookReceiver(() => {})
    const url = `${gone.base}/closed`
    await gone.close()
    const rule = ((await (await post(apiKey, { coin: 'ADA', condition: { type: 'price_above', value: 0.5 }, url })).json()) as { data: { alert_id: string } }).data
    await until(async () => (await deliveriesOf(rule.alert_id)).some((d) => d.attempts >= 2), 10_000, 'attempts')
    const last = (await list(apiKey))[0].last_delivery
    expect(last).toMatchObject({ status: 'pending', last_error: 'connection_error' })
    expect(await charges(accountId)).toBe(0)
    // the receiver is reachable but answers 503: the request was sent, so it is paid for, once however many attempts
    down = true
    try {
      await t.services.db.sql.query('UPDATE alert_rule SET url = $2 WHERE id = $1', [rule.alert_id, `${base}/ada`])
      const before = (await deliveriesOf(rule.alert_id))[0]!.attempts
      await until(async () => (await deliveriesOf(rule.alert_id))[0]!.attempts >= before + 2, 10_000, 'attempts at the receiver')
      expect((await list(apiKey))[0].last_delivery).toMatchObject({ status: 'pending', last_error: 'http_5xx' })
      expect(await charges(accountId)).toBe(1)
      expect(await credits(accountId)).toBe(998)
    } finally {
      down = false
    }
  })
})

describe('webhook address guard', () => {
  it('refuses private, link-local and (unless allowed) loopback addresses', async () => {
    for (const a of ['10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', 'fe80::1', 'fd00::1', '::ffff:10.0.0.1', '0.0.0.0', '::']) expect(refusedAddress(a, true)).not.toBeNull()
    expect(refusedAddress('127.0.0.1', false)).not.toBeNull()
    expect(refusedAddress('::1', false)).not.toBeNull()
    expect(refusedAddress('127.0.0.1', true)).toBeNull()
    expect(refusedAddress('93.184.216.34', false)).toBeNull()
    const out = await sendEvent('http://169.254.169.254/latest/meta-data', 'whsec_x', 'e1', '{}', Date.now(), true)
    expect(out).toEqual({ ok: false, status: null, error: 'refused_address', sent: false })
    const loop = await sendEvent(`${base}/nope`, 'whsec_x', 'e2', '{}', Date.now(), false)
    expect(loop.error).toBe('refused_address')
  })
})
