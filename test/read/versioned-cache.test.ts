import { describe, expect, it } from 'vitest'
import { VersionedCache } from '../../src/read/versioned-cache.js'

const deferred = <T>() => {
  let resolve!: (v: T) => void
  let reject!: (e: unknown) => void
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)))
  return { promise, resolve, reject }
}

describe('VersionedCache', () => {
  it('computes once per key and version, again when the version moves', () => {
    const cache = new VersionedCache<number>()
    let calls = 0
    expect(cache.get('k', 1, () => ++calls)).toBe(1)
    expect(cache.get('k', 1, () => ++calls)).toBe(1)
    expect(cache.get('k', 2, () => ++calls)).toBe(2)
    expect(cache.get('other', 2, () => ++calls)).toBe(3)
    expect(calls).toBe(3)
  })

  it('shares a computation in flight with callers of the same version, not with those of a newer one', async () => {
    const cache = new VersionedCache<Promise<string>>()
    const first = deferred<string>()
    const a = cache.get('k', 1, () => first.promise)
    expect(cache.get('k', 1, () => Promise.resolve('never'))).toBe(a)
    const b = cache.get('k', 2, () => Promise.resolve('v2'))
    first.resolve('v1')
    expect(await a).toBe('v1')
    expect(await b).toBe('v2')
    // the older result finishing late does not replace the newer entry
    expect(await cache.get('k', 2, () => Promise.resolve('again'))).toBe('v2')
  })

  it('drops a rejected computation, so the next call tries again', async () => {
    const cache = new VersionedCache<Promise<string>>()
    await expect(cache.get('k', 1, () => Promise.reject(new Error('store down')))).rejects.toThrow('store down')
    expect(await cache.get('k', 1, () => Promise.resolve('ok'))).toBe('ok')
  })

  it('refreshMs: an entry older than that is recomputed at the same version', () => {
    let now = 0
    const cache = new VersionedCache<number>({ refreshMs: 100, clock: () => now })
    let calls = 0
    cache.get('k', 1, () => ++calls)
    now = 100
    expect(cache.get('k', 1, () => ++calls)).toBe(1)
    now = 101
    expect(cache.get('k', 1, () => ++calls)).toBe(2)
  })

  it('serveStaleMs: an outdated entry is served while one background recomputation runs; too old, callers wait for it', async () => {
    let now = 0
    const cache = new VersionedCache<Promise<string>>({ refreshMs: 100, serveStaleMs: 200, clock: () => now })
    expect(await cache.get('k', 1, () => Promise.resolve('old'))).toBe('old')
    const next = deferred<string>()
    let started = 0
    const fresh = () => (started++, next.promise)
    now = 150
    expect(await cache.get('k', 2, fresh)).toBe('old')
    expect(await cache.get('k', 2, fresh)).toBe('old')
    expect(started).toBe(1)
    now = 250 // past serveStaleMs: wait for the recomputation under way instead of serving the old entry
    const waiting = cache.get('k', 2, fresh)
    expect(started).toBe(1)
    next.resolve('new')
    expect(await waiting).toBe('new')
    expect(await cache.get('k', 2, fresh)).toBe('new')
  })

  it('keeps at most maxEntries, evicting other versions first, then the oldest', () => {
    const cache = new VersionedCache<string>({ maxEntries: 2 })
    cache.get('a', 1, () => 'a1')
    cache.get('b', 2, () => 'b2')
    cache.get('c', 2, () => 'c2') // a (version 1) goes
    let recomputed = 0
    cache.get('b', 2, () => (recomputed++, 'x'))
    cache.get('c', 2, () => (recomputed++, 'x'))
    expect(recomputed).toBe(0)
    cache.get('a', 1, () => (recomputed++, 'a1'))
    expect(recomputed).toBe(1)
  })

  it('staleAcrossVersions false: an entry outdated by the clock is served while it refreshes, one of an older version is not', async () => {
    let now = 0
    const cache = new VersionedCache<string>({ refreshMs: 100, serveStaleMs: 200, staleAcrossVersions: false, clock: () => now })
    expect(cache.get('k', 1, () => 'v1')).toBe('v1')
    now = 150
    expect(cache.get('k', 1, () => 'v1 again')).toBe('v1') // by the clock alone: the old one, recomputed behind it
    expect(cache.get('k', 1, () => 'never')).toBe('v1 again')
    expect(cache.get('k', 2, () => 'v2')).toBe('v2') // the data moved: computed at once
  })

  it('deferRefresh: the background recomputation runs on the next turn of the event loop, not in the call', async () => {
    let now = 0
    const cache = new VersionedCache<string>({ refreshMs: 100, serveStaleMs: 200, deferRefresh: true, clock: () => now })
    cache.get('k', 1, () => 'old')
    now = 150
    let calls = 0
    expect(cache.get('k', 1, () => (calls++, 'new'))).toBe('old')
    expect(calls).toBe(0)
    await new Promise((r) => setImmediate(r))
    expect(calls).toBe(1)
    expect(cache.get('k', 1, () => 'never')).toBe('new')
  })

  it('prime computes in the background unless the entry is current; callers of that version share it', async () => {
    const cache = new VersionedCache<Promise<string>>({ staleAcrossVersions: false, serveStaleMs: 1000, clock: () => 0 })
    expect(await cache.get('k', 1, () => Promise.resolve('v1'))).toBe('v1')
    let calls = 0
    cache.prime('k', 1, () => (calls++, Promise.resolve('again')))
    expect(calls).toBe(0)
    const next = deferred<string>()
    cache.prime('k', 2, () => (calls++, next.promise))
    expect(calls).toBe(1)
    const waiting = cache.get('k', 2, () => (calls++, Promise.resolve('not this')))
    expect(calls).toBe(1)
    next.resolve('v2')
    expect(await waiting).toBe('v2')
  })

  it('a clock set back outdates an entry', () => {
    let now = 1000
    const cache = new VersionedCache<string>({ refreshMs: 100, serveStaleMs: 200, clock: () => now })
    cache.get('k', 1, () => 'later')
    now = 500
    expect(cache.get('k', 1, () => 'earlier')).toBe('earlier')
  })

  it('oneVersion: an entry of a new version drops every entry of older ones at once; entries of that version stay', () => {
    const cache = new VersionedCache<string>({ oneVersion: true })
    cache.get('a', 1, () => 'a1')
    cache.get('b', 1, () => 'b1')
    cache.get('c', 2, () => 'c2')
    cache.get('d', 2, () => 'd2')
    let calls = 0
    expect(cache.get('d', 2, () => (calls++, 'again'))).toBe('d2')
    expect(cache.get('c', 2, () => (calls++, 'again'))).toBe('c2')
    expect(calls).toBe(0)
    // without it, entries of older versions stay until the cache is full
    const keep = new VersionedCache<string>()
    keep.get('a', 1, () => 'a1')
    keep.get('c', 2, () => 'c2')
    expect((keep as unknown as { entries: Map<string, unknown> }).entries.size).toBe(2)
    expect((cache as unknown as { entries: Map<string, unknown> }).entries.size).toBe(2)
  })
})
