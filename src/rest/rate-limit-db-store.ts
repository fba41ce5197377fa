// A limiter's counters in the store (limit_counter): shared by every node on one PostgreSQL and kept across restarts,
// for the limits that must hold per client address whatever the deployment (signups: trial credits), with or
// without Redis. One upsert per count, atomic per key; a window that has ended starts again at the next count.
import type { ClientRateLimitInfo, IncrementResponse, Options, Store } from 'express-rate-limit'
import type { Sql } from '../store/database.js'

/** expired counters are deleted at most this often (they are dead weight, never read: a count restarts them) */
const PRUNE_EVERY_MS = 3_600_000

export function dbLimitStore(sql: Pick<Sql, 'query'>, prefix: string, clock: () => number = Date.now): Store {
  let windowMs = 60_000
  let lastPrune = Number.NEGATIVE_INFINITY
  const info = (r: { hits: number | string; reset_at: number | string }): ClientRateLimitInfo => ({ totalHits: Number(r.hits), resetTime: new Date(Number(r.reset_at)) })
  return {
    prefix,
    localKeys: false,
    init(options: Options) {
      windowMs = options.windowMs
    },
    async get(key) {
      const [r] = await sql.query<{ hits: number; reset_at: string }>('SELECT hits, reset_at FROM limit_counter WHERE key = $1 AND reset_at > $2', [prefix + key, clock()])
      return r ? info(r) : undefined
    },
    async increment(key): Promise<IncrementResponse> {
      const now = clock()
      if (now - lastPrune >= PRUNE_EVERY_MS) {
        lastPrune = now
        await sql.query('DELETE FROM limit_counter WHERE reset_at <= $1', [now])
      }
      const [r] = await sql.query<{ hits: number; reset_at: string }>(
        `INSERT INTO limit_counter AS c (key, hits, reset_at) VALUES ($1, 1, $2::bigint + $3::bigint)
         ON CONFLICT (key) DO UPDATE SET
           hits = CASE WHEN c.reset_at <= $2::bigint THEN 1 ELSE c.hits + 1 END,
           reset_at = CASE WHEN c.reset_at <= $2::bigint THEN $2::bigint + $3::bigint ELSE c.reset_at END
         RETURNING hits, reset_at`,
        [prefix + key, now, windowMs],
      )
      return info(r!)
    },
    async decrement(key) {
      await sql.query('UPDATE limit_counter SET hits = greatest(hits - 1, 0) WHERE key = $1 AND reset_at > $2', [prefix + key, clock()])
    },
    async resetKey(key) {
      await sql.query('DELETE FROM limit_counter WHERE key = $1', [prefix + key])
    },
  }
}

/**
 * Counts in `primary` (Redis) and, for any call it does not answer, in `fallback` (the store): a Redis outage does
 * not lift the limit. During an outage the two hold separate counts, so the limit is at most doubled.
 */
export function failoverStore(primary: Store, fallback: Store): Store {
  const either = <T>(a: () => Promise<T> | T, b: () => Promise<T> | T): Promise<T> => Promise.resolve().then(a).catch(() => b())
  return {
    prefix: primary.prefix,
    localKeys: false,
    init(options) {
      void Promise.resolve(primary.init?.(options)).catch(() => {})
      void Promise.resolve(fallback.init?.(options)).catch(() => {})
    },
    get: (key) => either(() => primary.get?.(key), () => fallback.get?.(key)),
    increment: (key) => either(() => primary.increment(key), () => fallback.increment(key)),
    decrement: (key) => either(() => primary.decrement(key), () => fallback.decrement(key)),
    resetKey: (key) => either(() => primary.resetKey(key), () => fallback.resetKey(key)),
  }
}
