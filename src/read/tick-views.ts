// Views over every coin kept computed with the data: an endpoint names its view and how to compute it, and the view
// is recomputed right after each data tick that moved what it reads (the hot series, applied by the ingest flush or
// from the bus; the live tickers and open interest, taken as of the tick), in the one cache (VersionedCache), so a
// request finds it computed and only serialises. A view is at most about one tick old: outdated by the clock alone
// (no data moved for a tick), it is served for one more tick while it is recomputed in the background. A view nobody
// asked for in a while is no longer precomputed. A view that says when it was computed (the snapshot's computed_at)
// can instead be served as the latest computed one while the next is under way (tickViewLatest), never older than
// its bound: then the caller waits for the new one.
import { DATA_TICK_MS, type MarketState } from './state.js'
import { VersionedCache } from './versioned-cache.js'

/** a view not asked for this long is no longer recomputed on the tick (it is computed again on the next request) */
const IDLE_AFTER_MS = 5 * 60_000
/** the oldest a view of tickViewLatest is served: one refresh period (a tick) plus one tick */
const LATEST_MAX_AGE_MS = 2 * DATA_TICK_MS

interface View {
  /** the cache it is kept in: waited for after the data moved, or the latest computed one served meanwhile */
  cache: VersionedCache<unknown>
  compute: (now: number) => unknown
  /** the versions of what else the view reads (stored data outside the series), appended to the data version */
  reads: () => string
  /** wall-clock ms of the last request (not the service clock, which tests pin) */
  usedAt: number
}

interface Views {
  cache: VersionedCache<unknown>
  /** the views served as the latest computed one while the next is under way, up to LATEST_MAX_AGE_MS old */
  latest: VersionedCache<unknown>
  views: Map<string, View>
  /** precomputations not finished yet */
  inflight: Set<Promise<unknown>>
  stop(): void
}

const byMarket = new WeakMap<MarketState, Views>()

/** the data a view is computed from: the series' version and the live values as of the last tick */
const dataVersion = (market: MarketState) => `${market.series.version}|${market.live.version}`

/** a precomputation, tracked until it settles; `then`: after it has succeeded */
const quiet = <T>(value: T, inflight: Set<Promise<unknown>>, then: () => void): T => {
  if (value instanceof Promise) {
    const done = value.then(then, () => {})
    inflight.add(done)
    void done.finally(() => inflight.delete(done))
  }
  return value
}

function viewsOf(market: MarketState): Views {
  const found = byMarket.get(market)
  if (found) return found
  // outdated by the data, a view is waited for (the precomputation started when the data moved, or a new one);
  // outdated by the clock alone, it is served for one more tick while it is recomputed on the next turn of the loop
  const cache = new VersionedCache<unknown>({ maxEntries: 16, refreshMs: DATA_TICK_MS, serveStaleMs: 2 * DATA_TICK_MS, staleAcrossVersions: false, deferRefresh: true, clock: market.clock })
  // served across data versions: the one computed last (it says when), while the precomputation of the tick runs
  const latest = new VersionedCache<unknown>({ maxEntries: 4, refreshMs: DATA_TICK_MS, serveStaleMs: LATEST_MAX_AGE_MS, deferRefresh: true, clock: market.clock })
  let scheduled = false
  let stopped = false
  const v: Views = {
    cache,
    latest,
    views: new Map(),
    inflight: new Set(),
    stop: () => {
      stopped = true
      clearInterval(timer)
      if (byMarket.get(market) === v) byMarket.delete(market)
    },
  }
  byMarket.set(market, v)
  const precompute = () => {
    scheduled = false
    if (stopped) return
    const wall = Date.now()
    for (const [name, view] of v.views) {
      if (wall - view.usedAt > IDLE_AFTER_MS) v.views.delete(name)
      // a failed precomputation is dropped by the cache; the next request computes (and reports) it
      // once done, look again: data that moved while it ran (its prime was skipped) is computed now, not a tick later
      else view.cache.prime(name, `${dataVersion(market)}|${view.reads()}`, () => quiet(view.compute(market.clock()), v.inflight, schedule))
    }
    // idle: stop; a later request starts over (the series keeps this listener, now inert)
    if (!v.views.size) v.stop()
  }
  const schedule = () => {
    if (scheduled || stopped) return
    scheduled = true
    // after the flush that moved the series has finished its own work
    setImmediate(precompute)
  }
  market.series.onChange(schedule)
  // the live values' tick
  const timer = setInterval(() => {
    market.live.tick()
    schedule()
  }, DATA_TICK_MS)
  timer.unref()
  return v
}

/**
 * The view `name` at the current data version, computed by `compute` (at the clock's now) when it is not there yet;
 * from then on recomputed after every data tick. `reads`: the versions of other data the view reads (a store read).
 */
export function tickView<T>(market: MarketState, name: string, now: number, compute: (now: number) => T, reads: () => string = () => ''): T {
  return viewIn(market, 'cache', name, now, compute, reads)
}

/**
 * As tickView, but after the data moved the latest computed view is served at once while the new one is computed
 * (precomputed on the tick, so usually under way already), as long as it is no older than LATEST_MAX_AGE_MS by the
 * market's clock; older, the caller waits for the new one. For a view that states when it was computed.
 */
export function tickViewLatest<T>(market: MarketState, name: string, now: number, compute: (now: number) => T, reads: () => string = () => ''): T {
  return viewIn(market, 'latest', name, now, compute, reads)
}

function viewIn<T>(market: MarketState, which: 'cache' | 'latest', name: string, now: number, compute: (now: number) => T, reads: () => string): T {
  const v = viewsOf(market)
  const cache = v[which]
  v.views.set(name, { cache, compute, reads, usedAt: Date.now() })
  return cache.get(name, `${dataVersion(market)}|${reads()}`, () => compute(now)) as T
}

/** no more precomputation (the node is stopping); resolves when those under way have finished, before the store closes */
export async function stopTickViews(market: MarketState): Promise<void> {
  const v = byMarket.get(market)
  if (!v) return
  v.stop()
  await Promise.all(v.inflight)
}
