// COINS=all: the universe refreshed from the venues' market lists at start and then daily. Each refresh loads the
// five lists at once; a venue whose list fails keeps the coins it listed when last seen (so a venue that does not
// answer delists nothing), and a refresh that loaded no list at all changes nothing and is tried again in an hour.
import type { MarketInterface } from 'ccxt'
import { EXCHANGE_IDS, type ExchangeId } from '../../domain/exchanges.js'
import type { Database } from '../../store/database.js'
import { universeOf, type ExcludedMarket } from './universe.js'
import { readUniverse, writeUniverse, type UniverseChange } from './store.js'

export const UNIVERSE_REFRESH_MS = 24 * 3_600_000
export const UNIVERSE_RETRY_MS = 3_600_000

/** a timer: calls `fn` once after `ms`; returns its cancel (injectable: tests drive the refresh with their own clock) */
export type Schedule = (fn: () => void, ms: number) => () => void

const realSchedule: Schedule = (fn, ms) => {
  const t = setTimeout(fn, ms)
  t.unref()
  return () => clearTimeout(t)
}

interface Logger {
  info(obj: object, msg?: string): void
  warn(obj: object, msg?: string): void
}

export interface UniverseRefreshOptions {
  db: Database
  /** each venue's perp markets, loaded again from the venue (ExchangeConnector.listedPerps) */
  lists: Record<ExchangeId, () => Promise<MarketInterface[]>>
  /** the coins to follow changed (after the store has them): the connectors take them up */
  onCoins: (coins: string[], change: UniverseChange) => void | Promise<void>
  /** after a refresh that changed the coin table (state.refreshCoins) */
  onWritten?: () => void | Promise<void>
  now: () => number
  schedule?: Schedule
  logger: Logger
}

export interface RefreshResult {
  change: UniverseChange | null
  /** venues whose list failed, with why */
  failed: Partial<Record<ExchangeId, string>>
  excluded: ExcludedMarket[]
}

export class UniverseRefresh {
  private cancel: (() => void) | null = null
  private stopped = false
  private running: Promise<RefreshResult> | null = null
  /** the coins last handed to onCoins */
  private following: string | null = null
  /** the multiplier and oddly named markets left out at the last refresh */
  excluded: ExcludedMarket[] = []
  lastRefreshAt: number | null = null

  constructor(private readonly opts: UniverseRefreshOptions) {}

  /** the universe as stored (listed coins), for the connectors to start with before the first refresh lands */
  async stored(): Promise<string[]> {
    return (await readUniverse(this.opts.db)).filter((c) => c.delistedAt === null && c.venues.length > 0).map((c) => c.coin)
  }

  /** refreshes now, then every UNIVERSE_REFRESH_MS (UNIVERSE_RETRY_MS after a refresh that loaded no list or failed) */
  start(): Promise<RefreshResult> {
    return this.tick()
  }

  /** no more refreshes; resolves when the one under way (and its hand-over to the connectors) is done */
  async stop(): Promise<void> {
    this.stopped = true
    this.cancel?.()
    this.cancel = null
    await this.running?.catch(() => {})
  }

  get isStopped(): boolean {
    return this.stopped
  }

  private async tick(): Promise<RefreshResult> {
    let r: RefreshResult | undefined
    try {
      r = await this.refresh()
      return r
    } finally {
      // the next refresh is scheduled whatever this one did: a day after a change, an hour after a refresh that loaded
      // no list or failed (the store unreachable, say), so a fault is retried without a restart
      if (!this.stopped) {
        const ms = r?.change ? UNIVERSE_REFRESH_MS : UNIVERSE_RETRY_MS
        this.cancel = (this.opts.schedule ?? realSchedule)(
          () => void this.tick().catch((err: unknown) => this.opts.logger.warn({ err, retryInMs: UNIVERSE_RETRY_MS }, 'universe: the scheduled refresh failed; retrying')),
          ms,
        )
      }
    }
  }

  /** one refresh (concurrent calls share it) */
  refresh(): Promise<RefreshResult> {
    this.running ??= this.run().finally(() => (this.running = null))
    return this.running
  }

  private async run(): Promise<RefreshResult> {
    const { db, logger } = this.opts
    const settled = await Promise.allSettled(EXCHANGE_IDS.map((e) => this.opts.lists[e]()))
    const lists: Partial<Record<ExchangeId, MarketInterface[]>> = {}
    const failed: Partial<Record<ExchangeId, string>> = {}
    settled.forEach((s, i) => {
      const e = EXCHANGE_IDS[i]!
      if (s.status === 'fulfilled') lists[e] = s.value
      else failed[e] = s.reason instanceof Error ? s.reason.message : String(s.reason)
    })
    if (Object.keys(lists).length === 0) {
      logger.warn({ failed }, 'universe: no venue market list could be loaded; the stored universe stays, retrying in an hour')
      return { change: null, failed, excluded: this.excluded }
    }
    // a venue whose list failed keeps the coins it listed at the last refresh
    const stored = await readUniverse(db)
    const fallback: Partial<Record<ExchangeId, Set<string>>> = {}
    for (const e of Object.keys(failed) as ExchangeId[]) fallback[e] = new Set(stored.filter((c) => c.venues.includes(e)).map((c) => c.coin))
    const u = universeOf(lists, { fallback })
    const now = this.opts.now()
    const change = await writeUniverse(db, u, now)
    this.excluded = u.excluded
    this.lastRefreshAt = now
    await this.opts.onWritten?.()
    logger.info({ coins: change.coins.length, added: change.added, delisted: change.delisted, relisted: change.relisted, failed, excluded: u.excluded.length }, 'universe refreshed')
    const key = [...change.coins].sort().join(',')
    if (key !== this.following && !this.stopped) {
      this.following = key
      await this.opts.onCoins(change.coins, change)
    }
    return { change, failed, excluded: u.excluded }
  }
}
