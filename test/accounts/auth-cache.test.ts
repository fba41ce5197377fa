import { describe, expect, it } from 'vitest'
import { AuthCache } from '../../src/accounts/auth-cache.js'
import { generateKey } from '../../src/accounts/api-keys.js'
import type { Sql } from '../../src/store/database.js'

// The metered path authenticates from the cache: a cached key reads nothing, a burst of a new key's calls is one read,
// and a key forgotten (revoked on any node) is read again. A fake store counts the lookups; the clock is a fake one.
function fakeStore(key: ReturnType<typeof generateKey>, opts: { delayMs?: number } = {}) {
  const state = { lookups: 0, revoked: false }
  const sql: Pick<Sql, 'query'> = {
    async query<T>(text: string): Promise<T[]> {
      if (!text.includes('FROM api_key k JOIN account')) return []
      state.lookups++
      await new Promise((r) => setTimeout(r, opts.delayMs ?? 5))
      return [{ key_id: 'k1', hash: key.hash, revoked_at: state.revoked ? new Date() : null, last_used_at: new Date(), account_id: 'a1', credits: 42 }] as T[]
    },
  }
  return { sql, state }
}

describe('AuthCache', () => {
  it('50 parallel calls of a new key: one store lookup; later calls within the TTL: none', async () => {
    const key = generateKey()
    const { sql, state } = fakeStore(key, { delayMs: 20 })
    const clock = { now: 1_000 }
    const cache = new AuthCache(sql, () => clock.now)
    const principals = await Promise.all(Array.from({ length: 50 }, () => cache.authenticate(`Bearer ${key.secret}`)))
    expect(state.lookups).toBe(1)
    expect(new Set(principals.map((p) => JSON.stringify(p)))).toEqual(new Set([JSON.stringify({ accountId: 'a1', keyId: 'k1', credits: 42 })]))
    // each caller has its own copy (metering writes the balance into it)
    principals[0]!.credits = 1
    expect((await cache.authenticate(`Bearer ${key.secret}`)).credits).toBe(42)
    clock.now += 29_000
    await cache.authenticate(`Bearer ${key.secret}`)
    expect(state.lookups).toBe(1)
    clock.now += 2_000
    await cache.authenticate(`Bearer ${key.secret}`)
    expect(state.lookups).toBe(2)
  })

  it('a forgotten key (revoked on some node) is read again, and refused; a fresh call always reads', async () => {
    const key = generateKey()
    const { sql, state } = fakeStore(key)
    const cache = new AuthCache(sql, () => 1_000)
    await cache.authenticate(`Bearer ${key.secret}`)
    await cache.authenticate(`Bearer ${key.secret}`, { fresh: true })
    expect(state.lookups).toBe(2)
    state.revoked = true
    cache.forgetKey('k1')
    await expect(cache.authenticate(`Bearer ${key.secret}`)).rejects.toMatchObject({ status: 401 })
    await expect(cache.authenticate(`Bearer ${key.secret}`)).rejects.toMatchObject({ status: 401 })
    expect(state.lookups).toBe(4)
  })
})
