// Keys (issue "Reliability and security", part 6).
//  - hashesEqual, by behaviour: equal → true, unequal → false, different lengths → false without throwing,
//    and it is crypto.timingSafeEqual that decides (spied, not read from the source).
//  - Isolation: an account never sees nor revokes another account's keys (REST and GraphQL).
import * as crypto from 'node:crypto'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startTestService, type TestService } from '../helpers/service.js'
import { assertProblemShape, gql } from './support.js'

vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>()
  return { ...actual, default: actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) }
})

// a fresh instance of the module, importing the mocked crypto (another test file in this worker may have loaded it)
vi.resetModules()
const { generateKey, hashKey, hashesEqual } = await import('../../src/accounts/api-keys.js')
const timingSafeEqual = vi.mocked(crypto.timingSafeEqual)

const SEED = 20260302
const sha256Hex = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex'))

describe('hashesEqual (constant-time comparison of key hashes)', () => {
  it('equal hashes compare equal, through crypto.timingSafeEqual', () => {
    const h = hashKey(generateKey().secret)
    timingSafeEqual.mockClear()
    expect(hashesEqual(h, h)).toBe(true)
    expect(hashesEqual(h, [...h].join(''))).toBe(true) // an equal value built separately
    expect(timingSafeEqual).toHaveBeenCalledTimes(2)
  })

  it('unequal hashes of the same length compare unequal, through crypto.timingSafeEqual (no early exit on a prefix)', () => {
    const h = hashKey('pa_one')
    const flippedLast = `${h.slice(0, -1)}${h.endsWith('0') ? '1' : '0'}`
    const flippedFirst = `${h.startsWith('0') ? '1' : '0'}${h.slice(1)}`
    timingSafeEqual.mockClear()
    expect(hashesEqual(h, flippedLast)).toBe(false)
    expect(hashesEqual(h, flippedFirst)).toBe(false)
    expect(hashesEqual(h, hashKey('pa_two'))).toBe(false)
    expect(timingSafeEqual).toHaveBeenCalledTimes(3)
  })

  it('property: for SHA-256 hex digests, hashesEqual(a, b) is exactly a === b', () => {
    fc.assert(
      fc.property(sha256Hex, sha256Hex, fc.boolean(), (a, b, same) => {
        const other = same ? a : b
        expect(hashesEqual(a, other)).toBe(a === other)
      }),
      { seed: SEED, numRuns: 500 },
    )
  })

  it.each([
    ['a digest and its 63-character prefix', (h: string) => h.slice(0, 63)],
    ['a digest and its 62-character prefix', (h: string) => h.slice(0, 62)],
    ['a digest and the empty string', () => ''],
    ['a digest and itself plus one hex digit', (h: string) => `${h}0`],
    ['a digest and itself plus junk', (h: string) => `${h}zz`],
    ['a digest and itself twice', (h: string) => `${h}${h}`],
  ])('different lengths compare unequal and do not throw: %s', (_label, other) => {
    const h = hashKey(generateKey().secret)
    expect(() => hashesEqual(h, other(h))).not.toThrow()
    expect(hashesEqual(h, other(h))).toBe(false)
    expect(hashesEqual(other(h), h)).toBe(false)
  })

  it('property: strings of different lengths never compare equal', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), fc.string({ maxLength: 80 }), (a, b) => {
        fc.pre(a.length !== b.length)
        expect(hashesEqual(a, b)).toBe(false)
      }),
      { seed: SEED + 1, numRuns: 500 },
    )
  })

  it('non-hex strings do not compare equal to each other', () => {
    expect(hashesEqual('zz', 'yy')).toBe(false)
    expect(hashesEqual('not a hash', 'also not a hash')).toBe(false)
  })
})

describe('key isolation between accounts', () => {
  let t: TestService
  beforeAll(async () => {
    t = await startTestService()
  })
  afterAll(() => t?.close())

  const createKey = async (key: string, name: string) => {
    const res = await t.fetch(`/v1/auth/keys`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ name }) })
    expect(res.status).toBe(201)
    return ((await res.json()) as { data: { id: string; api_key: string; prefix: string } }).data
  }
  const listKeys = async (key: string) => {
    const res = await t.get('/v1/auth/keys', key)
    expect(res.status).toBe(200)
    return { text: await res.clone().text(), keys: ((await res.json()) as { data: Record<string, unknown>[] }).data }
  }
  const revoke = (key: string, id: string) => t.fetch(`/v1/auth/keys/${id}`, { method: 'DELETE', headers: { authorization: `Bearer ${key}` } })

  it('GET /v1/auth/keys lists only the caller\'s keys, and never a secret or a hash', async () => {
    const a = await t.signup()
    const b = await t.signup()
    const a2 = await createKey(a.apiKey, 'a-second')
    const b2 = await createKey(b.apiKey, 'b-second')

    const listA = await listKeys(a.apiKey)
    expect(listA.keys.map((k) => k.id).sort()).toEqual([a.keyId, a2.id].sort())
    const listB = await listKeys(b.apiKey)
    expect(listB.keys.map((k) => k.id).sort()).toEqual([b.keyId, b2.id].sort())

    for (const { text, keys } of [listA, listB]) {
      for (const k of keys) expect(Object.keys(k).sort()).toEqual(['created_at', 'id', 'last_used_at', 'name', 'prefix', 'revoked_at'])
      for (const secret of [a.apiKey, a2.api_key, b.apiKey, b2.api_key]) {
        expect(text).not.toContain(secret)
        expect(text).not.toContain(hashKey(secret))
      }
    }
    // the other account's ids do not show up at all
    expect(listA.text).not.toContain(b.keyId)
    expect(listB.text).not.toContain(a2.id)
  })

  it('DELETE of another account\'s key → 404 not_found (existence not revealed), and the key still works', async () => {
    const a = await t.signup()
    const b = await t.signup()
    const a2 = await createKey(a.apiKey, 'a-second') // so A's keys are revocable by A at all
    await createKey(b.apiKey, 'b-second')

    for (const victim of [a.keyId, a2.id]) {
      const res = await revoke(b.apiKey, victim)
      const body = assertProblemShape(res.status, res.headers, await res.text(), 'cross-account revoke')
      expect(res.status).toBe(404)
      expect(body.code).toBe('not_found')
      // same answer as for a key that does not exist at all
      const missing = await revoke(b.apiKey, '00000000-0000-4000-8000-000000000000')
      expect(missing.status).toBe(404)
      const missingBody = (await missing.json()) as Record<string, unknown>
      expect(Object.keys(body).sort()).toEqual(Object.keys(missingBody).sort())
    }
    // A's keys are untouched and still authenticate
    expect((await t.get('/v1/account', a.apiKey)).status).toBe(200)
    expect((await t.get('/v1/account', a2.api_key)).status).toBe(200)
    const list = await listKeys(a.apiKey)
    expect(list.keys.every((k) => k.revoked_at === null)).toBe(true)
    // while A itself can revoke its own second key
    expect((await revoke(a.apiKey, a2.id)).status).toBe(200)
    expect((await t.get('/v1/account', a2.api_key)).status).toBe(401)
  })

  it('the same over GraphQL: apiKeys lists only the caller\'s, revokeApiKey of another account\'s key is not_found', async () => {
    const a = await t.signup()
    const b = await t.signup()
    await createKey(b.apiKey, 'b-second')
    const listed = await gql(t, '{ apiKeys { id prefix } }', { key: b.apiKey })
    expect((listed.body.data!.apiKeys as { id: string }[]).map((k) => k.id)).not.toContain(a.keyId)
    const { body } = await gql(t, 'mutation R($id: ID!) { revokeApiKey(id: $id) { id revokedAt } }', { key: b.apiKey, variables: { id: a.keyId } })
    expect(body.data ?? null).toBeNull()
    expect(body.errors?.[0]?.extensions?.code).toBe('not_found')
    expect((await t.get('/v1/account', a.apiKey)).status).toBe(200)
  })

  it('malformed and hostile key ids are 404 too, never a 500', async () => {
    const a = await t.signup()
    for (const id of ['x', "' OR '1'='1", '00000000-0000-0000-0000-00000000000G', `${a.keyId}x`, ` ${a.keyId}`, '%00', '..', 'a'.repeat(2000)]) {
      const res = await revoke(a.apiKey, encodeURIComponent(id))
      expect(res.status, id).toBe(404)
      assertProblemShape(res.status, res.headers, await res.text(), `revoke ${id.slice(0, 20)}`)
    }
    expect((await t.get('/v1/account', a.apiKey)).status).toBe(200)
  })
})
