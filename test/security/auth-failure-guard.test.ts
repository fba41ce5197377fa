// The failed-authentication guard under load (issue 15, items 1 and 11): failures are counted when a 401 is
// answered, not when a request arrives, so any number of valid requests in flight from one address are served;
// a valid key is never refused because of what other clients behind the same address did; invalid keys are still
// stopped after AUTH_FAILURE_LIMIT per minute. Every 429 carries Retry-After, the RateLimit headers, and (for a
// valid key) the same X-Credits-Remaining as other answers.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startTestService, type TestService } from '../helpers/service.js'
import { assertProblemShape, balanceOf, chargeRowsOf } from './support.js'

const bad = (i: number) => `pa_${String(i).padStart(43, 'Q')}`

describe('failed-authentication guard (AUTH_FAILURE_LIMIT=30, the default)', () => {
  let t: TestService
  beforeAll(async () => {
    t = await startTestService({ env: { AUTH_FAILURE_LIMIT: '30' } })
  })
  afterAll(() => t?.close())

  it('120 valid requests in flight at once from one address are all answered 200 and each charged once', async () => {
    const a = await t.signup()
    const warm = await t.get('/v1/markets/exchanges', a.apiKey) // the key is now in the short-lived auth cache
    expect(warm.status).toBe(200)
    await warm.arrayBuffer()
    // hold the charges: every request gets as far as its charge and waits there, so all 120 are in flight together
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    const charges = t.services.charges
    const charge = charges.charge.bind(charges)
    let arrived = 0
    let allArrived!: () => void
    const together = new Promise<void>((r) => (allArrived = r))
    const held = vi.spyOn(charges, 'charge').mockImplementation(async (c) => {
      if (++arrived === 120) allArrived()
      await gate
      return charge(c)
    })
    const pending = Promise.all(Array.from({ length: 120 }, () => t.get('/v1/markets/exchanges', a.apiKey)))
    // every request is past the guard and the key check, waiting at its charge
    await together
    release()
    const all = await pending
    held.mockRestore()
    const statuses = all.map((r) => r.status)
    for (const r of all) await r.arrayBuffer()
    expect(statuses.filter((s) => s !== 200), `statuses: ${statuses.join(',')}`).toEqual([])
    expect(await balanceOf(t, a.accountId)).toBe(a.credits - 121)
    expect(await chargeRowsOf(t, a.accountId)).toEqual({ n: 121, sum: 121 })
  })

  it('after another client at the same address used up the failure budget, invalid keys get 429 but a valid key is still served, under load too', async () => {
    const a = await t.signup()
    // another client behind the same address guesses keys: 30 failures are answered 401, the 31st is refused
    const guesses: number[] = []
    for (let i = 0; i < 31; i++) {
      const r = await t.get('/v1/markets/ticker', bad(i))
      guesses.push(r.status)
      await r.arrayBuffer()
    }
    expect(guesses.slice(0, 30).every((s) => s === 401), guesses.join(',')).toBe(true)
    const blocked = await t.get('/v1/markets/ticker', bad(99))
    expect(blocked.status).toBe(429)
    const problem = assertProblemShape(429, blocked.headers, await blocked.text(), 'blocked guess')
    expect(problem.code).toBe('rate_limited')
    const retryAfter = Number(blocked.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(60)
    expect(blocked.headers.get('ratelimit-policy')).toBe('30;w=60')
    expect(blocked.headers.get('ratelimit')).toMatch(/^limit=30, remaining=0, reset=\d+$/)
    // no key at all, and GraphQL with a wrong key: refused too
    expect((await t.get('/v1/markets/ticker')).status).toBe(429)
    const g = await t.fetch(`/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${bad(100)}` }, body: JSON.stringify({ query: '{ exchanges { id } }' }) })
    expect(g.status).toBe(429)

    // the valid key: REST, GraphQL and the account routes, one at a time and 100 at once
    expect((await t.get('/v1/account', a.apiKey)).status).toBe(200)
    const q = await t.fetch(`/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${a.apiKey}` }, body: JSON.stringify({ query: '{ exchanges { id } }' }) })
    expect(q.status).toBe(200)
    await q.arrayBuffer()
    const burst = await Promise.all(Array.from({ length: 100 }, () => t.get('/v1/markets/exchanges', a.apiKey)))
    for (const r of burst) await r.arrayBuffer()
    expect(burst.map((r) => r.status).filter((s) => s !== 200)).toEqual([])
  })
})

describe('429 answers carry Retry-After, the RateLimit headers and X-Credits-Remaining (RATE_LIMIT_RPS=3)', () => {
  let t: TestService
  beforeAll(async () => {
    t = await startTestService({ env: { RATE_LIMIT_RPS: '3' } })
  })
  afterAll(() => t?.close())

  it('a per-key 429 reports the same balance header as a 200, charges nothing, and has the policy headers', async () => {
    const a = await t.signup()
    // the limiter's window follows Date: frozen, the whole burst lands in one window of 3
    vi.useFakeTimers({ toFake: ['Date'] })
    let burst: Response[]
    try {
      burst = await Promise.all(Array.from({ length: 12 }, () => t.get('/v1/markets/exchanges', a.apiKey)))
    } finally {
      vi.useRealTimers()
    }
    const ok = burst.filter((r) => r.status === 200)
    const limited = burst.filter((r) => r.status === 429)
    expect(ok).toHaveLength(3)
    expect(limited).toHaveLength(9)
    const balance = await balanceOf(t, a.accountId)
    expect(balance).toBe(a.credits - ok.length)
    for (const r of limited) {
      expect(r.headers.get('retry-after')).toMatch(/^[1-9]\d*$/)
      expect(r.headers.get('ratelimit-policy')).toBe('3;w=1')
      expect(r.headers.get('ratelimit')).toMatch(/^limit=3, remaining=0, reset=\d+$/)
      expect(r.headers.get('x-credits-charged')).toBe('0')
      // every 200 of the burst was charged before or after this 429 was written: its balance lies between
      const remaining = Number(r.headers.get('x-credits-remaining'))
      expect(r.headers.get('x-credits-remaining'), 'a 429 for a valid key carries X-Credits-Remaining').toMatch(/^\d+$/)
      expect(remaining).toBeGreaterThanOrEqual(balance)
      expect(remaining).toBeLessThanOrEqual(a.credits)
      expect(assertProblemShape(429, r.headers, await r.text(), 'per-key 429').code).toBe('rate_limited')
    }
    for (const r of ok) {
      expect(r.headers.get('ratelimit-policy')).toBe('3;w=1')
      await r.arrayBuffer()
    }
  })
})

describe('wrong keys on the GraphQL subscription (Accept: text/event-stream) count like REST 401s (issue 31, item 6)', () => {
  let t: TestService
  beforeAll(async () => {
    // a real port: the subscription is answered as an event stream
    t = await startTestService({ listen: true, env: { AUTH_FAILURE_LIMIT: '30' } })
  })
  afterAll(() => t?.close())

  const subscribe = (key: string) =>
    fetch(`${t.url}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream', 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'subscription { stream(channels: [TICKER]) { id channel data } }' }),
    })

  it('100 wrong keys: the first 30 are answered 401, then 429 like REST, and a valid key is still served', async () => {
    // signed up first: a signup carries no key, so the address's spent budget would refuse it
    const a = await t.signup()
    const statuses: number[] = []
    for (let i = 0; i < 100; i++) {
      const r = await subscribe(bad(200 + i))
      statuses.push(r.status)
      const body = await r.text()
      // never an accepted stream: the refusal is the request's status, with the code in the body
      if (r.status === 401) expect(body).toContain('"code":"unauthorized"')
      else expect(assertProblemShape(429, r.headers, body, 'subscription past the failure budget').code).toBe('rate_limited')
    }
    expect(statuses.slice(0, 30)).toEqual(Array(30).fill(401))
    expect(statuses.slice(30)).toEqual(Array(70).fill(429))
    // the same budget as REST's: a wrong key there is refused too
    const rest = await fetch(`${t.url}/v1/markets/ticker`, { headers: { authorization: `Bearer ${bad(999)}` } })
    expect(rest.status).toBe(429)
    await rest.arrayBuffer()
    // a valid key is served: its subscription is accepted (200, an event stream)
    const ok = await subscribe(a.apiKey)
    expect(ok.status).toBe(200)
    expect(ok.headers.get('content-type')).toMatch(/^text\/event-stream/)
    await ok.body!.cancel()
  })

  it('REST 401s and subscription 401s add up in one budget', async () => {
    // a service of its own: the previous test spent this address's budget on the other one
    const u = await startTestService({ listen: true, env: { AUTH_FAILURE_LIMIT: '30' } })
    try {
      const answers: number[] = []
      for (let i = 0; i < 31; i++) {
        const r = i % 2 ? await fetch(`${u.url}/v1/markets/ticker`, { headers: { authorization: `Bearer ${bad(500 + i)}` } }) : await fetch(`${u.url}/graphql`, {
          method: 'POST',
          headers: { authorization: `Bearer ${bad(500 + i)}`, accept: 'text/event-stream', 'content-type': 'application/json' },
          body: JSON.stringify({ query: 'subscription { stream(channels: [TICKER]) { id } }' }),
        })
        answers.push(r.status)
        await r.arrayBuffer()
      }
      expect(answers.slice(0, 30)).toEqual(Array(30).fill(401))
      expect(answers[30]).toBe(429)
    } finally {
      await u.close()
    }
  })
})
