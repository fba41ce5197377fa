// A revoked key on HEAD (issue 31): HEAD charges nothing, so no charge statement re-checks the key as it does for
// GET; it used to answer from the 30 s key cache and kept saying 200 on a node that had looked the key up before.
// Two nodes on one store (two service instances, each with its own key cache): revoked on A, HEAD on B answers
// 401 at once, as GET does.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestService } from '../helpers/service.js'

describe('revocation reaches HEAD as fast as GET on another node', () => {
  let a: TestService, b: TestService
  beforeAll(async () => {
    a = await startTestService()
    b = await startTestService({ db: a.services.db })
  })
  afterAll(async () => {
    await b?.close()
    await a?.close()
  })

  const head = (t: TestService, path: string, key: string) => t.fetch(path, { method: 'HEAD', headers: { authorization: `Bearer ${key}` } })

  it('a key revoked on node A gets 401 on HEAD at node B on the next call, though B looked it up a moment before', async () => {
    const owner = await a.signup()
    const created = await a.fetch('/v1/auth/keys', { method: 'POST', headers: { authorization: `Bearer ${owner.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'second' }) })
    expect(created.status).toBe(201)
    const { data: second } = (await created.json()) as { data: { id: string; api_key: string } }
    // B knows the key: its lookup cache holds it from these calls
    expect((await head(b, '/v1/markets/ticker?coin=BTC', second.api_key)).status).toBe(200)
    const get = await b.get('/v1/markets/ticker?coin=BTC', second.api_key)
    expect(get.status).toBe(200)
    await get.arrayBuffer()

    expect((await a.fetch(`/v1/auth/keys/${second.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${owner.apiKey}` } })).status).toBe(200)

    const refused = await head(b, '/v1/markets/ticker?coin=BTC', second.api_key)
    expect(refused.status).toBe(401)
    expect(refused.headers.get('x-credits-charged')).toBe('0')
    // and GET, as before, on the same node
    expect((await b.get('/v1/markets/ticker?coin=BTC', second.api_key)).status).toBe(401)
    // the owner's own key is untouched on both methods
    expect((await head(b, '/v1/markets/ticker?coin=BTC', owner.apiKey)).status).toBe(200)
  })
})
