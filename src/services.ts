// The composition of long-lived services every request can reach (through its context).
import type { Logger } from 'pino'
import type { Config } from './config.js'
import type { Database } from './store/database.js'
import type { MarketState } from './market/state.js'
import type { AuthCache } from './accounts/auth-cache.js'
import type { ChargeBatcher } from './accounts/charge-batcher.js'

export interface Services {
  config: Config
  db: Database
  logger: Logger
  market: MarketState
  /** credit charges, group-committed */
  charges: ChargeBatcher
  /** short-lived key lookups for the metered analytics path */
  auth: AuthCache
  /** Unix ms; injectable so tests can pin time */
  clock: () => number
}
