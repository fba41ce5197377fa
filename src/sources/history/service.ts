// The history of the live venues (MARKET_SOURCE=live or a list of venues): one budget per venue that its
// connector's REST polls draw from (set before the connectors start), one runner per venue with a history fetcher
// (backfill of BACKFILL_DAYS, resumed from history_progress, holes asked again), gap repair after every outage of a
// venue's feed, and the progress for /healthz, /readyz and the coverage of figures (market.backfill, market.historyHoles).
import type { Logger } from 'pino'
import type { Database } from '../../store/database.js'
import type { ExchangeId } from '../../domain/exchanges.js'
import type { MarketState } from '../../read/state.js'
import type { Written } from '../../ingest/ingest.js'
import type { ExchangeConnector } from '../connectors/connector.js'
import { sleep } from '../connectors/backoff.js'
import { VenueBudget } from './budget.js'
import { drawFromBudget } from './ccxt-budget.js'
import { watchOutages } from './outages.js'
import { HistoryRunner, type PayingVenueHistory } from './runner.js'
import { readHoles } from '../../store/market/history.js'
import { historySetup } from './venues.js'
import { HISTORY_KINDS } from '../../domain/venue-history.js'

/** Before the connectors start: every REST call of theirs draws from its venue's budget (live priority). */
export function budgetConnectors(connectors: readonly ExchangeConnector[], now: () => number = Date.now): Map<ExchangeId, VenueBudget> {
  const budgets = new Map<ExchangeId, VenueBudget>()
  for (const c of connectors) {
    const setup = historySetup(c.exchange)
    if (!setup) continue
    const budget = new VenueBudget(setup.limits, now)
    budgets.set(c.exchange, budget)
    drawFromVenueBudget(c, budget)
  }
  return budgets
}

/** a connector's CCXT instances draw every REST call from its venue's budget (one made later joins the same budget) */
export function drawFromVenueBudget(c: ExchangeConnector, budget: VenueBudget): void {
  const setup = historySetup(c.exchange)
  if (!setup) return
  for (const t of ['perp', 'spot'] as const) {
    const ex = c.exchangeFor(t)
    if (ex) drawFromBudget(ex, budget, setup.price, setup.stop)
  }
}

export interface HistoryServiceOptions {
  connectors: readonly ExchangeConnector[]
  budgets: ReadonlyMap<ExchangeId, VenueBudget>
  db: Database
  market: MarketState
  days: number
  now: () => number
  logger?: Logger
  onWritten?: (w: Written) => void
  /** history wrote minutes: the live writer's in-memory hours are read back */
  onHoursWritten?: () => void
  /** how long after a feed recovers its gap is repaired (default 90 s) */
  repairDelayMs?: number
  /** how often feed health is read for outages (default 5 s) */
  outageCheckMs?: number
  concurrency?: number
  /** a venue's own clock (a replay: each venue's history plans on the moment its recorded one did); default `now` */
  clockFor?: (venue: ExchangeId) => (() => number) | undefined
  /** a venue's history fetcher (a replay wraps the venue's own one); default the venue's setup */
  makeHistory?: (c: ExchangeConnector, now: () => number) => PayingVenueHistory
  /** gap repair after the venue's feed outages (default true; a replay has none: its gaps are the recording's) */
  repairOutages?: boolean
  /** a runner planned its window (a recording writes it down) */
  onStarted?: (venue: ExchangeId, started: { now: number; from: number; to: number }) => void
}

export interface HistoryService {
  runners: ReadonlyMap<ExchangeId, HistoryRunner>
  /** resolves when every runner has started and has nothing left to do (tests, the bench) */
  idle(): Promise<void>
  stop(): Promise<void>
}

export function startHistory(o: HistoryServiceOptions): HistoryService {
  const runners = new Map<ExchangeId, HistoryRunner>()
  const controller = new AbortController()
  const stops: (() => void)[] = []
  let holesDue: ReturnType<typeof setTimeout> | null = null
  const refreshHoles = () => {
    if (holesDue) return
    holesDue = setTimeout(() => {
      holesDue = null
      readHoles(o.db.sql)
        .then((h) => (o.market.historyHoles = h))
        .catch((err: unknown) => o.logger?.warn({ err }, 'history holes unreadable'))
    }, 200)
    holesDue.unref?.()
  }
  refreshHoles()
  const started: Promise<void>[] = []
  for (const c of o.connectors) {
    const setup = historySetup(c.exchange)
    const budget = o.budgets.get(c.exchange)
    if (!setup || !budget || o.days <= 0) continue
    const now = o.clockFor?.(c.exchange) ?? o.now
    const runner = new HistoryRunner({
      venue: (o.makeHistory ?? setup.history)(c, now),
      budget,
      db: o.db,
      market: o.market,
      coins: () => o.market.coins(),
      days: o.days,
      now,
      logger: o.logger?.child({ exchange: c.exchange, task: 'history' }),
      concurrency: o.concurrency,
      onWritten: o.onWritten,
      onHoursWritten: o.onHoursWritten,
      onHoles: refreshHoles,
    })
    runners.set(c.exchange, runner)
    started.push(
      (async () => {
        // the fetcher needs the connector's markets (symbols, listing dates)
        while (!controller.signal.aborted && c.markets().length === 0) await sleep(250, controller.signal)
        if (controller.signal.aborted) return
        await runner.start()
        if (runner.started) o.onStarted?.(c.exchange, runner.started)
        if (o.repairOutages !== false) stops.push(watchOutages({ health: () => c.health(), now, repair: (from) => runner.repair(from, now()), delayMs: o.repairDelayMs, everyMs: o.outageCheckMs }))
      })().catch((err: unknown) => o.logger?.error({ err, exchange: c.exchange }, 'history failed to start')),
    )
  }
  const publish = () => {
    const all = [...runners.values()].filter((r) => r.state !== 'waiting').map((r) => r.completeness())
    if (!all.length) return
    const pages = [...runners.values()].flatMap((r) => r.status())
    o.market.backfill = {
      source: 'venues',
      windowFrom: Math.min(...all.map((a) => a.windowFrom)),
      windowTo: Math.max(...all.map((a) => a.windowTo)),
      completeFrom: Math.max(...all.map((a) => a.completeFrom)),
      chunks: pages.reduce((n, s) => n + s.pages_done + s.pages_remaining, 0),
      chunksDone: pages.reduce((n, s) => n + s.pages_done, 0),
      done: all.every((a) => a.done),
    }
  }
  const timer = setInterval(publish, 1000)
  timer.unref?.()
  if (runners.size) o.market.historyStatus = () => historyReport(runners, o.budgets, o.market)
  return {
    runners,
    async idle() {
      await Promise.all(started)
      await Promise.all([...runners.values()].map((r) => r.idle()))
      publish()
    },
    async stop() {
      controller.abort()
      clearInterval(timer)
      if (holesDue) clearTimeout(holesDue)
      for (const s of stops) s()
      await Promise.all(started)
      await Promise.all([...runners.values()].map((r) => r.stop()))
    },
  }
}

/** per venue: the runner's state, its budget, and per kind the pages done and left, the span covered, holes */
function historyReport(runners: ReadonlyMap<ExchangeId, HistoryRunner>, budgets: ReadonlyMap<ExchangeId, VenueBudget>, market: MarketState): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [venue, r] of runners) {
    const series = r.status()
    const kinds: Record<string, unknown> = {}
    for (const kind of HISTORY_KINDS) {
      const of = series.filter((s) => s.kind === kind)
      if (!of.length) continue
      const covered = of.filter((s) => s.covered_from !== null)
      const holes = market.historyHoles.filter((h) => h.exchange === venue && h.kind === kind)
      const cut = of.find((s) => s.exhausted)?.exhausted ?? null
      kinds[kind] = {
        coins: of.length,
        pages_done: of.reduce((n, s) => n + s.pages_done, 0),
        pages_remaining: of.reduce((n, s) => n + s.pages_remaining, 0),
        // the span every coin's series covers
        covered_from: covered.length === of.length ? Math.max(...covered.map((s) => s.covered_from!)) : null,
        covered_to: covered.length === of.length ? Math.min(...covered.map((s) => s.covered_to!)) : null,
        ends: cut && { reason: cut.reason, before: cut.ts },
        holes: holes.length,
        hole_ms: holes.reduce((n, h) => n + (h.to - h.from), 0),
      }
    }
    const b = budgets.get(venue)?.stats()
    out[venue] = { state: r.state, refused: r.refusal, pages_fetched: r.fetched, budget: b && { pools: b.pools, waits: b.waits, paused_until: b.paused_until, rate_limited: b.rate_limited, bans: b.bans }, kinds }
  }
  return out
}
