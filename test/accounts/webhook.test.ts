import Stripe from 'stripe'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectProblem, startTestService, type TestService } from '../helpers/service.js'

const SECRET = 'whsec_test_secret_for_webhooks'

describe('POST /v1/billing/webhook (Stripe signing scheme)', () => {
  let t: TestService
  beforeAll(async () => {
    t = await startTestService({ env: { STRIPE_WEBHOOK_SECRET: SECRET } })
  })
  afterAll(() => t.close())

  const event = (id: string, metadata: Record<string, unknown>, type = 'checkout.session.completed') =>
    JSON.stringify({ id, object: 'event', type, data: { object: { id: `cs_${id}`, object: 'checkout.session', metadata } } })
  const send = (payload: string, opts: { secret?: string; timestamp?: number; header?: string | null } = {}) => {
    const header = opts.header === undefined ? Stripe.webhooks.generateTestHeaderString({ payload, secret: opts.secret ?? SECRET, timestamp: opts.timestamp }) : opts.header
    return t.fetch(`/v1/billing/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', ...(header === null ? {} : { 'stripe-signature': header }) }, body: payload })
  }
  const credits = async (accountId: string) => Number((await t.services.db.sql.query<{ credits: number }>('SELECT credits FROM account WHERE id = $1', [accountId]))[0]!.credits)

  it('adds metadata.credits to metadata.account_id exactly once per event id', async () => {
    const a = await t.signup()
    const payload = event('evt_once', { account_id: a.accountId, credits: '500' })
    const first = await send(payload)
    expect(first.status).toBe(200)
    expect(((await first.json()) as { data: Record<string, unknown> }).data).toMatchObject({ received: true, outcome: 'applied', credits_added: 500, balance: 1500 })
    const replay = await send(payload)
    expect(replay.status).toBe(200)
    expect(((await replay.json()) as { data: Record<string, unknown> }).data).toMatchObject({ outcome: 'duplicate', credits_added: 0 })
    expect(await credits(a.accountId)).toBe(1500)
    const ledger = await t.services.db.sql.query<{ delta: number; kind: string; request_id: string }>(`SELECT delta, kind, request_id FROM credit_ledger WHERE account_id = $1 AND kind = 'purchase'`, [a.accountId])
    expect(ledger).toEqual([{ delta: 500, kind: 'purchase', request_id: 'evt_once' }])
  })

  it('concurrent deliveries of the same event still add once', async () => {
    const a = await t.signup()
    const payload = event('evt_race', { account_id: a.accountId, credits: '70' })
    const results = await Promise.all(Array.from({ length: 8 }, () => send(payload)))
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200))
    expect(await credits(a.accountId)).toBe(1070)
  })

  it.each([
    ['a wrong secret', { secret: 'whsec_wrong' }],
    ['a stale timestamp', { timestamp: Math.floor(Date.now() / 1000) - 3600 }],
    // the tolerance (300 s) holds both ways: a signature dated ahead could be replayed until that date
    ['a timestamp an hour in the future', { timestamp: Math.floor(Date.now() / 1000) + 3600 }],
    ['a timestamp past the tolerance ahead', { timestamp: Math.floor(Date.now() / 1000) + 330 }],
    ['a missing header', { header: null }],
    ['a garbage header', { header: 't=abc,v1=def' }],
  ])('400 and nothing changed for %s', async (_label, opts) => {
    const a = await t.signup()
    const body = await expectProblem(await send(event(`evt_bad_${Math.random()}`, { account_id: a.accountId, credits: '100' }), opts), 400, 'invalid_parameter')
    expect(body.parameter).toBe('Stripe-Signature')
    expect(await credits(a.accountId)).toBe(1000)
  })

  it('a signature with more than one t= is refused, whichever the library would read (issue 31)', async () => {
    const a = await t.signup()
    const now = Math.floor(Date.now() / 1000)
    const payload = event(`evt_two_t_${Math.random()}`, { account_id: a.accountId, credits: '100' })
    // signed an hour ahead: the library reads the last t=, our future check read the first
    const ahead = Stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET, timestamp: now + 3600 })
    for (const header of [`t=${now},${ahead}`, `${ahead.replace(/,v1=.*/, '')},t=${now},${ahead.replace(/^t=\d+,/, '')}`, `t=${now},${Stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET, timestamp: now })}`]) {
      const body = await expectProblem(await send(payload, { header }), 400, 'invalid_parameter')
      expect(body.parameter).toBe('Stripe-Signature')
      expect(String(body.detail)).toMatch(/more than one timestamp/)
    }
    expect(await credits(a.accountId)).toBe(1000)
  })

  it('a timestamp a little ahead of the clock, within the tolerance, is accepted (clocks drift)', async () => {
    const a = await t.signup()
    const res = await send(event('evt_ahead', { account_id: a.accountId, credits: '10' }), { timestamp: Math.floor(Date.now() / 1000) + 60 })
    expect(res.status).toBe(200)
    expect(await credits(a.accountId)).toBe(1010)
  })

  it('400 and nothing changed for a tampered body', async () => {
    const a = await t.signup()
    const signed = event('evt_tamper', { account_id: a.accountId, credits: '1' })
    const header = Stripe.webhooks.generateTestHeaderString({ payload: signed, secret: SECRET })
    await expectProblem(await send(signed.replace('"1"', '"100000"'), { header }), 400, 'invalid_parameter')
    expect(await credits(a.accountId)).toBe(1000)
  })

  it.each([
    ['negative credits', { credits: '-5' }, 'metadata.credits'],
    ['non-integer credits', { credits: '2.5' }, 'metadata.credits'],
    ['zero credits', { credits: '0' }, 'metadata.credits'],
    ['huge credits', { credits: '9999999999' }, 'metadata.credits'],
    ['no credits', {}, 'metadata.credits'],
  ])('400 and nothing changed for %s', async (_label, meta, parameter) => {
    const a = await t.signup()
    const body = await expectProblem(await send(event(`evt_meta_${Math.random()}`, { account_id: a.accountId, ...meta })), 400, 'invalid_parameter')
    expect(body.parameter).toBe(parameter)
    expect(await credits(a.accountId)).toBe(1000)
  })

  it('400 for an unknown account and nothing recorded; other event types are ignored', async () => {
    await expectProblem(await send(event('evt_unknown', { account_id: '00000000-0000-4000-8000-00000000beef', credits: '5' })), 400, 'invalid_parameter')
    const [n] = await t.services.db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM payment_event WHERE id = 'evt_unknown'`)
    expect(n!.n).toBe(0)
    const a = await t.signup()
    const ignored = await send(event('evt_other', { account_id: a.accountId, credits: '5' }, 'payment_intent.created'))
    expect(((await ignored.json()) as { data: Record<string, unknown> }).data).toMatchObject({ outcome: 'ignored' })
    expect(await credits(a.accountId)).toBe(1000)
  })

  it('503 while no webhook secret is configured', async () => {
    const bare = await startTestService()
    try {
      const res = await bare.fetch(`/v1/billing/webhook`, { method: 'POST', headers: { 'stripe-signature': 't=1,v1=x' }, body: '{}' })
      await expectProblem(res, 503, 'unavailable')
    } finally {
      await bare.close()
    }
  })
})
