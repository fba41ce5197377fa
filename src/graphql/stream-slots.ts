// Streams open at once per API key and per account (STREAM_MAX_PER_KEY, STREAM_MAX_PER_ACCOUNT), GET /v1/stream
// and the GraphQL subscription together. Counted in process and, with REDIS_URL, in Redis as well, so the caps hold
// across API nodes: there each open stream is a member of its key's and its account's set, leased for SLOT_LEASE_MS
// and renewed by the node holding it (a node that dies leaves members that lapse). Redis not answering: each node
// still holds the caps over its own streams (fail open to the local count, like the rate limits).
import { randomUUID } from 'node:crypto'
import type { Logger } from 'pino'
import type { Config } from '../config.js'
import { ApiError } from '../errors.js'

/** a stream's lease in the shared sets; renewed every third of it */
const SLOT_LEASE_MS = 90_000
/** what a refused stream is told to wait: slots free as other streams of the key or account close */
const RETRY_AFTER_S = 30

export interface StreamSlot {
  accountId: string
  keyId: string
  /** unique across nodes */
  member: string
}

export type SlotRefusal = { scope: 'key' | 'account'; open: number }

/** the shared count (Redis, src/rest/rate-limit-store.ts) */
export interface SharedStreamSlots {
  /** adds the slot unless either cap is reached; null when taken */
  take(slot: StreamSlot, perKey: number, perAccount: number, leaseMs: number): Promise<SlotRefusal | null>
  renew(slots: readonly StreamSlot[], leaseMs: number): Promise<void>
  give(slot: StreamSlot): Promise<void>
}

export class StreamSlots {
  private readonly open = new Map<string, number>()
  private readonly held = new Set<StreamSlot>()
  private readonly node = randomUUID()
  private seq = 0
  private renewing: NodeJS.Timeout | null = null

  constructor(
    private readonly config: Pick<Config, 'STREAM_MAX_PER_KEY' | 'STREAM_MAX_PER_ACCOUNT'>,
    /** the shared count, when this node has one (looked up at each stream: REDIS_URL is connected after start) */
    private readonly shared: () => SharedStreamSlots | null,
    private readonly logger: Logger,
  ) {}

  /** a slot for a new stream of this key, and the function that gives it back; a 429 `rate_limited` past a cap */
  async take(p: { accountId: string; keyId: string }): Promise<() => void> {
    const { STREAM_MAX_PER_KEY: perKey, STREAM_MAX_PER_ACCOUNT: perAccount } = this.config
    const k = `k:${p.keyId}`
    const a = `a:${p.accountId}`
    // in process first, synchronously: streams racing on this node cannot pass it together
    if ((this.open.get(k) ?? 0) >= perKey) throw refusal({ scope: 'key', open: this.open.get(k)! }, perKey)
    if ((this.open.get(a) ?? 0) >= perAccount) throw refusal({ scope: 'account', open: this.open.get(a)! }, perAccount)
    const slot: StreamSlot = { ...p, member: `${this.node}:${++this.seq}` }
    this.count(slot, 1)
    const shared = this.shared()
    if (shared) {
      const refused = await shared.take(slot, perKey, perAccount, SLOT_LEASE_MS).catch((err: unknown) => {
        this.logger.warn({ err }, 'stream caps: the shared count did not answer; this node counts its own streams')
        return null
      })
      if (refused) {
        this.count(slot, -1)
        throw refusal(refused, refused.scope === 'key' ? perKey : perAccount)
      }
      this.held.add(slot)
      this.renewing ??= setInterval(() => this.renew(), SLOT_LEASE_MS / 3).unref()
    }
    let given = false
    return () => {
      if (given) return
      given = true
      this.count(slot, -1)
      if (!this.held.delete(slot)) return
      void this.shared()?.give(slot).catch(() => {}) // not given back: it lapses with its lease
      if (!this.held.size && this.renewing) {
        clearInterval(this.renewing)
        this.renewing = null
      }
    }
  }

  private count(s: StreamSlot, by: 1 | -1) {
    for (const id of [`k:${s.keyId}`, `a:${s.accountId}`]) {
      const n = (this.open.get(id) ?? 0) + by
      if (n > 0) this.open.set(id, n)
      else this.open.delete(id)
    }
  }

  private renew() {
    void this.shared()?.renew([...this.held], SLOT_LEASE_MS).catch((err: unknown) => this.logger.warn({ err }, 'stream caps: leases not renewed'))
  }
}

const refusal = (r: SlotRefusal, limit: number) =>
  new ApiError(
    'rate_limited',
    `At most ${limit} streams may be open at once per ${r.scope === 'key' ? 'API key' : 'account'} and ${r.open} are; close one, or retry after ${RETRY_AFTER_S} s. Nothing was charged.`,
    { retry_after: RETRY_AFTER_S, scope: r.scope, limit, open: r.open },
  )
