// COINS: which coins the live connectors follow, and with COINS=all the daily refresh of the universe feeding them.
// A change of the universe reaches the running connectors without a restart of the process: each venue's connector
// is replaced by one following the new coins (its websockets reconnect; a few seconds of that venue's feed are
// missed, as after any reconnect). docs/connectors.md#the-universe
import type { Config } from '../../config.js'
import { EXCHANGE_IDS, type ExchangeId } from '../../domain/exchanges.js'
import type { Database } from '../../store/database.js'
import type { ExchangeConnector } from '../connectors/connector.js'
import { DEFAULT_COINS } from '../../domain/coins.js'
import type { MarketState } from '../../read/state.js'
import { UniverseRefresh, type Schedule } from './refresh.js'

interface Logger {
  info(obj: object, msg?: string): void
  warn(obj: object, msg?: string): void
}

/** COINS=<list>: its coins become known (valid parameters) before anything follows them */
export async function registerListedCoins(db: Database, market: MarketState, coins: Config['COINS']): Promise<void> {
  if (!Array.isArray(coins)) return
  await db.prisma.coin.createMany({ data: coins.map((symbol) => ({ symbol, source: 'config' })), skipDuplicates: true })
  await market.refreshCoins()
}

/** the coins a source follows at start: the list, the default universe (and imported coins), or the stored universe (COINS=all) */
export async function startCoins(config: Pick<Config, 'COINS'>, market: MarketState, refresh: UniverseRefresh | null): Promise<string[]> {
  if (Array.isArray(config.COINS)) return config.COINS
  if (refresh) {
    const stored = await refresh.stored()
    return stored.length ? stored : [...DEFAULT_COINS]
  }
  return [...market.listedCoins()]
}

export interface FollowOptions {
  db: Database
  market: MarketState
  logger: Logger
  now: () => number
  /** the running connectors, replaced in place when the coins change */
  connectors: ExchangeConnector[]
  /** a connector of `exchange` following `coins`; `listOnly`: one that is never started, to read the venue's market list */
  create: (exchange: ExchangeId, coins: string[], listOnly?: boolean) => ExchangeConnector
  schedule?: Schedule
}

/**
 * COINS=all: the refresh of the universe (every venue's list, whichever venues run here), whose changes replace the
 * running connectors by ones following the new coins. Started by the caller (`start()`, in the background).
 */
export function followUniverse(o: FollowOptions): UniverseRefresh {
  const listers = new Map<ExchangeId, ExchangeConnector>()
  const lister = (e: ExchangeId) => {
    // a venue that runs here lists through its own connector's instance (the same limits); others through one of their own
    const running = o.connectors.find((c) => c.exchange === e)
    if (running) return running
    let c = listers.get(e)
    if (!c) listers.set(e, (c = o.create(e, [], true)))
    return c
  }
  const refresh: UniverseRefresh = new UniverseRefresh({
    db: o.db,
    now: o.now,
    schedule: o.schedule,
    logger: o.logger,
    lists: Object.fromEntries(EXCHANGE_IDS.map((e) => [e, () => lister(e).listedPerps()])) as Record<ExchangeId, () => ReturnType<ExchangeConnector['listedPerps']>>,
    onWritten: () => o.market.refreshCoins(),
    onCoins: async (coins, change) => {
      o.logger.info({ coins: coins.length, added: change.added, delisted: change.delisted }, 'universe changed: the connectors follow the new coins')
      for (let i = 0; i < o.connectors.length && !refresh.isStopped; i++) {
        const old = o.connectors[i]!
        await old.stop()
        const next = o.create(old.exchange, coins)
        o.connectors[i] = next
        void next.start()
      }
    },
  })
  return refresh
}
