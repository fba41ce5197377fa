// A recording session: the live connectors run as in production (all their loops), with a Recorder on their CCXT
// instances, for a set time; what they receive goes to a JSON-lines file. The events they emit are only counted.
// With backfillDays, the venues' history services run too, as MARKET_SOURCE=live runs them (budgets, planner,
// fetchers on the same CCXT instances), into a throwaway store: their REST pages are recorded like any answer.
import fs from 'node:fs'
import { chmod, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { once } from 'node:events'
import ccxt from 'ccxt'
import type { Logger } from 'pino'
import { createConnector, type ConnectorOptions, type ExchangeConnector } from '../connectors/index.js'
import type { EventSink, MarketEvent } from '../../domain/events.js'
import type { ExchangeId } from '../../domain/exchanges.js'
import type { Database } from '../../store/database.js'
import type { HistoryService } from '../history/service.js'
import { ccxtInstances, instanceList, type VenueInstances } from './instances.js'
import { Recorder, type RecorderStats } from './recorder.js'
import type { VenueAccess } from '../connectors/venue-access.js'

export interface RecordProgress {
  elapsedMs: number
  totalMs: number
  stats: RecorderStats
  /** normalized events the connectors emitted, per venue (what a service would have ingested) */
  events: Partial<Record<ExchangeId, number>>
  /** the history backfill's pages (absent without one) */
  history?: HistoryProgress
}

export interface HistoryProgress {
  pagesDone: number
  pagesLeft: number
  /** every venue with a history fetcher planned its window and fetched every page (or was refused) */
  done: boolean
}

export interface RecordOptions {
  exchanges: readonly ExchangeId[]
  coins: readonly string[]
  /** length of the session */
  minutes: number
  out: string
  logger: Logger
  onProgress?: (p: RecordProgress) => void
  progressEveryMs?: number
  /** the CCXT instances of a venue (default: new ccxt.pro instances, as the connectors make) */
  instances?: (venue: ExchangeId) => VenueInstances
  /** receive-time clock (default Date.now) */
  now?: () => number
  /** ends the session early (SIGINT, or a test) */
  stop?: Promise<unknown>
  connectorOptions?: Partial<ConnectorOptions>
  /** per venue: base-URL overrides, proxy, testnet (config.venueAccess), so a recording can be made through them */
  access?: Partial<Record<ExchangeId, VenueAccess>>
  /** days of REST history the venues' history services backfill during the session (default 0: none) */
  backfillDays?: number
  /** the store the history service plans and writes in, thrown away after (default: a new in-memory embedded store) */
  db?: Database
}

export interface RecordSummary {
  file: string
  elapsedMs: number
  stats: RecorderStats
  events: Partial<Record<ExchangeId, number>>
  history?: HistoryProgress
}

export async function recordSession(opts: RecordOptions): Promise<RecordSummary> {
  const now = opts.now ?? Date.now
  fs.mkdirSync(path.dirname(path.resolve(opts.out)), { recursive: true })
  const stream = fs.createWriteStream(opts.out, { encoding: 'utf8' })
  await once(stream, 'open')
  const recorder = new Recorder((text) => stream.write(text), now)
  recorder.meta([...opts.exchanges], opts.coins, (ccxt as unknown as { version?: string }).version)
  const events: Partial<Record<ExchangeId, number>> = {}
  const sink: EventSink = { emit: (e: MarketEvent) => void (events[e.exchange] = (events[e.exchange] ?? 0) + 1) }
  const connectors: ExchangeConnector[] = []
  for (const venue of opts.exchanges) {
    const instances = (opts.instances ?? ccxtInstances)(venue)
    for (const ex of instanceList(instances)) recorder.attach(venue, ex)
    connectors.push(
      createConnector(venue, {
        coins: [...opts.coins],
        sink,
        logger: opts.logger.child({ exchange: venue }),
        ccxtExchange: instances.perp,
        ccxtSpotExchange: instances.spot,
        access: opts.access?.[venue],
        // Binance without a spot instance here would make its own, which the recorder never saw: record perps only
        ...(instances.spot || venue !== 'binance' ? {} : { marketTypes: ['perp'] as const }),
        ...opts.connectorOptions,
      }),
    )
  }
  const days = opts.backfillDays ?? 0
  const history = days > 0 ? await startRecordedHistory(connectors, recorder, { ...opts, days, now }) : null
  const started = now()
  const totalMs = opts.minutes * 60_000
  const snapshot = (): RecordProgress => ({ elapsedMs: now() - started, totalMs, stats: recorder.stats, events, ...(history ? { history: historyProgress(history.service) } : {}) })
  const progress = () => opts.onProgress?.(snapshot())
  const ticker = setInterval(progress, opts.progressEveryMs ?? 1_000)
  let timer: NodeJS.Timeout | undefined
  let last: RecordProgress
  try {
    await Promise.all(connectors.map((c) => c.start()))
    await Promise.race([new Promise((r) => (timer = setTimeout(r, totalMs))), ...(opts.stop ? [opts.stop] : [])])
  } finally {
    clearTimeout(timer)
    clearInterval(ticker)
    // how far the history got, before stopping it (a stopped runner has nothing left to do)
    const pages = history && historyProgress(history.service)
    await history?.service.stop()
    await Promise.all(connectors.map((c) => c.stop()))
    last = { ...snapshot(), ...(pages ? { history: pages } : {}) }
    opts.onProgress?.(last)
    await history?.close()
    stream.end()
    await once(stream, 'finish')
  }
  return { file: opts.out, elapsedMs: last.elapsedMs, stats: recorder.stats, events, ...(last.history ? { history: last.history } : {}) }
}

/**
 * The venues' history services on the session's connectors, as the live runtime starts them (every REST call drawn
 * from the venue's budget, live polls first), in a throwaway store; each runner's plan becomes a `history` line.
 */
async function startRecordedHistory(
  connectors: readonly ExchangeConnector[],
  recorder: Recorder,
  o: { days: number; now: () => number; coins: readonly string[]; db?: Database; logger: Logger },
): Promise<{ service: HistoryService; close(): Promise<void> }> {
  const [{ budgetConnectors, startHistory }, { MarketState }, { openDatabase }] = await Promise.all([
    import('../history/service.js'),
    import('../../read/state.js'),
    import('../../store/database.js'),
  ])
  // a throwaway embedded store in a temporary directory, removed on close
  const tmp = o.db ? null : await mkdtemp(path.join(tmpdir(), 'record-history-'))
  // as root the embedded PostgreSQL runs as the OS user postgres, which must reach the directory (mkdtemp: 0700)
  if (tmp) await chmod(tmp, 0o755)
  const db = o.db ?? (await openDatabase({ kind: 'embedded', engine: 'postgres', dataDir: tmp! }))
  // the runner plans the store's coins: the ones recorded
  await db.prisma.coin.createMany({ data: o.coins.map((symbol) => ({ symbol, source: 'default' })), skipDuplicates: true })
  const market = new MarketState(db, o.now)
  await market.refreshCoins()
  const budgets = budgetConnectors(connectors, o.now)
  const service = startHistory({
    connectors,
    budgets,
    db,
    market,
    days: o.days,
    now: o.now,
    logger: o.logger.child({ task: 'history' }),
    onStarted: (venue, started) => recorder.history(venue, o.days, started),
  })
  return {
    service,
    async close() {
      if (o.db) return
      await db.close()
      await rm(tmp!, { recursive: true, force: true })
    },
  }
}

function historyProgress(service: HistoryService): HistoryProgress {
  const runners = [...service.runners.values()]
  const series = runners.flatMap((r) => r.status())
  const pagesLeft = series.reduce((n, s) => n + s.pages_remaining, 0)
  return {
    pagesDone: runners.reduce((n, r) => n + r.fetched, 0),
    pagesLeft,
    done: runners.every((r) => r.state === 'refused' || (r.state !== 'waiting' && r.completeness().done)),
  }
}
