// Starts the configured market source and keeps the pipeline flowing: the simulator (default: a live feed
// plus a newest-first backfill), live connectors, or a recording replayed through the live connectors; one ingest
// pipeline flushed on a timer.
import type { Services } from '../services.js'
import { runBackfill, type BackfillProgress } from '../ingest/backfill.js'
import type { ExchangeConnector } from './connectors/index.js'
import type { ConnectorOptions } from './connectors/connector-options.js'
import { chooseSource, type SourceChoice } from './source-choice.js'
import type { ProbeResult } from './connectors/probe.js'
import type { MarketEvent } from '../domain/events.js'
import { DEFAULT_COINS } from '../domain/coins.js'
import { Ingest } from '../ingest/ingest.js'
import { MINUTE_MS } from '../domain/time.js'
import { readResumablePartials } from '../store/market/partial-minutes.js'
import { MarketSimulator } from './simulator/index.js'
import { WorkerHistory } from './simulator/worker-history.js'
import { DATA_TICK_MS } from '../read/state.js'
import type { ReplayPlayer } from './replay/player.js'
import { startTierRefresh } from '../read/tiers/refresh.js'
import { floorTo } from '../domain/time.js'
import { EXCHANGE_IDS, type ExchangeId } from '../domain/exchanges.js'
import { followUniverse, registerListedCoins, startCoins } from './universe/follow.js'
import type { Schedule, UniverseRefresh } from './universe/refresh.js'
import { busPublisher } from '../ingest/bus/publisher.js'
import type { WriterLeases } from '../ingest/writer-lease.js'
import type { HistoryService, HistoryServiceOptions } from './history/service.js'
import type { VenueBudget } from './history/budget.js'

export interface MarketRuntime {
  ingest: Ingest
  /** resolves when the backfill is done (at once without one) */
  backfill: Promise<void>
  /** MARKET_SOURCE=replay:<file>: the player (its clock, stats, and pump() for tests that drive the clock) */
  replay: ReplayPlayer | null
  /** the time minutes close on: the wall clock, or the replay's warped clock */
  now(): number
  /** on PostgreSQL: the writer leases (which venues this process writes), null on the embedded store */
  leases: WriterLeases | null
  /** live venues: their REST history (backfill, gap repair, budgets); a replay: the recorded history's; null otherwise or until it starts */
  readonly history: HistoryService | null
  /** the source that runs and why (MARKET_SOURCE=auto decides at start): the start banner says it */
  choice: SourceChoice
  /** COINS=all with live venues: the daily refresh of the universe */
  universe: UniverseRefresh | null
  /** stop sources, finish the backfill chunk in hand, write everything pending */
  stop(): Promise<void>
}

const FLUSH_EVERY_MS = DATA_TICK_MS
/** the simulator's live feed replays a partial minute this recent (older ones: the backfill's bars complete them) */
const SIM_REPLAY_MS = 5 * MINUTE_MS

export async function startMarketRuntime(
  services: Services,
  opts: {
    onProgress?: (p: BackfillProgress) => void
    onEvent?: (e: MarketEvent) => void
    backfillDays?: number
    /** replay only: extra options for the replayed connectors (tests poll faster than the real intervals) */
    replayConnectorOptions?: Partial<ConnectorOptions>
    /** live only: tests shorten the gap repair's delays and pick the history's concurrency */
    history?: Pick<HistoryServiceOptions, 'repairDelayMs' | 'outageCheckMs' | 'concurrency'>
    /** live only: extra options for the connectors (tests against venue doubles poll faster) */
    liveConnectorOptions?: Partial<ConnectorOptions>
    /** MARKET_SOURCE=auto: how the venues are asked (default: each venue's public REST, src/sources/connectors/probe.ts) */
    probe?: () => Promise<ProbeResult[]>
    /** live only: extra options per venue's connector (tests inject offline CCXT instances) */
    connectorOptions?: (exchange: ExchangeId) => Partial<ConnectorOptions>
    /** COINS=all: the timer of the daily refresh (tests drive it) */
    universeSchedule?: Schedule
  } = {},
): Promise<MarketRuntime> {
  const { config, db, market, logger, clock, bus } = services
  const probe = opts.probe ?? (async () => (await import('./connectors/probe.js')).probeVenues({ access: config.venueAccess }))
  const choice = await chooseSource({ config, db, now: clock, probe })
  market.sourceChoice = choice
  if (choice.source.kind !== 'none') market.storeKind = choice.source.kind
  logger.info({ source: choice.source, reason: choice.reason }, 'market source')
  const source = choice.source
  // on PostgreSQL another process may ingest the same venues: one writer per venue (writer-lease.ts)
  const venues = source.kind === 'live' ? source.exchanges : source.kind === 'none' ? [] : [...EXCHANGE_IDS]
  let startBackfill = () => {}
  // (loaded only there: the embedded store's start does not load the PostgreSQL client)
  const leases =
    config.store.kind === 'postgres' && venues.length
      ? new (await import('../ingest/writer-lease.js')).WriterLeases({ url: config.store.url, sql: db.sql, venues, tasks: ['backfill'], pollMs: config.LEASE_POLL_MS, logger, clock, onAcquire: (n) => n === 'backfill' && startBackfill() })
      : null
  const publish = bus ? busPublisher(bus, market, (e) => !leases || leases.holds(e), () => (leases ? leases.writing() : [...market.enabled])) : null
  const ingest = new Ingest({ db, market, logger, tradeSource: source.kind === 'simulator' ? 'simulated' : 'trades', onEvent: opts.onEvent, cacheHours: true, gate: leases ?? undefined, onLive: publish?.live, onWritten: publish?.written })
  // The simulator replays: its live feed starts at the start of the minute it comes up in, so that minute is whole,
  // and at the start of a recent minute a shutdown left partial, so that minute and those since are completed
  // (trades already stored are skipped). Live venues cannot replay: their cut minutes keep or get a mark.
  const startedAt = clock()
  const recent = source.kind === 'simulator' ? (await readResumablePartials(db.sql)).filter((p) => p.coveredTo >= startedAt - SIM_REPLAY_MS && p.coveredTo < startedAt) : []
  const liveFrom = floorTo(Math.min(startedAt, ...recent.map((p) => p.coveredTo + 1)), MINUTE_MS)
  await ingest.resume(source.kind === 'simulator' ? { replayFrom: liveFrom } : null)

  let simulator: MarketSimulator | null = null
  let replay: ReplayPlayer | null = null
  const connectors: ExchangeConnector[] = []
  let stopping = false
  let backfill: Promise<void> = Promise.resolve()
  let history: HistoryService | null = null
  let universe: UniverseRefresh | null = null
  await registerListedCoins(db, market, config.COINS)

  if (source.kind === 'simulator') {
    // the simulated universe: SIM_COINS, else a COINS list, else the default coins (COINS=all needs the venues' lists);
    // imported coins have only their imported history
    if (config.COINS === 'all') logger.warn('COINS=all takes the venues\' market lists, which the simulator has not: it simulates the default coins')
    simulator = new MarketSimulator({ seed: config.SIM_SEED, coins: config.SIM_COINS.length ? config.SIM_COINS : Array.isArray(config.COINS) ? config.COINS : DEFAULT_COINS })
    for (const e of ['binance', 'bybit', 'okx', 'hyperliquid', 'dydx'] as const) market.enabled.add(e)
    // the backfill ends where the live feed begins
    const now = liveFrom
    simulator.live(ingest, { now: clock, fromTs: liveFrom, catchUpTo: startedAt })
    const days = opts.backfillDays ?? config.BACKFILL_DAYS
    if (days > 0) {
      // simulated on a worker thread, ahead of the hour being written (src/sources/simulator/worker-history.ts)
      const history = new WorkerHistory({ seed: config.SIM_SEED, coins: simulator.coins, logger })
      // one process backfills (the holder of the backfill lease; a standby takes over what is left if it dies), from a
      // later turn of the event loop: the HTTP server starts listening first (the backfill is background work). The
      // runtime's `backfill` is the whole of it, that turn included, from the moment it is started.
      startBackfill = () =>
        void (backfill = new Promise((r) => setImmediate(r))
          .then(() => (stopping ? null : runBackfill({ db, market, source: history, sourceName: `simulator:${config.SIM_SEED}`, now, days, logger, onProgress: opts.onProgress, aborted: () => stopping, onWritten: publish?.written })))
          .then((r) => void (r && logger.info({ chunks: r.chunks, bars: r.bars }, 'backfill done')))
          .catch((err: unknown) => logger.error({ err }, 'backfill failed'))
          .finally(() => history.close()))
      if (!leases) startBackfill()
    }
  } else if (source.kind === 'replay') {
    // no simulator: the recording is the only data (its REST history too, when it carries some)
    const { ReplayPlayer } = await import('./replay/player.js')
    replay = await ReplayPlayer.open({
      file: source.file,
      market,
      sink: ingest,
      logger: logger.child({ source: 'replay' }),
      wall: clock,
      coins: market.coins(),
      speed: config.REPLAY_SPEED,
      loop: config.REPLAY_LOOP,
      maxGapMs: config.REPLAY_MAX_GAP_MS,
      connectorOptions: opts.replayConnectorOptions,
    })
    replay.start()
    if (replay.recording.history.length) {
      // the recording carries REST history: its backfill replays through the same history service as live
      const { startReplayHistory } = await import('./replay/history-replay.js')
      const player = replay
      startBackfill = () => {
        if (stopping || history) return
        history = startReplayHistory({ player, db, market, logger: logger.child({ source: 'replay' }), onWritten: publish?.written, onHoursWritten: () => ingest.forgetHours(), concurrency: opts.history?.concurrency })
        if (history) backfill = history.idle().catch((err: unknown) => logger.error({ err }, 'replayed history backfill failed'))
      }
      if (!leases) startBackfill()
    }
  } else if (source.kind === 'live') {
    // CCXT is loaded only when live connectors are configured
    const { createConnector } = await import('./connectors/index.js')
    const { budgetConnectors, drawFromVenueBudget, startHistory } = await import('./history/service.js')
    const { refusalReason } = await import('./connectors/venue-access.js')
    const { plannedIntervals } = await import('./connectors/poll-cost.js')
    // every REST call of a venue draws from one budget (live polls first, then gap repair, then backfill): connectors
    // made later (the universe changed) draw from the same one
    let budgets: Map<ExchangeId, VenueBudget> | null = null
    // the polls of a venue whose limits the coins would exceed are slowed to fit (nothing changes for the default 12)
    const create = (exchange: ExchangeId, coins: string[], listOnly = false) => {
      const c = createConnector(exchange, {
        pollIntervalMs: plannedIntervals(exchange, coins.length),
        ...opts.connectorOptions?.(exchange),
        coins,
        sink: ingest,
        logger: logger.child({ exchange }),
        access: config.venueAccess[exchange],
        // a venue refusing us (451, 403) is that venue's error, on /v1/markets/exchanges; the others keep running
        onRefusal: (r) => (r ? market.refuse(exchange, refusalReason(exchange, r)) : market.clearRefusal(exchange)),
        ...opts.liveConnectorOptions,
        ...(listOnly ? { marketTypes: ['perp'] as const } : {}),
      })
      const budget = budgets?.get(exchange)
      if (budget) drawFromVenueBudget(c, budget)
      return c
    }
    universe = config.COINS === 'all' ? followUniverse({ db, market, logger, now: clock, connectors, create, schedule: opts.universeSchedule }) : null
    const coins = await startCoins(config, market, universe)
    for (const exchange of source.exchanges) {
      market.enabled.add(exchange)
      const c = create(exchange, coins)
      connectors.push(c)
    }
    // every REST call of a venue draws from one budget: live polls first, then gap repair, then backfill
    budgets = budgetConnectors(connectors)
    const venueBudgets = budgets
    for (const c of connectors) c.start()
    const days = opts.backfillDays ?? config.BACKFILL_DAYS
    // the venues' own history, newest first, resumed where a previous run stopped (one process: the backfill lease's holder)
    startBackfill = () => {
      if (stopping || history) return
      history = startHistory({ connectors, budgets: venueBudgets, db, market, days, now: clock, logger, onWritten: publish?.written, onHoursWritten: () => ingest.forgetHours(), ...opts.history })
      backfill = history.idle().catch((err: unknown) => logger.error({ err }, 'history backfill failed'))
    }
    if (!leases) startBackfill()
    // the first refresh in the background: the connectors start on the stored universe and take up the new one
    universe?.start().catch((err: unknown) => logger.error({ err }, 'universe refresh failed'))
  }
  await leases?.start()
  const stopTiers = startTierRefresh(connectors, market.tiers, { now: clock, warn: (o, m) => logger.warn(o, m) })

  const now = () => (replay ? replay.warpedNow() : clock())
  let ticks = 0
  const timer = setInterval(() => {
    ingest.advance(now())
    ingest.flush().catch((err: unknown) => logger.warn({ err }, 'market flush failed; will retry'))
    market.persist().catch(() => {})
    publish?.status()
    // coins imported by another process become valid parameters here too
    if (++ticks % 15 === 0) market.refreshCoins().catch(() => {})
  }, FLUSH_EVERY_MS)
  timer.unref()

  return {
    ingest,
    get backfill() {
      return backfill
    },
    replay,
    now,
    leases,
    get history() {
      return history
    },
    choice,
    get universe() {
      return universe
    },
    async stop() {
      stopping = true
      clearInterval(timer)
      stopTiers()
      simulator?.stop()
      await history?.stop()
      await universe?.stop()
      await replay?.stop()
      await Promise.all(connectors.map((c) => c.stop()))
      await backfill
      try {
        await ingest.flush({ final: true })
        await market.persist().catch(() => {})
      } finally {
        // after the last write (or the attempt): the standby takes over from what is stored
        await leases?.stop()
      }
    },
  }
}
