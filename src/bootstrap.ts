// Building the services from configuration, shared by `npm start`, the CLIs and the tests.
import fs from 'node:fs/promises'
import path from 'node:path'
import { pino, type Logger } from 'pino'
import { signup } from './accounts/accounts.js'
import { AuthCache } from './accounts/auth-cache.js'
import { CreditLeases } from './accounts/credit-leases.js'
import type { Config } from './config.js'
import { StreamSlots } from './graphql/stream-slots.js'
import { HeavyCalls } from './graphql/heavy-calls.js'
import { AnalyticsPool } from './read/analytics-pool.js'
import { MarketState } from './read/state.js'
import type { Services } from './services.js'
import { cursorMac, cursorSecret } from './store/cursor-secret.js'
import { openDatabase, type Database } from './store/database.js'

export async function createServices(config: Config, opts: { logger?: Logger; clock?: () => number; db?: Database } = {}): Promise<Services> {
  const logger = opts.logger ?? pino({ level: config.LOG_LEVEL })
  const db = opts.db ?? (await openDatabase(config.store, { log: storeLog(logger) }))
  const clock = opts.clock ?? Date.now
  const market = new MarketState(db, clock)
  await market.load()
  logger.info({ from: market.seriesFrom }, market.seriesFrom === 'snapshot' ? 'hot series restored from the snapshot left at the last shutdown' : 'hot series loaded from the store')
  const cursors = cursorMac(await cursorSecret(config.CURSOR_SECRET, db.sql))
  const auth = new AuthCache(db.sql, clock)
  const charges = new CreditLeases(db.sql, {
    block: config.CREDIT_LEASE_BLOCK,
    durability: config.CREDIT_DURABILITY,
    flushMs: config.CREDIT_FLUSH_MS,
    timeoutMs: config.STORE_TIMEOUT_MS,
    // a key revoked on any node: its cached copies go, so its next call reads the store (and is refused)
    onRevoked: (ids) => ids.forEach((id) => auth.forgetKey(id)),
  })
  const services: Services = {
    config, db, logger, market, clock, cursorMac: cursors, charges, auth,
    // REDIS_URL's client is made later (startRole): looked up at each stream
    streams: new StreamSlots(config, () => services.limits?.streams ?? null, logger),
    heavy: new HeavyCalls(config),
    analytics: new AnalyticsPool(config.ANALYTICS_THREADS),
  }
  return services
}

/** the embedded store's messages (start, crash, restart) in the service's log */
const storeLog = (logger: Logger) => ({ info: (m: string) => logger.info(m), warn: (m: string) => logger.warn(m), error: (m: string) => logger.error(m) })

const DEMO_EMAIL = 'demo@example.com'

/**
 * When the store has no account yet, create the demo account and keep its key in DATA_DIR/demo-api-key
 * (the embedded store's own directory, never committed) so later starts can print it again.
 */
export async function ensureDemoAccount(services: Services): Promise<{ apiKey: string | null; created: boolean }> {
  const file = path.resolve(services.config.DATA_DIR, 'demo-api-key')
  if ((await services.db.prisma.account.count()) === 0) {
    // API nodes starting together on a new database race for it: the loser finds the account there
    const demo = await signup(services.db, DEMO_EMAIL, services.config.DEMO_CREDITS).catch(async (e: unknown) => {
      if ((await services.db.prisma.account.count()) > 0) return null
      throw e
    })
    if (!demo) return { apiKey: null, created: false }
    if (services.db.kind === 'embedded') {
      await fs.mkdir(path.dirname(file), { recursive: true })
      await fs.writeFile(file, `${demo.apiKey}\n`, { mode: 0o600 })
    }
    return { apiKey: demo.apiKey, created: true }
  }
  const saved = await fs.readFile(file, 'utf8').catch(() => null)
  return { apiKey: saved?.trim() || null, created: false }
}
