import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { expectProblem, startTestService, type TestService } from '../helpers/service.js'

describe('authentication', () => {
  let t: TestService
  beforeAll(async () => {
    t = await startTestService()
  })
  afterAll(() => t.close())

  it.each([
    ['missing', undefined],
    ['not bearer', 'Basic dXNlcjpwYXNz'],
    ['garbage', 'Bearer garbage'],
    ['well-formed but unknown', `Bearer pa_${'A'.repeat(43)}`],
    ['empty bearer', 'Bearer '],
  ])('401 unauthorized for a %s key, with the problem shape and nothing charged', async (_label, header) => {
    const res = await t.fetch(`/v1/markets/exchanges`, { headers: header ? { authorization: header } : {} })
    const body = await expectProblem(res, 401, 'unauthorized')
    expect(body.type).toBe('urn:perp-analytics:problem:unauthorized')
    expect(res.headers.get('x-request-id')).toBeTruthy()
    expect(res.headers.get('x-credits-charged')).toBe('0')
  })

  it('401 for a revoked key on the very next call', async () => {
    const { apiKey } = await t.signup()
    const second = await t.fetch(`/v1/auth/keys`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: '{"name":"bot"}' })
    const { data } = (await second.json()) as { data: { id: string; api_key: string } }
    expect((await t.get('/v1/markets/exchanges', data.api_key)).status).toBe(200)
    const del = await t.fetch(`/v1/auth/keys/${data.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${apiKey}` } })
    expect(del.status).toBe(200)
    await expectProblem(await t.get('/v1/markets/exchanges', data.api_key), 401, 'unauthorized')
    expect((await t.get('/v1/markets/exchanges', apiKey)).status).toBe(200)
  })

  it('keys are stored only as hashes (the raw table never holds a secret)', async () => {
    const { apiKey, keyId } = await t.signup()
    const rows = await t.services.db.sql.query<Record<string, unknown>>('SELECT * FROM api_key WHERE id = $1', [keyId])
    const stored = JSON.stringify(rows)
    expect(stored).not.toContain(apiKey)
    expect(stored).not.toContain(apiKey.slice(11))
    expect(rows[0]!.hash).toMatch(/^[0-9a-f]{64}$/)
    expect(rows[0]!.prefix).toBe(apiKey.slice(0, 11))
  })

  it('echoes a sane X-Request-Id and replaces an unsafe one', async () => {
    const ok = await t.get('/healthz', null, { 'x-request-id': 'client-req-12345' })
    expect(ok.headers.get('x-request-id')).toBe('client-req-12345')
    const bad = await t.get('/healthz', null, { 'x-request-id': '<script>' })
    expect(bad.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
  })
})
