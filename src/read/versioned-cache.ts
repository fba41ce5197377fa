// The one cache of computed results: an entry holds while the version of the data it was computed from is unchanged.
// Every endpoint that caches uses it (candles, volume at price, signal models, liquidation maps, the snapshot).
// A promise is stored as it is, so concurrent callers share one computation; a rejected one is dropped.

export interface CacheOptions {
  /** entries kept; the oldest (or any of an older version) go first */
  maxEntries?: number
  /** an entry older than this counts as outdated even at the same version (then it is recomputed) */
  refreshMs?: number
  /**
   * an outdated entry younger than this is still served while one recomputation runs in the background
   * (stale-while-revalidate); older, the caller waits for the new value
   */
  serveStaleMs?: number
  /** with serveStaleMs: whether an entry of an older data version is also served while the new one is computed (default true; false: only one outdated by age) */
  staleAcrossVersions?: boolean
  /** run a background recomputation on the next turn of the event loop, not within the call that found the entry outdated */
  deferRefresh?: boolean
  /** the clock for refreshMs and serveStaleMs */
  clock?: () => number
  /**
   * every key is computed from the same data version (not a version per key): once an entry of a new version is
   * stored, the entries of older ones can never be served again, and are dropped at once rather than when the cache
   * is full (what they hold, e.g. weeks of series and their JSON, would otherwise stay until then). Only for caches
   * computed in the foreground (no prime, no serveStaleMs), whose entries are stored in the order of their versions.
   */
  oneVersion?: boolean
}

interface Entry<T> {
  version: string | number
  at: number
  value: T
}

export class VersionedCache<T> {
  private readonly entries = new Map<string, Entry<T>>()
  /** background recomputations under way, by key (value null: scheduled for the next turn of the event loop) */
  private readonly refreshing = new Map<string, { version: string | number; value: T | null }>()

  constructor(private readonly opts: CacheOptions = {}) {}

  /** the value for `key` at data version `version`, computed by `compute` when there is none */
  get(key: string, version: string | number, compute: () => T): T {
    const now = this.opts.clock?.() ?? 0
    const hit = this.entries.get(key)
    if (hit !== undefined && hit.version === version && !this.outdated(hit, now)) return hit.value
    const stalePermitted = hit !== undefined && (hit.version === version || this.opts.staleAcrossVersions !== false)
    if (hit && stalePermitted && this.opts.serveStaleMs !== undefined && now >= hit.at && now - hit.at <= this.opts.serveStaleMs) {
      if (!this.refreshing.has(key)) this.refresh(key, version, now, compute)
      return hit.value
    }
    // too old to serve: wait for the background recomputation of this version if one is under way, else compute now
    const running = this.refreshing.get(key)
    return running && running.version === version && running.value !== null ? running.value : this.compute(key, version, now, compute, false)
  }

  private outdated(e: Entry<T>, now = this.opts.clock?.() ?? 0): boolean {
    // a clock set back (tests) outdates as well
    return this.opts.refreshMs !== undefined && (now - e.at > this.opts.refreshMs || now < e.at)
  }

  private refresh(key: string, version: string | number, now: number, compute: () => T): void {
    if (!this.opts.deferRefresh) {
      this.compute(key, version, now, compute, true)
      return
    }
    const pending = { version, value: null }
    this.refreshing.set(key, pending)
    setImmediate(() => {
      if (this.refreshing.get(key) !== pending) return
      this.refreshing.delete(key)
      if (this.entries.get(key)?.version === version && !this.outdated(this.entries.get(key)!)) return
      this.compute(key, version, this.opts.clock?.() ?? now, compute, true)
    })
  }

  /**
   * Compute the value for `key` at `version` now, in the background (the current entry stays served meanwhile), unless
   * the entry is of that version and not outdated, or a computation is under way: a precomputation when the data moved.
   */
  prime(key: string, version: string | number, compute: () => T): void {
    const hit = this.entries.get(key)
    if ((hit && hit.version === version && !this.outdated(hit)) || this.refreshing.has(key)) return
    this.compute(key, version, this.opts.clock?.() ?? 0, compute, true)
  }

  private compute(key: string, version: string | number, now: number, compute: () => T, background: boolean): T {
    const value = compute()
    if (!(value instanceof Promise)) {
      this.put(key, { version, at: now, value })
      return value
    }
    // a computation in the foreground is the entry at once (concurrent callers of the same version share it); one in
    // the background replaces the entry only once it is there, and the clock then says when it was computed
    const running = { version, value }
    if (background) this.refreshing.set(key, running)
    else this.put(key, { version, at: now, value })
    value.then(
      () => {
        if (!background || this.refreshing.get(key) !== running) return
        this.refreshing.delete(key)
        this.put(key, { version, at: this.opts.clock?.() ?? now, value })
      },
      () => {
        if (background && this.refreshing.get(key) === running) this.refreshing.delete(key)
        if (this.entries.get(key)?.value === value) this.entries.delete(key)
      },
    )
    return value
  }

  private put(key: string, entry: Entry<T>) {
    const max = this.opts.maxEntries ?? 64
    this.entries.delete(key)
    if (this.opts.oneVersion && this.opts.serveStaleMs === undefined) for (const [k, e] of this.entries) if (e.version !== entry.version) this.entries.delete(k)
    if (this.entries.size >= max) {
      for (const [k, e] of this.entries) if (e.version !== entry.version) this.entries.delete(k)
      while (this.entries.size >= max) this.entries.delete(this.entries.keys().next().value!)
    }
    this.entries.set(key, entry)
  }
}

const registries = new WeakMap<object, Map<string, VersionedCache<unknown>>>()

/**
 * The cache `name` of an owner (e.g. of a MarketState), created on first use with these options: it lives as long
 * as its owner. One name, one value type: each cache has a name of its own (the endpoint's or the read's).
 */
export function cacheOf<T>(owner: object, name: string, opts?: CacheOptions): VersionedCache<T> {
  let byName = registries.get(owner)
  if (!byName) registries.set(owner, (byName = new Map()))
  let cache = byName.get(name) as VersionedCache<T> | undefined
  if (!cache) byName.set(name, (cache = new VersionedCache<T>(opts)) as VersionedCache<unknown>)
  return cache
}
