// The account types through plugin-prisma: the same answers as before, the credit ledger on Account, and no field
// without a valid key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestService } from '../../helpers/service.js'

let t: TestService
beforeAll(async () => {
  t = await startTestService()
})
afterAll(() => t?.close())

const gql = async (query: string, key: string | null, variables?: Record<string, unknown>) => {
  const res = await t.fetch(`/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify({ query, variables }),
  })
  return { status: res.status, body: (await res.json()) as { data?: any; errors?: { message: string; extensions?: Record<string, unknown> }[] } }
}

describe('GraphQL account, keys and ledger', () => {
  it('answers the account and its keys as the REST account routes do', async () => {
    const s = await t.signup()
    const { body } = await gql('{ account { accountId email credits createdAt } apiKeys { id name prefix createdAt lastUsedAt revokedAt } }', s.apiKey)
    expect(body.errors).toBeUndefined()
    const rest = (await (await t.get('/v1/account', s.apiKey)).json()) as { data: { account_id: string; email: string; credits: number; created_at: number } }
    expect(body.data.account).toEqual({ accountId: rest.data.account_id, email: rest.data.email, credits: rest.data.credits, createdAt: rest.data.created_at })
    const keys = (await (await t.get('/v1/auth/keys', s.apiKey)).json()) as { data: { id: string; name: string; prefix: string; created_at: number; revoked_at: number | null }[] }
    expect(body.data.apiKeys.map((k: any) => [k.id, k.name, k.prefix, k.createdAt, k.revokedAt])).toEqual(keys.data.map((k) => [k.id, k.name, k.prefix, k.created_at, k.revoked_at]))
  })

  it('lists the ledger newest first, limited, with the charge of a paid call on top', async () => {
    const s = await t.signup()
    expect((await t.get('/v1/markets/exchanges', s.apiKey)).status).toBe(200)
    const { body } = await gql('query ($n: Int) { account { credits ledger(limit: $n) { delta balanceAfter kind endpoint } } }', s.apiKey, { n: 5 })
    expect(body.errors).toBeUndefined()
    const { credits, ledger } = body.data.account
    expect(ledger).toEqual([
      { delta: -1, balanceAfter: s.credits - 1, kind: 'charge', endpoint: '/v1/markets/exchanges' },
      { delta: s.credits, balanceAfter: s.credits, kind: 'signup', endpoint: null },
    ])
    expect(credits).toBe(s.credits - 1)
    const one = await gql('{ account { ledger(limit: 1) { kind } } }', s.apiKey)
    expect(one.body.data.account.ledger).toEqual([{ kind: 'charge' }])
    const bad = await gql('{ account { ledger(limit: 0) { kind } } }', s.apiKey)
    expect(bad.body.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_parameter', parameter: 'limit' })
  })

  it('needs a valid key for every account field', async () => {
    for (const q of ['{ account { email } }', '{ account { ledger { delta } } }', '{ apiKeys { id } }']) {
      for (const key of [null, 'pa_not-a-key']) {
        const { body } = await gql(q, key)
        expect(body.data?.account ?? body.data?.apiKeys ?? null, q).toBeNull()
        expect(body.errors?.[0]?.extensions?.['code'], q).toBe('unauthorized')
      }
    }
  })
})
