// Rate-limit counters shared by every API node (REDIS_URL): express-rate-limit's stores backed by Redis
// (rate-limit-redis over ioredis), and the open streams per key and account (src/graphql/stream-slots.ts). A call
// that Redis does not answer within STORE_WAIT_MS fails, and the limiters let the request through (fail open: a
// Redis outage must not take the API down; each node then limits nothing until Redis is back, which /readyz and the
// log report; the stream caps fall back to each node's own count).
import { Redis } from 'ioredis'
import type { ClientRateLimitInfo, IncrementResponse, Options, Store } from 'express-rate-limit'
import { RedisStore, type RedisReply } from 'rate-limit-redis'
import type { Logger } from 'pino'
import type { SharedStreamSlots, StreamSlot } from '../graphql/stream-slots.js'

const STORE_WAIT_MS = 500

export interface LimitStores {
  /** a store whose keys start with `prefix` (one per limiter) */
  store(prefix: string): Store
  /** the open streams per key and account */
  streams: SharedStreamSlots
  connected(): boolean
  close(): Promise<void>
}

function within<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([p, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`redis: ${what} took over ${STORE_WAIT_MS} ms`)), STORE_WAIT_MS)))]).finally(() => clearTimeout(timer))
}

/** a RedisStore that bounds every call and loads its scripts again after an outage */
class BoundedRedisStore implements Store {
  private inner: RedisStore
  private options: Options | undefined
  private initialised: Promise<void> | null = null

  constructor(private readonly make: () => RedisStore) {
    this.inner = make()
  }

  get prefix() {
    return this.inner.prefix
  }

  init(options: Options): void {
    this.options = options
    this.initialised = this.inner.init(options)
    this.initialised.catch(() => (this.initialised = null))
  }

  private async ready(): Promise<RedisStore> {
    if (!this.initialised && this.options) {
      this.inner = this.make()
      this.init(this.options)
    }
    await within(this.initialised!, 'loading the limiter scripts')
    return this.inner
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    const info = await within((await this.ready()).get(key), 'get')
    // a key Redis does not hold comes back as a nil count (ioredis: null → NaN): no hits yet
    return info && Number.isFinite(info.totalHits) ? info : undefined
  }

  async increment(key: string): Promise<IncrementResponse> {
    return within((await this.ready()).increment(key), 'increment')
  }

  async decrement(key: string): Promise<void> {
    await within((await this.ready()).decrement(key), 'decrement')
  }

  async resetKey(key: string): Promise<void> {
    await within((await this.ready()).resetKey(key), 'reset')
  }
}

export function redisLimitStores(url: string, logger: Logger, namespace: string): LimitStores {
  const client = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 1, connectTimeout: 2000, retryStrategy: (n) => Math.min(n * 200, 2000) })
  let warned = false
  client.on('error', (err) => {
    if (!warned) logger.warn({ err }, 'redis unreachable: rate limits are not enforced until it answers')
    warned = true
  })
  client.on('ready', () => {
    if (warned) logger.info('redis is back: shared rate limits enforced again')
    warned = false
  })
  const send = (command: string, ...args: string[]) => client.call(command, ...args) as Promise<RedisReply>
  return {
    store: (prefix) => new BoundedRedisStore(() => new RedisStore({ sendCommand: send, prefix: `${namespace}:${prefix}` })),
    streams: redisStreamSlots(client, namespace),
    connected: () => client.status === 'ready',
    async close() {
      await client.quit().catch(() => client.disconnect())
    },
  }
}

// Both sets of a stream are pruned of lapsed leases, counted and added to in one script, so nodes racing for the
// last slot cannot both take it. KEYS: the key's set, the account's set; ARGV: now, lease end, member, caps, lease.
const TAKE_SLOT = `
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local k = redis.call('ZCARD', KEYS[1])
if k >= tonumber(ARGV[4]) then return {1, k} end
local a = redis.call('ZCARD', KEYS[2])
if a >= tonumber(ARGV[5]) then return {2, a} end
for i = 1, 2 do
  redis.call('ZADD', KEYS[i], ARGV[2], ARGV[3])
  redis.call('PEXPIRE', KEYS[i], ARGV[6])
end
return {0, 0}`

function redisStreamSlots(client: Redis, namespace: string): SharedStreamSlots {
  // one hash slot per account ({…}), so the script's two keys live together on a Redis Cluster too
  const sets = (s: StreamSlot) => [`${namespace}:streams:{${s.accountId}}:key:${s.keyId}`, `${namespace}:streams:{${s.accountId}}:account`] as const
  return {
    async take(slot, perKey, perAccount, leaseMs) {
      const now = Date.now()
      const [code, open] = await within(client.eval(TAKE_SLOT, 2, ...sets(slot), now, now + leaseMs, slot.member, perKey, perAccount, leaseMs) as Promise<[number, number]>, 'take a stream slot')
      return code === 0 ? null : { scope: code === 1 ? 'key' : 'account', open }
    },
    async renew(slots, leaseMs) {
      if (!slots.length) return
      const until = Date.now() + leaseMs
      const batch = client.pipeline()
      // re-added if missing (Redis restarted, or the take timed out before it got there): the sets say what is open
      for (const s of slots)
        for (const set of sets(s)) {
          batch.zadd(set, until, s.member)
          batch.pexpire(set, leaseMs)
        }
      await within(batch.exec(), 'renew stream slots')
    },
    async give(slot) {
      const batch = client.pipeline()
      for (const set of sets(slot)) batch.zrem(set, slot.member)
      await within(batch.exec(), 'give a stream slot back')
    },
  }
}
