// Rate-limit counters shared by every API node (REDIS_URL): express-rate-limit's stores backed by Redis
// (rate-limit-redis over ioredis), and the open streams per key and account (src/graphql/stream-slots.ts), behind a
// circuit. A Redis outage is noticed once — the connection closing, or
// one command left unanswered for COMMAND_TIMEOUT_MS (a Redis that hangs) — and from then on no request waits for
// Redis: each node counts on its own (express-rate-limit's MemoryStore, the limits then hold per node) until Redis
// answers a probe again. /readyz and the metrics say which counters a node uses.
import { Redis } from 'ioredis'
import { MemoryStore, type ClientRateLimitInfo, type IncrementResponse, type Options, type Store } from 'express-rate-limit'
import { RedisStore, type RedisReply } from 'rate-limit-redis'
import type { Logger } from 'pino'
import type { SharedStreamSlots, StreamSlot } from '../graphql/stream-slots.js'

/**
 * the most a request waits for Redis, paid only by the requests in flight when a Redis that hangs stops answering
 * (the default of REDIS_COMMAND_TIMEOUT_MS)
 */
export const COMMAND_TIMEOUT_MS = 200
/** while the circuit is open, Redis is asked (PING) this often whether it answers again */
export const PROBE_EVERY_MS = 1000

export interface LimitStoreState {
  /** the shared counters are in use (false: Redis is down and this node counts on its own) */
  connected: boolean
  /** Unix ms the outage was noticed, null while connected */
  downSince: number | null
  /** outages noticed since the start */
  outages: number
  /** counter calls answered by this node's own counters because Redis was down */
  localCalls: number
}

export interface LimitStores {
  /** a store whose keys start with `prefix` (one per limiter) */
  store(prefix: string): Store
  /** the open streams per key and account */
  streams: SharedStreamSlots
  connected(): boolean
  /** resolves once the shared counters answer, or after `ms` (a node starts counting on its own then) */
  ready?(ms: number): Promise<void>
  state(): LimitStoreState
  close(): Promise<void>
}

const down = new Error('redis: the circuit is open (Redis is down)')

/** whether Redis is used: closed on a probe answered, opened by a lost connection or a command that timed out */
class RedisCircuit {
  up = false
  downSince: number | null
  outages = 0
  localCalls = 0
  private probing: NodeJS.Timeout | null = null
  private stopped = false
  private stuck = 0
  private saidAtStart = false

  constructor(
    private readonly client: Redis,
    private readonly logger: Logger,
    private readonly clock: () => number,
  ) {
    this.downSince = clock()
    client.on('ready', () => void this.probe())
    client.on('close', () => this.open('the connection closed'))
    client.on('error', (err) => this.open('the connection failed', err))
    this.keepProbing()
  }

  open(why: string, err?: unknown): void {
    if (this.stopped) return
    if (!this.up) {
      // never reached yet (down at start): said once
      if (this.outages === 0 && !this.saidAtStart) this.logger.warn({ err, why }, 'redis unreachable: rate limits are counted per node until it answers')
      this.saidAtStart = true
      return
    }
    this.up = false
    this.downSince = this.clock()
    this.outages++
    this.logger.warn({ err, why }, 'redis unreachable: rate limits are counted per node until it answers')
    this.keepProbing()
  }

  private keepProbing(): void {
    if (this.probing || this.stopped) return
    this.probing = setInterval(() => void this.probe(), PROBE_EVERY_MS)
    this.probing.unref()
  }

  private async probe(): Promise<void> {
    if (this.up || this.stopped) return
    const status = this.client.status
    // a connection that opened but never got ready (a handshake left unanswered) is made again after a few probes
    this.stuck = status === 'connect' ? this.stuck + 1 : 0
    if (this.stuck >= 3) {
      this.stuck = 0
      return this.client.disconnect(true)
    }
    if (status !== 'ready') return
    try {
      await this.client.ping()
    } catch {
      // open but answering nothing (a Redis or a network that hangs): made again, the next probe tries the new one
      if (this.client.status === 'ready' && !this.up) this.client.disconnect(true)
      return
    }
    if (this.up || this.stopped) return
    const first = this.outages === 0
    this.up = true
    this.downSince = null
    if (this.probing) clearInterval(this.probing)
    this.probing = null
    if (!first || this.saidAtStart) this.logger.info('redis is back: shared rate limits enforced again')
  }

  /** a call to Redis while the circuit is closed; a timeout or a lost connection opens it */
  async run<T>(call: () => Promise<T>): Promise<T> {
    if (!this.up) throw down
    try {
      return await call()
    } catch (err) {
      // a reply Redis gave (a script error) says nothing about the connection
      if (!(err instanceof Error && /^(ERR|NOSCRIPT|WRONGTYPE)/.test(err.message))) this.open(err instanceof Error ? err.message : 'a command failed', err)
      throw err
    }
  }

  stop(): void {
    this.stopped = true
    if (this.probing) clearInterval(this.probing)
    this.probing = null
  }
}

/** a RedisStore used while the circuit is closed, this node's own MemoryStore while it is open */
class CircuitStore implements Store {
  private inner: RedisStore
  private readonly local = new MemoryStore()
  private options: Options | undefined
  private initialised: Promise<void> | null = null

  constructor(
    private readonly make: () => RedisStore,
    private readonly circuit: RedisCircuit,
  ) {
    this.inner = make()
  }

  get prefix() {
    return this.inner.prefix
  }

  init(options: Options): void {
    this.options = options
    this.local.init(options)
    if (this.circuit.up) this.load()
  }

  private load(): void {
    this.initialised = this.circuit.run(() => this.inner.init(this.options!))
    this.initialised.catch(() => (this.initialised = null))
  }

  /** Redis's store (its scripts loaded again after an outage), or null: use the local counters */
  private async shared(): Promise<RedisStore | null> {
    if (!this.circuit.up || !this.options) return null
    if (!this.initialised) {
      this.inner = this.make()
      this.load()
    }
    try {
      await this.initialised
      return this.inner
    } catch {
      return null
    }
  }

  /** on Redis when it is up; on this node's counters when it is down or fails now */
  private async either<T>(onRedis: (s: RedisStore) => Promise<T>, onLocal: () => Promise<T> | T): Promise<T> {
    const s = await this.shared()
    if (s) {
      try {
        return await this.circuit.run(() => onRedis(s))
      } catch {
        // counted here instead (the circuit is open now unless Redis answered with an error)
      }
    }
    this.circuit.localCalls++
    return onLocal()
  }

  async get(key: string): Promise<ClientRateLimitInfo | undefined> {
    // a key Redis does not hold comes back as a nil count (ioredis: null → NaN): no hits yet
    const info = await this.either((s) => s.get(key), () => this.local.get(key))
    return info && Number.isFinite(info.totalHits) ? info : undefined
  }

  increment(key: string): Promise<IncrementResponse> {
    return this.either((s) => s.increment(key), () => this.local.increment(key))
  }

  decrement(key: string): Promise<void> {
    return this.either((s) => s.decrement(key), () => this.local.decrement(key))
  }

  resetKey(key: string): Promise<void> {
    return this.either((s) => s.resetKey(key), () => this.local.resetKey(key))
  }

  shutdown(): void {
    this.local.shutdown()
  }
}

export function redisLimitStores(url: string, logger: Logger, namespace: string, clock: () => number = Date.now, commandTimeoutMs = COMMAND_TIMEOUT_MS): LimitStores {
  // no offline queue: a command while the connection is down fails at once instead of waiting for it to come back
  const client = new Redis(url, { lazyConnect: false, enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: commandTimeoutMs, connectTimeout: 2000, retryStrategy: (n) => Math.min(n * 200, 2000) })
  const circuit = new RedisCircuit(client, logger, clock)
  const send = (command: string, ...args: string[]) => client.call(command, ...args) as Promise<RedisReply>
  const stores: CircuitStore[] = []
  const state = (): LimitStoreState => ({ connected: circuit.up, downSince: circuit.downSince, outages: circuit.outages, localCalls: circuit.localCalls })
  return {
    store: (prefix) => {
      const s = new CircuitStore(() => new RedisStore({ sendCommand: send, prefix: `${namespace}:${prefix}` }), circuit)
      stores.push(s)
      return s
    },
    streams: redisStreamSlots(client, namespace),
    connected: () => circuit.up,
    ready: async (ms) => {
      for (const until = Date.now() + ms; !circuit.up && Date.now() < until; ) await new Promise((r) => setTimeout(r, 20))
    },
    state,
    async close() {
      circuit.stop()
      for (const s of stores) s.shutdown()
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
  // every command is bounded by the client's commandTimeout and fails at once while the connection is down (no offline queue)
  // one hash slot per account ({…}), so the script's two keys live together on a Redis Cluster too
  const sets = (s: StreamSlot) => [`${namespace}:streams:{${s.accountId}}:key:${s.keyId}`, `${namespace}:streams:{${s.accountId}}:account`] as const
  return {
    async take(slot, perKey, perAccount, leaseMs) {
      const now = Date.now()
      const [code, open] = (await client.eval(TAKE_SLOT, 2, ...sets(slot), now, now + leaseMs, slot.member, perKey, perAccount, leaseMs)) as [number, number]
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
      await batch.exec()
    },
    async give(slot) {
      const batch = client.pipeline()
      for (const set of sets(slot)) batch.zrem(set, slot.member)
      await batch.exec()
    },
  }
}
