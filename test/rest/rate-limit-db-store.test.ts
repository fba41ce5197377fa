// The limiter counters kept in the store (signups per address): a count per key and window, started again when the
// window has ended, given back on decrement; and the failover that counts there when Redis does not answer.
import type { Options, Store } from 'express-rate-limit'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dbLimitStore, failoverStore } from '../../src/rest/rate-limit-db-store.js'
import type { Database } from '../../src/store/database.js'
import { openTestStore } from '../helpers/store.js'

let db: Database
beforeAll(async () => {
  db = await openTestStore()
})
afterAll(() => db.close())

describe('dbLimitStore', () => {
  it('counts per key within the window, starts again after it, gives a count back on decrement', async () => {
    let now = 1_000_000
    const store = dbLimitStore(db.sql, 't1:', () => now)
    store.init!({ windowMs: 60_000 } as Options)
    expect(await store.increment('a')).toEqual({ totalHits: 1, resetTime: new Date(1_060_000) })
    now += 10_000
    expect(await store.increment('a')).toEqual({ totalHits: 2, resetTime: new Date(1_060_000) })
    expect((await store.increment('b')).totalHits).toBe(1)
    await store.decrement('a')
    expect(await store.get!('a')).toEqual({ totalHits: 1, resetTime: new Date(1_060_000) })
    now = 1_060_000 // the window has ended
    expect(await store.get!('a')).toBeUndefined()
    expect(await store.increment('a')).toEqual({ totalHits: 1, resetTime: new Date(1_120_000) })
    await store.resetKey('a')
    expect(await store.get!('a')).toBeUndefined()
    // another limiter's prefix is another counter
    expect((await dbLimitStore(db.sql, 't2:', () => now).increment('b')).totalHits).toBe(1)
  })

  it('the failover counts in the store while the primary does not answer', async () => {
    const down: Store = { increment: () => Promise.reject(new Error('redis down')), decrement: () => Promise.reject(new Error('x')), resetKey: () => Promise.reject(new Error('x')), get: () => Promise.reject(new Error('x')) }
    const local = dbLimitStore(db.sql, 't3:')
    const store = failoverStore(down, local)
    store.init!({ windowMs: 60_000 } as Options)
    expect((await store.increment('x')).totalHits).toBe(1)
    expect((await store.increment('x')).totalHits).toBe(2)
    expect((await store.get!('x'))?.totalHits).toBe(2)
  })
})
