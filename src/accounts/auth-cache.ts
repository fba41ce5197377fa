// Key → principal lookups remembered for a short while, for the metered analytics path only. It is safe
// there because the charge statement itself re-checks that the key is not revoked (a revoked key is refused
// on its next analytics call on any node), and a cached balance is only used to refuse early when it is
// re-read first. Calls that charge nothing (HEAD) ask with `fresh`, which reads the store as a charge would.
// Free endpoints (keys, account) always read the store.
import type { Sql } from '../store/database.js'
import { bearerToken, hashKey, isWellFormedKey } from './api-keys.js'
import { authenticate, type Principal } from './authenticate.js'

export class AuthCache {
  private readonly entries = new Map<string, { principal: Principal; at: number }>()

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
    const principal = await authenticate(this.sql, authorization, now).catch((e: unknown) => {
      // refused now: a cached copy must not answer for the key on later calls either
      this.entries.delete(hash)
      throw e
    })
    if (this.entries.size >= this.maxEntries) this.entries.clear()
    this.entries.set(hash, { principal: { ...principal }, at: now })
    return principal
  }

  /** the balance moved (a charge went through): keep the cached copy close to the truth */
  noteBalance(keyId: string, credits: number): void {
    for (const e of this.entries.values()) if (e.principal.keyId === keyId) e.principal.credits = credits
  }

  /** forget a key at once (revoked in this process) */
  forgetKey(keyId: string): void {
    for (const [h, e] of this.entries) if (e.principal.keyId === keyId) this.entries.delete(h)
  }
}
