import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectProblem, startTestService, type TestService } from '../helpers/service.js'

describe('signup, keys and account', () => {
  let t: TestService
  beforeAll(async () => {
    t = await startTestService({ env: { TRIAL_CREDITS: '250' } })
  })
  afterAll(() => t.close())

  const post = (path: string, body: unknown, key?: string) =>
    t.fetch(`${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) }, body: typeof body === 'string' ? body : JSON.stringify(body) })
  const del = (path: string, key: string) => t.fetch(`${path}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } })

  it('signup → 201 with account_id, key_id, api_key and the configured trial credits', async () => {
    const res = await post('/v1/auth/signup', { email: 'Trader@Example.com' })
    expect(res.status).toBe(201)
    const { data, meta } = (await res.json()) as { data: Record<string, unknown>; meta: Record<string, unknown> }
    expect(Object.keys(data).sort()).toEqual(['account_id', 'api_key', 'credits', 'key_id'])
    expect(data.credits).toBe(250)
    expect(data.api_key).toMatch(/^pa_[A-Za-z0-9_-]{43}$/)
    expect(meta.credits_charged).toBe(0)
    const acct = (await (await t.get('/v1/account', data.api_key as string)).json()) as { data: Record<string, unknown> }
    expect(acct.data).toEqual({ account_id: data.account_id, email: 'trader@example.com', credits: 250, created_at: expect.any(Number) })
  })

  it('a taken email → 409 (case-insensitive); a bad email or body → 400', async () => {
    await post('/v1/auth/signup', { email: 'dup@example.com' })
    await expectProblem(await post('/v1/auth/signup', { email: 'DUP@example.com' }), 409, 'conflict')
    expect((await expectProblem(await post('/v1/auth/signup', { email: 'not-an-email' }), 400, 'invalid_parameter')).parameter).toBe('email')
    expect((await expectProblem(await post('/v1/auth/signup', {}), 400, 'invalid_parameter')).parameter).toBe('email')
    await expectProblem(await post('/v1/auth/signup', '{not json'), 400, 'invalid_request')
    await expectProblem(await post('/v1/auth/signup', '[1,2]'), 400, 'invalid_request')
    await expectProblem(await post('/v1/auth/signup', JSON.stringify({ email: 'x'.repeat(20_000) + '@example.com' })), 413, 'payload_too_large')
  })

  it('creates a key, shows its secret once, lists keys without secrets', async () => {
    const { apiKey } = await t.signup()
    const created = await post('/v1/auth/keys', { name: 'research' }, apiKey)
    expect(created.status).toBe(201)
    const { data } = (await created.json()) as { data: Record<string, unknown> }
    expect(Object.keys(data).sort()).toEqual(['api_key', 'created_at', 'id', 'last_used_at', 'name', 'prefix', 'revoked_at'])
    expect(data.prefix).toBe((data.api_key as string).slice(0, 11))
    const list = (await (await t.get('/v1/auth/keys', data.api_key as string)).json()) as { data: Record<string, unknown>[] }
    expect(list.data.map((k) => k.name)).toEqual(['default', 'research'])
    for (const k of list.data) expect(Object.keys(k).sort()).toEqual(['created_at', 'id', 'last_used_at', 'name', 'prefix', 'revoked_at'])
    expect(JSON.stringify(list)).not.toContain(data.api_key)
    expect(list.data[1]!.last_used_at).toEqual(expect.any(Number))
  })

  it('400 for a missing or empty key name; 401 without a key', async () => {
    const { apiKey } = await t.signup()
    expect((await expectProblem(await post('/v1/auth/keys', {}, apiKey), 400, 'invalid_parameter')).parameter).toBe('name')
    expect((await expectProblem(await post('/v1/auth/keys', { name: '  ' }, apiKey), 400, 'invalid_parameter')).parameter).toBe('name')
    await expectProblem(await post('/v1/auth/keys', { name: 'x' }), 401, 'unauthorized')
    await expectProblem(await t.get('/v1/auth/keys'), 401, 'unauthorized')
  })

  it('revoking: own key → 200 and refused next call; another account\'s key → 404; last active key → 409', async () => {
    const a = await t.signup()
    const b = await t.signup()
    const second = ((await (await post('/v1/auth/keys', { name: 'two' }, a.apiKey)).json()) as { data: { id: string; api_key: string } }).data
    await expectProblem(await del(`/v1/auth/keys/${second.id}`, b.apiKey), 404, 'not_found')
    await expectProblem(await del(`/v1/auth/keys/${a.keyId}`, b.apiKey), 404, 'not_found')
    await expectProblem(await del('/v1/auth/keys/not-a-uuid', a.apiKey), 404, 'not_found')
    await expectProblem(await del('/v1/auth/keys/00000000-0000-4000-8000-000000000000', a.apiKey), 404, 'not_found')
    const ok = await del(`/v1/auth/keys/${second.id}`, a.apiKey)
    expect(ok.status).toBe(200)
    const revoked = ((await ok.json()) as { data: { id: string; revoked_at: number } }).data
    expect(revoked.id).toBe(second.id)
    expect(revoked.revoked_at).toEqual(expect.any(Number))
    await expectProblem(await t.get('/v1/account', second.api_key), 401, 'unauthorized')
    expect((await del(`/v1/auth/keys/${second.id}`, a.apiKey)).status).toBe(200) // idempotent
    await expectProblem(await del(`/v1/auth/keys/${a.keyId}`, a.apiKey), 409, 'conflict')
    expect((await t.get('/v1/account', a.apiKey)).status).toBe(200)
    // b can never see a's keys
    const listed = (await (await t.get('/v1/auth/keys', b.apiKey)).json()) as { data: { id: string }[] }
    expect(listed.data.map((k) => k.id)).toEqual([b.keyId])
  })

  it('two concurrent revocations cannot leave an account without an active key', async () => {
    const a = await t.signup()
    const k2 = ((await (await post('/v1/auth/keys', { name: 'k2' }, a.apiKey)).json()) as { data: { id: string; api_key: string } }).data
    // each key revokes the other: one wins; the other is refused (409 last key, or 401 when its own key is already gone)
    const [r1, r2] = await Promise.all([del(`/v1/auth/keys/${a.keyId}`, k2.api_key), del(`/v1/auth/keys/${k2.id}`, a.apiKey)])
    const statuses = [r1.status, r2.status].sort()
    expect(statuses[0]).toBe(200)
    expect([401, 409]).toContain(statuses[1])
    const [active] = await t.services.db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM api_key WHERE account_id = $1 AND revoked_at IS NULL', [a.accountId])
    expect(active!.n).toBe(1)
  })

  it('usage reports credits per endpoint and per day', async () => {
    const a = await t.signup()
    for (let i = 0; i < 3; i++) expect((await t.get('/v1/markets/exchanges', a.apiKey)).status).toBe(200)
    const res = await t.get('/v1/account/usage?days=7', a.apiKey)
    expect(res.status).toBe(200)
    const { data } = (await res.json()) as { data: Record<string, unknown> & { by_endpoint: unknown[]; by_day: { day: number; credits: number }[]; recent: { endpoint: string }[] } }
    expect(data.total_credits).toBe(3)
    expect(data.calls).toBe(3)
    expect(data.by_endpoint).toEqual([{ endpoint: '/v1/markets/exchanges', calls: 3, credits: 3 }])
    expect(data.by_day).toHaveLength(1)
    expect(data.by_day[0]!.day % 86_400_000).toBe(0)
    expect(data.recent.map((r) => r.endpoint)).toEqual(Array(3).fill('/v1/markets/exchanges'))
    expect((await expectProblem(await t.get('/v1/account/usage?days=0', a.apiKey), 400, 'invalid_parameter')).parameter).toBe('days')
  })
})
