import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestService } from '../helpers/service.js'

describe('GraphQL: same key, same credits', () => {
  let t: TestService
  beforeAll(async () => {
    t = await startTestService()
  })
  afterAll(() => t.close())

  const gql = async (query: string, key?: string, variables?: Record<string, unknown>) => {
    const res = await t.fetch(`/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify({ query, variables }),
    })
    return { res, body: (await res.json()) as { data?: Record<string, unknown> | null; errors?: { message: string; extensions: Record<string, unknown> }[]; extensions?: Record<string, unknown> } }
  }
  const balance = async (accountId: string) => Number((await t.services.db.sql.query<{ credits: number }>('SELECT credits FROM account WHERE id = $1', [accountId]))[0]!.credits)

  it('an analytics field costs its REST cost; aliases are counted each', async () => {
    const a = await t.signup()
    const { res, body } = await gql('{ x: exchanges { id } y: exchanges { id status } account { credits } }', a.apiKey)
    expect(res.status).toBe(200)
    expect(body.errors).toBeUndefined()
    expect(body.extensions).toEqual({ credits: { charged: 2, remaining: 998 } })
    expect(res.headers.get('x-credits-charged')).toBe('2')
    expect(await balance(a.accountId)).toBe(998)
  })

  it('fields reached through fragments are charged too', async () => {
    const a = await t.signup()
    const { body } = await gql('query Q { ...F ... on Query { e2: exchanges { id } } } fragment F on Query { exchanges { name } }', a.apiKey)
    expect(body.extensions).toEqual({ credits: { charged: 2, remaining: 998 } })
  })

  it('refuses the whole operation with the 402 fields when the balance cannot cover it', async () => {
    const a = await t.signup()
    await t.setCredits(a.accountId, 2)
    const { res, body } = await gql('{ a: exchanges { id } b: exchanges { id } c: exchanges { id } }', a.apiKey)
    expect(res.status).toBe(402)
    expect(body.data ?? null).toBeNull()
    expect(body.errors![0]!.extensions).toMatchObject({ code: 'insufficient_credits', credits_required: 3, credits_remaining: 2 })
    expect(await balance(a.accountId)).toBe(2)
  })

  it('requires a key (401) for anything but introspection, which is free', async () => {
    const { res, body } = await gql('{ exchanges { id } }')
    expect(res.status).toBe(401)
    expect(body.errors![0]!.extensions.code).toBe('unauthorized')
    const intro = await gql('{ __schema { queryType { name } } }')
    expect(intro.res.status).toBe(200)
    expect(intro.body.data).toEqual({ __schema: { queryType: { name: 'Query' } } })
    const bad = await gql('{ exchanges { id } }', 'pa_nope')
    expect(bad.res.status).toBe(401)
  })

  it('free fields cost nothing; mutations manage keys like REST', async () => {
    const a = await t.signup()
    const created = await gql('mutation { createApiKey(name: "gql") { id name prefix apiKey } }', a.apiKey)
    const k = created.body.data!.createApiKey as { id: string; apiKey: string }
    expect(k.apiKey).toMatch(/^pa_/)
    const keys = await gql('{ apiKeys { id name revokedAt } account { credits } }', k.apiKey)
    expect((keys.body.data!.apiKeys as unknown[]).length).toBe(2)
    const revoked = await gql(`mutation { revokeApiKey(id: "${k.id}") { id revokedAt } }`, a.apiKey)
    expect((revoked.body.data!.revokeApiKey as { revokedAt: number }).revokedAt).toEqual(expect.any(Number))
    expect((await gql('{ account { credits } }', k.apiKey)).res.status).toBe(401)
    expect(await balance(a.accountId)).toBe(1000)
  })

  it('a browser opening /graphql gets the GraphiQL explorer, with no CDN assets', async () => {
    const res = await t.fetch(`/graphql`, { headers: { accept: 'text/html' } })
    expect(res.status).toBe(200)
    const html = await res.text()
    expect(html).toContain('<title>Perp analytics — GraphQL explorer</title>')
    expect(html).not.toMatch(/(src|href)=["']?https?:\/\/(unpkg|cdn|jsdelivr)/i)
  })
})
