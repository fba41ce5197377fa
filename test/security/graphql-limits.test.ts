// GraphQL limits and metering (issue "Reliability and security", part 2): graphql-armor's depth, alias and cost
// limits refuse the operation and charge nothing; introspection is free and keyless but cannot carry analytics;
// every alias of an analytics field is charged; an operation the balance cannot cover is refused whole.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { seedMarket, TEST_NOW } from '../helpers/market.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { assertNoLeaks, balanceOf, chargeRowsOf, gql } from './support.js'

describe('GraphQL limits and metering', () => {
  let t: TestService
  beforeAll(async () => {
    t = await startTestService({ clock: () => TEST_NOW })
    await seedMarket(t, { hours: 2, coins: ['BTC', 'ETH'] })
  })
  afterAll(() => t?.close())

  /** the call was refused: errors, no data, nothing charged (balance and ledger) */
  async function expectRefusedAndFree(query: string, message: RegExp) {
    const a = await t.signup()
    const before = await chargeRowsOf(t, a.accountId)
    const { res, body } = await gql(t, query, { key: a.apiKey })
    expect(body.errors?.length, JSON.stringify(body).slice(0, 500)).toBeGreaterThan(0)
    expect(body.errors!.map((e) => e.message).join(' | ')).toMatch(message)
    expect(body.data ?? null).toBeNull()
    expect(Number(res.headers.get('x-credits-charged') ?? 0)).toBe(0)
    expect(await balanceOf(t, a.accountId)).toBe(a.credits)
    expect(await chargeRowsOf(t, a.accountId)).toEqual(before)
    assertNoLeaks(JSON.stringify(body), query, 'graphql limit')
    return { res, body }
  }

  /** `levels` nested inline fragments on Query around `inner`: valid against the schema, and deep */
  const nest = (levels: number, inner: string) => `${'... on Query { '.repeat(levels)}${inner}${' }'.repeat(levels)}`

  it('a query deeper than the depth limit (10) is refused and charges nothing', async () => {
    await expectRefusedAndFree(`{ ${nest(11, 'ticker { coin }')} }`, /depth/i)
  })

  it('a query at the depth limit still runs (the limit is not refusing everything)', async () => {
    const a = await t.signup()
    const { body } = await gql(t, `{ ${nest(8, 'ticker { coin }')} }`, { key: a.apiKey }) // depth exactly 10
    expect(body.errors).toBeUndefined()
    expect(body.extensions).toEqual({ credits: { charged: 1, remaining: a.credits - 1 } })
  })

  it('a query with more aliases than allowed (20) is refused and charges nothing', async () => {
    const aliases = Array.from({ length: 21 }, (_, i) => `t${i}: ticker { coin }`).join(' ')
    await expectRefusedAndFree(`{ ${aliases} }`, /alias/i)
  })

  it('a too-costly query (armor cost > 5000) is refused and charges nothing', async () => {
    // 20 aliases (the maximum) of a six-scalar selection under 8 inline fragments: depth 10 (allowed), cost about 5 700
    const twenty = Array.from({ length: 20 }, (_, i) => `t${i}: ticker { coin exchange markPrice indexPrice fundingRate ts }`).join(' ')
    await expectRefusedAndFree(`{ ${nest(8, twenty)} }`, /cost/i)
  })

  it('introspection works without a key and costs nothing, with or without a key', async () => {
    const q = '{ __schema { queryType { name } types { name kind } } __type(name: "Query") { fields { name } } }'
    const anon = await gql(t, q)
    expect(anon.res.status).toBe(200)
    expect(anon.body.errors).toBeUndefined()
    expect((anon.body.data!.__schema as { queryType: { name: string } }).queryType.name).toBe('Query')
    expect(Number(anon.res.headers.get('x-credits-charged') ?? 0)).toBe(0)

    const a = await t.signup()
    const keyed = await gql(t, q, { key: a.apiKey })
    expect(keyed.body.errors).toBeUndefined()
    expect(Number(keyed.res.headers.get('x-credits-charged') ?? 0)).toBe(0)
    expect(await balanceOf(t, a.accountId)).toBe(a.credits)
    expect((await chargeRowsOf(t, a.accountId)).n).toBe(0)
  })

  it.each([
    ['__typename next to an analytics field', '{ __typename spread { coin } }', {}],
    ['analytics inside a fragment next to __typename', '{ __typename ...F } fragment F on Query { spread { coin } }', {}],
    ['analytics inside an inline fragment', '{ __typename ... on Query { spread { coin } } }', {}],
    ['analytics under an alias named like introspection', '{ __typename schema: spread { coin } }', {}],
    ['the analytics operation of a multi-operation document', 'query A { __typename } query B { spread { coin } }', { operationName: 'B' }],
  ])('introspection cannot carry analytics for free: %s → 401 without a key, 3 credits with one', async (_label, query, extra) => {
    const anon = await gql(t, query, extra)
    expect(anon.res.status, JSON.stringify(anon.body)).toBe(401)
    expect(anon.body.errors?.[0]?.extensions?.code).toBe('unauthorized')
    expect(anon.body.data ?? null).toBeNull()

    const a = await t.signup()
    const keyed = await gql(t, query, { ...extra, key: a.apiKey })
    expect(keyed.res.status).toBe(200)
    expect(keyed.body.errors).toBeUndefined()
    expect(keyed.res.headers.get('x-credits-charged')).toBe('3')
    expect(await balanceOf(t, a.accountId)).toBe(a.credits - 3)
    expect(await chargeRowsOf(t, a.accountId)).toEqual({ n: 1, sum: 3 })
  })

  it('a GET /graphql with an analytics query and no key is refused too', async () => {
    const res = await t.fetch(`/graphql?query=${encodeURIComponent('{ __typename spread { coin } }')}`, { headers: { accept: 'application/json' } })
    expect(res.status).toBe(401)
    const body = (await res.json()) as { data?: unknown }
    expect(body.data ?? null).toBeNull()
  })

  it('a batched request cannot smuggle analytics past the key check', async () => {
    const res = await t.fetch(`/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([{ query: '{ __typename }' }, { query: '{ spread { coin } }' }]),
    })
    expect(res.status).toBeLessThan(500)
    expect(await res.text()).not.toMatch(/"spread"\s*:\s*\[/)
  })

  it('each alias of an analytics field is charged: 3 aliases of ticker cost 3 credits', async () => {
    const a = await t.signup()
    const { res, body } = await gql(t, '{ a: ticker { coin } b: ticker(coin: "BTC") { coin } c: ticker(coin: "ETH") { coin } }', { key: a.apiKey })
    expect(body.errors).toBeUndefined()
    expect(res.headers.get('x-credits-charged')).toBe('3')
    expect(body.extensions).toEqual({ credits: { charged: 3, remaining: a.credits - 3 } })
    expect(await balanceOf(t, a.accountId)).toBe(a.credits - 3)
    expect((await chargeRowsOf(t, a.accountId)).sum).toBe(3)
  })

  it('an operation the balance cannot cover is refused whole (402 fields) and leaves the balance unchanged', async () => {
    const a = await t.signup()
    await t.setCredits(a.accountId, 2)
    const { res, body } = await gql(t, '{ a: ticker { coin } b: ticker { coin } c: ticker { coin } }', { key: a.apiKey })
    expect(res.status).toBe(402)
    expect(body.data ?? null).toBeNull()
    expect(body.errors?.[0]?.extensions).toMatchObject({ code: 'insufficient_credits', credits_required: 3, credits_remaining: 2 })
    expect(Number(res.headers.get('x-credits-charged') ?? 0)).toBe(0)
    expect(await balanceOf(t, a.accountId)).toBe(2)
    expect((await chargeRowsOf(t, a.accountId)).n).toBe(0)
  })
})
