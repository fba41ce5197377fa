// Runs one venue's history: the planner's pages, newest first across coins (repair before backfill), each asked
// once, paid from the venue budget, narrowed first to what the store lacks (a resumed or repaired series asks for
// nothing it holds), written through the ingest pipeline, its holes recorded, and the series' progress stored after
// every page so a restart resumes where this one stopped. Gap repair adds spans (an outage, the holes found before)
// at repair priority.
import { setMaxListeners } from 'node:events'
import { Heap } from 'heap-js'
import type { Logger } from 'pino'
import type { Database } from '../../store/database.js'
import { MINUTE_MS, floorTo } from '../../domain/time.js'
import type { MarketState } from '../../read/state.js'
import type { Written } from '../../ingest/ingest.js'
import { backoffDelay, sleep } from '../connectors/backoff.js'
import { BudgetAbortedError, type Draw, type VenueBudget } from './budget.js'
import { extendCovered, missingSpan, pagesOf, planSeries } from './planner.js'
import { STEP_MS, pageHoles, storedView, writePage } from './page-writer.js'
import { publishedPositioningKinds } from '../connectors/positioning.js'
import { readHoles, readProgress, replaceHoles, seriesKey, writeProgress, type SeriesProgress } from '../../store/market/history.js'
import { VenueHttpError, kindMarketType, type ExhaustedReason, type HistoryKind, type HistoryPage, type HistoryRequest, type VenueHistory } from '../../domain/venue-history.js'

/** a venue whose fetch can ask the budget for the extra calls a page needs (Binance's listing probe, fundingInfo) */
export type PayingVenueHistory = VenueHistory & { fetch(req: HistoryRequest, signal: AbortSignal, pay?: (d: Draw[]) => Promise<void>): Promise<HistoryPage> }

export interface RunnerOptions {
  venue: PayingVenueHistory
  budget: VenueBudget
  db: Database
  market: MarketState
  coins: () => readonly string[]
  days: number
  now: () => number
  logger?: Logger
  /** pages in flight at once (the budget decides the pace) */
  concurrency?: number
  /** failed attempts of a page (not counting rate limits) before its span is recorded as a hole */
  maxAttempts?: number
  /** after every write (the bus publisher) */
  onWritten?: (w: Written) => void
  /** history wrote minutes of these hours: a live writer that keeps hours in memory reads them back */
  onHoursWritten?: (from: number) => void
  /** holes changed (coverage reads them from the market state) */
  onHoles?: () => void
}

interface SeriesRun {
  coin: string
  kind: HistoryKind
  start: number
  covered: { from: number; to: number }
  done: { from: number; to: number }[]
  exhausted: { ts: number; reason: ExhaustedReason } | null
  pages: number
  queued: number
  inFlight: number
  bars: number
  events: number
}

interface Job {
  s: SeriesRun
  from: number
  to: number
  priority: 'repair' | 'backfill'
  attempts: number
}

export interface SeriesStatus {
  coin: string
  kind: HistoryKind
  covered_from: number | null
  covered_to: number | null
  exhausted: { ts: number; reason: ExhaustedReason } | null
  pages_done: number
  pages_remaining: number
}

export class HistoryRunner {
  private readonly series = new Map<string, SeriesRun>()
  private readonly queue = new Heap<Job>((a, b) => (a.priority === b.priority ? b.to - a.to : a.priority === 'repair' ? -1 : 1))
  private readonly controller = new AbortController()
  /** idle workers waiting for a page */
  private sleepers: (() => void)[] = []
  private workers: Promise<void>[] = []
  private window = { start: 0, end: 0 }
  state: 'waiting' | 'running' | 'idle' | 'refused' | 'stopped' = 'waiting'
  refusal: string | null = null
  /** pages fetched by this process */
  fetched = 0
  /** the clock when start() planned, and the window it fills (a recording keeps them: its replay plans the same pages) */
  started: { now: number; from: number; to: number } | null = null

  constructor(private readonly opts: RunnerOptions) {
    // every worker's budget wait and backoff listens to it, as do the fetches' extra calls
    setMaxListeners(100, this.controller.signal)
  }

  get venue() {
    return this.opts.venue.venue
  }

  /** plan the window ending now (and the holes stored before), then work until stopped */
  async start(): Promise<void> {
    const { venue, db, days } = this.opts
    const now = this.opts.now()
    const end = floorTo(now, MINUTE_MS)
    this.window = { start: Math.ceil((end - days * 86_400_000) / MINUTE_MS) * MINUTE_MS, end }
    this.started = { now, from: this.window.start, to: end }
    const progress = await readProgress(db.sql, venue.venue)
    for (const coin of this.opts.coins()) {
      for (const kind of venue.kinds) {
        if (!venue.lists(coin, kind)) continue
        const prev = progress.get(seriesKey({ exchange: venue.venue, coin, kind }))
        const plan = planSeries(this.window, prev, venue.retentionMs(kind), now)
        const covered = prev && prev.coveredTo > prev.coveredFrom ? { from: prev.coveredFrom, to: prev.coveredTo } : { from: end, to: end }
        const s: SeriesRun = { coin, kind, start: plan.start, covered, done: [], exhausted: plan.cut, pages: prev?.pages ?? 0, queued: 0, inFlight: 0, bars: 0, events: 0 }
        // what lies before the series' start is settled: nothing to fetch there
        if (plan.cut) s.done.push({ from: Math.min(this.window.start, plan.cut.ts), to: plan.cut.ts })
        this.series.set(`${coin}:${kind}`, s)
        const span = venue.cost(kind).pageSpanMs
        for (const r of plan.ranges) for (const p of pagesOf(r, span)) this.push({ s, ...p, priority: r.priority, attempts: 0 })
        if (plan.cut && (!prev || prev.exhaustedBefore !== plan.cut.ts)) await this.save(s)
      }
    }
    // holes found by an earlier run: asked again (the venue may serve them now)
    for (const h of await readHoles(db.sql, venue.venue)) {
      const s = this.series.get(`${h.coin}:${h.kind}`)
      if (s && h.to > s.start) this.push({ s, from: Math.max(h.from, s.start), to: h.to, priority: 'repair', attempts: 0 })
    }
    this.state = 'running'
    const n = this.opts.concurrency ?? 4
    this.workers = Array.from({ length: n }, () => this.work())
  }

  /** gap repair: every series' span [from, to) is asked again for what the store lacks (an outage, a restart's cut minutes) */
  repair(from: number, to: number): void {
    const end = Math.min(floorTo(to, MINUTE_MS), floorTo(this.opts.now(), MINUTE_MS))
    for (const s of this.series.values()) {
      const lo = Math.max(from, s.start)
      if (!(end > lo)) continue
      for (const p of pagesOf({ from: lo, to: end }, this.opts.venue.cost(s.kind).pageSpanMs)) this.push({ s, ...p, priority: 'repair', attempts: 0 })
    }
  }

  async stop(): Promise<void> {
    this.controller.abort()
    for (const w of this.sleepers.splice(0)) w()
    await Promise.allSettled(this.workers)
    if (this.state !== 'refused') this.state = 'stopped'
  }

  /** every page planned or added so far is done (or the runner stopped) */
  async idle(): Promise<void> {
    while (!this.controller.signal.aborted && (this.queue.length || [...this.series.values()].some((s) => s.inFlight))) await sleep(20, this.controller.signal)
  }

  status(): SeriesStatus[] {
    return [...this.series.values()].map((s) => ({
      coin: s.coin,
      kind: s.kind,
      covered_from: s.covered.to > s.covered.from ? s.covered.from : null,
      covered_to: s.covered.to > s.covered.from ? s.covered.to : null,
      exhausted: s.exhausted,
      pages_done: s.pages,
      pages_remaining: s.queued + s.inFlight,
    }))
  }

  /** the window this run fills, and from when every series is complete to its end */
  completeness(): { windowFrom: number; windowTo: number; completeFrom: number; done: boolean } {
    let completeFrom = this.window.start
    let done = true
    for (const s of this.series.values()) {
      if (s.queued + s.inFlight > 0) done = false
      // a series is complete down to its covered start, or to the window's start once it reaches its own start
      const from = s.covered.from <= s.start ? this.window.start : s.covered.to >= this.window.end ? s.covered.from : this.window.end
      completeFrom = Math.max(completeFrom, from)
    }
    return { windowFrom: this.window.start, windowTo: this.window.end, completeFrom, done }
  }

  private push(j: Job): void {
    j.s.queued++
    this.queue.push(j)
    this.sleepers.shift()?.()
  }

  private async work(): Promise<void> {
    const signal = this.controller.signal
    while (!signal.aborted && this.state !== 'refused') {
      const job = this.queue.pop()
      if (!job) {
        if (this.state === 'running') this.state = 'idle'
        await new Promise<void>((r) => this.sleepers.push(r))
        continue
      }
      this.state = 'running'
      job.s.queued--
      job.s.inFlight++
      try {
        await this.run(job)
      } catch (err) {
        if (!(err instanceof BudgetAbortedError) && !signal.aborted) this.opts.logger?.warn({ err, exchange: this.venue, coin: job.s.coin, kind: job.s.kind }, 'history page failed')
      } finally {
        job.s.inFlight--
      }
    }
  }

  private async run(job: Job): Promise<void> {
    const { venue, budget, db } = this.opts
    const { s } = job
    const signal = this.controller.signal
    const from = Math.max(job.from, s.exhausted?.ts ?? -Infinity)
    if (!(job.to > from)) return this.finish(s, job, job.to, null)
    // only what the store lacks is asked for (nothing at all when every step is stored)
    const stored = await storedView(db, { exchange: this.venue, coin: s.coin, kind: s.kind }, from, job.to)
    const step = STEP_MS[s.kind]
    const span = step ? missingSpan(from, job.to, step, stored.step) : { from, to: job.to }
    if (!span) return this.finish(s, job, job.to, null)
    const cost = venue.cost(s.kind)
    const pay = (d: Draw[]) => budget.acquire(d, job.priority, signal)
    await budget.acquire({ pool: cost.pool, weight: cost.weight }, job.priority, signal)
    let page: HistoryPage
    try {
      page = await venue.fetch({ coin: s.coin, kind: s.kind, from: span.from, to: span.to }, signal, pay)
    } catch (err) {
      if (signal.aborted) return
      return this.failed(job, span, err)
    }
    this.fetched++
    s.pages++
    const wrote = await writePage({ db, market: this.opts.market, page, stored, onWritten: this.opts.onWritten })
    s.bars += wrote.bars
    s.events += wrote.events
    if (wrote.bars) this.opts.onHoursWritten?.(Math.min(...page.bars.map((b) => b.ts)))
    if (page.exhaustedBefore && (!s.exhausted || page.exhaustedBefore.ts > s.exhausted.ts)) {
      s.exhausted = page.exhaustedBefore
      s.done.push({ from: Math.min(this.window.start, page.exhaustedBefore.ts), to: page.exhaustedBefore.ts })
    }
    // what the page covers for sure: a newest-first venue's full page may start after the span's start
    const pageFrom = Math.min(Math.max(span.from, page.from), page.to)
    const holeFrom = Math.max(pageFrom, s.exhausted?.ts ?? -Infinity)
    const holes = pageHoles(s.kind, holeFrom, page.to, page, stored, publishedPositioningKinds(this.venue))
    await this.holes(s, { from: holeFrom, to: page.to }, holes.map((h) => ({ ...h, reason: 'the venue serves no data for this span' })))
    // a page that stopped short: the rest is asked as its own page (the newer rest of an oldest-first page, the
    // older rest of a newest-first one)
    if (page.to < span.to) this.push({ ...job, from: page.to, to: span.to, attempts: 0 })
    if (pageFrom > span.from) this.push({ ...job, from: span.from, to: pageFrom, attempts: 0 })
    const upTo = page.to < span.to ? page.to : job.to
    const doneFrom = pageFrom > span.from ? pageFrom : job.from
    s.done.push({ from: doneFrom, to: upTo })
    if (page.to < span.to && span.to < job.to) s.done.push({ from: span.to, to: job.to })
    if (doneFrom > job.from && span.from > job.from) s.done.push({ from: job.from, to: span.from })
    await this.finish(s, job, upTo, page)
  }

  private async failed(job: Job, span: { from: number; to: number }, err: unknown): Promise<void> {
    const e = err instanceof VenueHttpError ? err : null
    if (e?.refused) {
      this.state = 'refused'
      this.refusal = e.message
      this.opts.logger?.error({ exchange: this.venue, status: e.status, err: e.message }, 'the venue refuses history requests; its backfill stops')
      return
    }
    if (e?.rateLimited) {
      // the budget is paused until the venue's stated time, on the budget's clock (the CCXT hook saw the answer); the
      // page waits its turn again
      if (e.retryAfterMs) this.opts.budget.pause(this.opts.budget.now() + e.retryAfterMs, e.status === 418 ? 'banned' : 'rate_limited')
      this.push({ ...job, attempts: job.attempts })
      return
    }
    const attempts = job.attempts + 1
    if (attempts >= (this.opts.maxAttempts ?? 3)) {
      // the venue keeps failing this span: a hole (asked again by the next repair), and the series goes on
      const reason = `the venue failed every request for this span${e?.status ? ` (HTTP ${e.status})` : ''}`
      await this.holes(job.s, span, [{ ...span, reason }])
      job.s.done.push({ from: job.from, to: job.to })
      return this.finish(job.s, job, job.to, null)
    }
    this.opts.logger?.warn({ exchange: this.venue, coin: job.s.coin, kind: job.s.kind, attempts, err: err instanceof Error ? err.message : String(err) }, 'history page failed; retrying')
    await sleep(backoffDelay(attempts - 1), this.controller.signal)
    this.push({ ...job, attempts })
  }

  private async holes(s: SeriesRun, span: { from: number; to: number }, holes: { from: number; to: number; reason: string }[]): Promise<void> {
    if (!(span.to > span.from)) return
    await replaceHoles(this.opts.db.sql, { exchange: this.venue, coin: s.coin, kind: s.kind, marketType: kindMarketType(s.kind) }, span, holes)
    this.opts.onHoles?.()
  }

  private async finish(s: SeriesRun, job: Job, upTo: number, page: HistoryPage | null): Promise<void> {
    if (!page) s.done.push({ from: job.from, to: upTo })
    const before = s.covered
    s.covered = extendCovered(s.covered, s.done)
    if (page || s.covered.from !== before.from || s.covered.to !== before.to) await this.save(s)
  }

  private save(s: SeriesRun): Promise<void> {
    const p: SeriesProgress = {
      exchange: this.venue,
      coin: s.coin,
      kind: s.kind,
      coveredFrom: s.covered.from,
      coveredTo: s.covered.to,
      exhaustedBefore: s.exhausted?.ts ?? null,
      exhaustedReason: s.exhausted?.reason ?? null,
      pages: s.pages,
    }
    return writeProgress(this.opts.db.sql, p)
  }
}
