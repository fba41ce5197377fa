// The composition of long-lived services every request can reach (through its context).
import type { Logger } from 'pino'
import type { Config } from './config.js'
import type { Database } from './store/database.js'
import type { MarketState } from './read/state.js'
import type { AuthCache } from './accounts/auth-cache.js'
import type { CreditLeases } from './accounts/credit-leases.js'
import type { NatsBus } from './ingest/bus/nats-bus.js'
import type { LimitStores } from './rest/rate-limit-store.js'
import type { StreamSlots } from './graphql/stream-slots.js'
import type { HeavyCalls } from './graphql/heavy-calls.js'
import type { AnalyticsPool } from './read/analytics-pool.js'
import type { CursorMac } from './domain/cursor.js'

export interface Services {
  config: Config
  db: Database
  logger: Logger
  market: MarketState
  /** credit charges against this node's leases, written in batches (src/accounts/credit-leases.ts) */
  charges: CreditLeases
  /** short-lived key lookups for the metered analytics path */
  auth: AuthCache
  /** seals and opens paging cursors (src/store/cursor-secret.ts) */
  cursorMac: CursorMac
  /** Unix ms; injectable so tests can pin time */
  clock: () => number
  /** NATS_URL: the bus between ingest and API nodes (docs/operations.md, "Deployment") */
  bus?: NatsBus | null
  /** REDIS_URL: rate-limit and auth-failure counters shared by every API node */
  limits?: LimitStores | null
  /** open push streams per key and account (shared through `limits` when there is Redis) */
  streams: StreamSlots
  /** the queues heavy calls wait in, per key and per node (docs/operations.md#heavy-calls) */
  heavy: HeavyCalls
  /** worker threads for CPU-heavy analytics (ANALYTICS_THREADS) */
  analytics: AnalyticsPool
  /** ingest on PostgreSQL: the venues whose writer lease this node holds (null: no leases, e.g. an API node) */
  writing?: (() => readonly string[]) | null
}
