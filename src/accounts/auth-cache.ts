// Key → principal lookups remembered for a short while, for the metered analytics path only: a cached key's call
// reads nothing from the store. It is safe there because a revocation reaches every node's cache within a round of
// the credit leases (250 ms, src/accounts/credit-leases.ts), a durable charge's write re-checks the key, and a cached
// balance is only used to refuse early when it is re-read first. Calls that charge nothing (HEAD) ask with `fresh`, which reads the store as a charge would.
// Free endpoints (keys, account) always read the store.
import type { Sql } from '../store/database.js'
import { bearerToken, hashKey, isWellFormedKey } from './api-keys.js'
import { authenticate, type Principal } from './authenticate.js'

export class AuthCache {
  private readonly entries = new Map<string, { principal: Principal; at: number }>()
  private readonly lookups = new Map<string, Promise<Principal>>()

  constructor(
    private readonly sql: Pick<Sql, 'query'>,
    private readonly clock: () => number = Date.now,
    private readonly ttlMs = 30_000,
    private readonly maxEntries = 100_000,
  ) {}

  /** `fresh`: read the store whatever the cache holds (a call with no charge to re-check the key), and remember the answer */
  async authenticate(authorization: string | undefined, opts: { fresh?: boolean } = {}): Promise<Principal> {
    const token = bearerToken(authorization)
    if (!token || !isWellFormedKey(token)) return authenticate(this.sql, authorization, this.clock())
    const hash = hashKey(token)
    const now = this.clock()
    const hit = this.entries.get(hash)
    if (hit && now - hit.at < this.ttlMs && !opts.fresh) return { ...hit.principal }
    // one store lookup per key at a time: the calls that arrive while it is under way take its answer (a burst of a
    // new key's calls is one read, not one per call queued on the pool); a `fresh` call reads for itself
    const running = opts.fresh ? undefined : this.lookups.get(hash)
    if (running) return { ...(await running) }
    const lookup = authenticate(this.sql, authorization, now).then(
      (principal) => {
        if (this.entries.size >= this.maxEntries) this.entries.clear()
        this.entries.set(hash, { principal: { ...principal }, at: now })
        return principal
      },
      (e: unknown) => {
        // refused now: a cached copy must not answer for the key on later calls either
        this.entries.delete(hash)
        throw e
      },
    )
    if (!opts.fresh) this.lookups.set(hash, lookup)
    try {
      return { ...(await lookup) }
    } finally {
      if (this.lookups.get(hash) === lookup) this.lookups.delete(hash)
    }
  }

  /** the balance moved (a charge went through): keep the cached copy close to the truth */
  noteBalance(keyId: string, credits: number): void {
    for (const e of this.entries.values()) if (e.principal.keyId === keyId) e.principal.credits = credits
  }

  /** forget a key at once (revoked in this process, or on any node: src/accounts/credit-leases.ts learns it each round) */
  forgetKey(keyId: string): void {
    for (const [h, e] of this.entries) if (e.principal.keyId === keyId) this.entries.delete(h)
  }
}
