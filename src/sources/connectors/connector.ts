// The runtime shared by the five venue connectors: market resolution, websocket watch loops, REST polls,
// retry with capped exponential backoff + jitter, throttled book snapshots, health, and a clean stop.
// Venue classes only say which CCXT instance/symbols/endpoints to use and how to read their payloads.
import type { Exchange, FundingRateHistory, MarketInterface, Trade } from 'ccxt'
import { findByBase, loadMarkets, reloadPerps } from './ccxt-access.js'
import type { BookSnapshotEvent, EventSink, FundingEvent, LiquidationEvent, MarketEvent, OpenInterestEvent, TickerEvent } from '../../domain/events.js'
import { exchangeById, type ExchangeId, type MarketType } from '../../domain/exchanges.js'
import type { WideBook } from '../../domain/books.js'
import { sleep, type BackoffOptions } from './backoff.js'
import { pollIntervals, type ConnectorHealth, type ConnectorLogger, type ConnectorOptions, type KlineQuery, type PollIntervals, type StreamName } from './connector-options.js'
import type { Kline } from '../../domain/minute-bars.js'
import { klineFromOhlcv } from './klines.js'
import { bookEvent, fundingEvents, marketRef, tradeEvent, type BookDepth, type MarketRef } from './mapping.js'
import { fetchWideBooks, type WideBookSource } from './wide-books.js'
import { Supervisor } from './supervisor.js'
import { watchLiveness, type LiquidationStream } from './liveness.js'
import { TradeWatermark } from './trade-watermark.js'
import { positioningOf } from './positioning.js'
import { RefusalWatch } from './venue-access.js'

const noop = () => {}
const SILENT: ConnectorLogger = { debug: noop, info: noop, warn: noop, error: noop }

export abstract class ExchangeConnector {
  abstract readonly exchange: ExchangeId
  protected readonly coins: string[]
  protected readonly sink: EventSink
  protected readonly log: ConnectorLogger
  protected readonly intervals: PollIntervals
  protected readonly marketTypes: readonly MarketType[] | undefined
  protected readonly bookIntervalMs: number
  protected readonly bookBand: number
  protected readonly now: () => number
  private readonly livenessMs: number
  private readonly streams: Partial<Record<StreamName, boolean>>
  private readonly backoff: Partial<BackoffOptions>
  private readonly random: () => number

  /** markets followed in the current run */
  protected refs: MarketRef[] = []
  /** last trade price per symbol, from the trade stream (for venues whose ticker payload has no last price) */
  protected readonly lastTradePrice = new Map<string, number>()
  /** funding interval per symbol learned from settled history */
  protected readonly learnedIntervalHours = new Map<string, number>()
  private readonly lastFundingTs = new Map<string, number>()
  private readonly lastBookAt = new Map<string, number>()
  /** the latest wide snapshots per symbol, attached to every book event */
  private readonly wideBooks = new Map<string, WideBook[]>()
  private readonly tradeWatermark = new TradeWatermark()
  /** the current run's loops; null when not running */
  private run: Supervisor | null = null
  private stopping: Promise<void> | null = null
  private ready: Promise<void> = Promise.resolve()
  private marketsLoaded = false
  private lastEventAt: number | null = null
  private errorCount = 0
  private readonly refusals: RefusalWatch

  constructor(opts: ConnectorOptions) {
    this.coins = [...new Set(opts.coins.map((c) => c.trim().toUpperCase()).filter(Boolean))]
    this.sink = opts.sink
    this.log = opts.logger ?? SILENT
    this.intervals = pollIntervals(opts.pollIntervalMs)
    this.marketTypes = opts.marketTypes
    this.bookIntervalMs = opts.bookIntervalMs ?? 1_000
    this.bookBand = opts.bookBand ?? 0.05
    this.streams = opts.streams ?? {}
    this.backoff = opts.backoff ?? {}
    this.random = opts.random ?? Math.random
    this.now = opts.now ?? Date.now
    this.livenessMs = opts.livenessMs ?? 1_000
    this.refusals = new RefusalWatch(() => this.exchange, this.log, opts.onRefusal)
  }

  // ---- what a venue provides -------------------------------------------------------------------

  /** the CCXT instance serving a market type, undefined when the venue has none */
  abstract exchangeFor(marketType: MarketType): Exchange | undefined
  /** the coin's market on this venue; default: the USDT-settled linear perp and the USDT spot pair (the CEXes) */
  protected findMarket(ex: Exchange, coin: string, marketType: MarketType): MarketInterface | undefined {
    return marketType === 'perp'
      ? findByBase(ex, coin, (m) => m.swap === true && m.linear === true && m.settle === 'USDT')
      : findByBase(ex, coin, (m) => m.spot === true && m.quote === 'USDT')
  }
  /** tickers of the markets; where openInterestInTickers, also the open interest of `withOpenInterest` from the same call */
  protected abstract pollTickers(refs: MarketRef[], withOpenInterest: MarketRef[]): Promise<Array<TickerEvent | OpenInterestEvent>>
  protected abstract pollOpenInterest(refs: MarketRef[]): Promise<OpenInterestEvent[]>
  /** the venue's ticker call carries open interest too: one poll reads both (on the ticker schedule), no second call */
  protected readonly openInterestInTickers: boolean = false

  /** book depth requested from the venue (REST snapshot limit / ws channel depth) */
  protected bookLimit(_ref: MarketRef): number | undefined {
    return undefined
  }
  /** depth for the REST fallback (some venues allow less over REST than over ws) */
  protected restBookLimit(ref: MarketRef): number | undefined {
    return this.bookLimit(ref)
  }
  /** levels per side the venue sends for a book read this way, which decides whether a side is whole (default: the limit asked for) */
  protected bookDepth(ref: MarketRef, via: 'stream' | 'rest'): BookDepth {
    return (via === 'rest' ? this.restBookLimit(ref) : this.bookLimit(ref)) ?? null
  }
  /** coarser or deeper snapshots polled for the wide depth bands (perps); none by default */
  protected wideBookSources(_ex: Exchange, _ref: MarketRef): WideBookSource[] {
    return []
  }
  protected watchBookParams(_ref: MarketRef): Record<string, unknown> {
    return {}
  }
  /** recent public trades for the REST fallback (CCXT fetchTrades unless the venue needs a raw call) */
  protected fetchRecentTrades(ex: Exchange, ref: MarketRef): Promise<Trade[]> {
    return ex.fetchTrades(ref.symbol, undefined, 100)
  }
  /** since/limit/params for fetchFundingRateHistory */
  protected fundingHistoryQuery(_ref: MarketRef): { since?: number; limit?: number; params?: Record<string, unknown> } {
    return { limit: 10 }
  }
  /** the venue's liquidation feed loops (liquidations.ts) and where the stream lives; none by default (Hyperliquid publishes none) */
  protected watchLiquidations(_run: Supervisor, _perps: MarketRef[], _emit: (e: LiquidationEvent) => void): LiquidationStream | null {
    return null
  }
  /** a trade that is itself a liquidation (dYdX LIQUIDATED) as a liquidation event */ protected liquidationOfTrade: (ref: MarketRef, t: Trade) => LiquidationEvent | null = () => null
  protected readonly publishesPositioning: boolean = false // the venue publishes long/short ratios (positioning.ts)

  // ---- public API ------------------------------------------------------------------------------

  /**
   * Loads markets and launches the loops. Resolves after the first market-load attempt: with the loops running when
   * it succeeded, or with the connector retrying in the background (backoff) when it failed. Never rejects; idempotent.
   */
  start(): Promise<void> {
    if (this.run) return this.ready
    const run = new Supervisor({
      backoff: this.backoff,
      random: this.random,
      onFailure: (task, err, retryInMs) => {
        this.errorCount++
        this.refusals.failed(task, err)
        this.log.warn({ exchange: this.exchange, task, retryInMs, err: errorText(err) }, 'connector task failed; retrying')
      },
      onCrash: (err) => this.log.error({ exchange: this.exchange, err }, 'connector task crashed'),
      onRecover: (task) => this.refusals.recovered(task),
    })
    this.run = run
    this.marketsLoaded = false
    let firstAttempt: () => void = noop
    this.ready = new Promise<void>((resolve) => (firstAttempt = resolve))
    void run.track(this.bootstrap(run, firstAttempt).finally(firstAttempt))
    return this.ready
  }

  /** Ends every loop, closes the CCXT websockets, and resolves when all loops have returned. Idempotent. */
  stop(): Promise<void> {
    const run = this.run
    if (!run) return Promise.resolve()
    this.stopping ??= this.shutdown(run).finally(() => (this.stopping = null))
    return this.stopping
  }

  private async shutdown(run: Supervisor): Promise<void> {
    await run.stop()
    const closing = this.instances().map((ex) => ex.close().catch((err: unknown) => this.log.debug({ err }, 'close failed')))
    await Promise.race([Promise.allSettled(closing), sleep(5_000)])
    this.run = null
    this.log.info({ exchange: this.exchange }, 'connector stopped')
  }

  health(): ConnectorHealth {
    const run = this.run
    return {
      exchange: this.exchange,
      lastEventAt: this.lastEventAt,
      connected: run !== null && !run.stopped && this.marketsLoaded && this.refs.length > 0 && run.failing.size === 0,
      errors: this.errorCount,
      failing: [...(run?.failing ?? [])],
      refused: this.refusals.current,
    }
  }

  /** The markets this run follows (after start() resolved). */
  markets(): readonly MarketRef[] {
    return this.refs
  }

  /** the venue's perps as its market list says now (reloaded), for the coin universe (src/sources/universe/); rejects on failure */
  listedPerps = (): Promise<MarketInterface[]> => reloadPerps(this.exchangeFor('perp'))

  /** 1-minute (or other) klines of one market, REST, for the importer and reconciliation. */
  async fetchKlines(coin: string, marketType: MarketType, query: KlineQuery = {}): Promise<Kline[]> {
    const ref = await this.resolveOne(coin, marketType)
    const ex = this.exchangeFor(marketType)!
    const rows = await ex.fetchOHLCV(ref.symbol, query.timeframe ?? '1m', query.since, query.limit)
    return rows.map(klineFromOhlcv).filter((k): k is Kline => k !== null)
  }

  // ---- runtime ---------------------------------------------------------------------------------

  protected instances(): Exchange[] {
    return [...new Set((['perp', 'spot'] as const).map((t) => this.exchangeFor(t)).filter((e): e is Exchange => !!e))]
  }

  protected wantedTypes(): MarketType[] {
    const listed = exchangeById.get(this.exchange)!.marketTypes
    return listed.filter((t) => (this.marketTypes ? this.marketTypes.includes(t) : true) && this.exchangeFor(t) !== undefined)
  }

  protected defaultIntervalHours(): number {
    return exchangeById.get(this.exchange)!.fundingIntervalHours
  }

  /** the interval the venue states for a market outside its ticker payload (Binance fundingInfo); null when it does not */
  protected knownIntervalHours(_ref: MarketRef): number | null {
    return null
  }

  /** funding interval for a ticker: what the payload said, else what the venue states, else what settled history showed, else the venue default */
  protected intervalHoursFor(ref: MarketRef, fromPayload: number | null | undefined): number {
    return fromPayload ?? this.knownIntervalHours(ref) ?? this.learnedIntervalHours.get(ref.symbol) ?? this.defaultIntervalHours()
  }

  protected async resolveMarkets(): Promise<MarketRef[]> {
    const refs: MarketRef[] = []
    for (const type of this.wantedTypes()) {
      const ex = this.exchangeFor(type)!
      await loadMarkets(ex)
      for (const coin of this.coins) {
        const market = this.findMarket(ex, coin, type)
        if (market) refs.push(marketRef(this.exchange, coin, market))
        else this.log.warn({ exchange: this.exchange, coin, marketType: type }, 'market not listed; skipped')
      }
    }
    return refs
  }

  private async resolveOne(coin: string, marketType: MarketType): Promise<MarketRef> {
    const ex = this.exchangeFor(marketType)
    if (!ex) throw new Error(`${this.exchange} has no ${marketType} market`)
    await loadMarkets(ex)
    const market = this.findMarket(ex, coin.toUpperCase(), marketType)
    if (!market) throw new Error(`${this.exchange} lists no ${marketType} market for ${coin}`)
    return marketRef(this.exchange, coin.toUpperCase(), market)
  }

  private async bootstrap(run: Supervisor, firstAttempt: () => void): Promise<void> {
    const refs = await run.retry('load-markets', () => this.resolveMarkets(), firstAttempt)
    if (refs === undefined || run.stopped) return
    this.refs = refs
    this.marketsLoaded = true
    this.launch(run)
    this.log.info({ exchange: this.exchange, markets: refs.map((r) => r.symbol) }, 'connector started')
  }

  private launch(run: Supervisor): void {
    const on = (s: StreamName) => this.streams[s] !== false
    const poll = (name: string, fetch: () => Promise<ReadonlyArray<MarketEvent | null>>, intervalMs: number) =>
      run.loop(name, 'poll', async () => this.emitAll(await run.abortable(fetch())), intervalMs)
    for (const ref of this.refs) {
      const ex = this.exchangeFor(ref.marketType)!
      if (on('trades')) {
        if (ex.has['watchTrades']) run.loop(`trades:${ref.symbol}`, 'stream', () => this.watchTradesOnce(run, ex, ref))
        else run.loop(`trades:${ref.symbol}`, 'poll', () => this.pollTradesOnce(run, ex, ref), this.intervals.tickerMs)
      }
      if (on('books')) {
        if (ex.has['watchOrderBook']) run.loop(`book:${ref.symbol}`, 'stream', () => this.watchBookOnce(run, ex, ref))
        else run.loop(`book:${ref.symbol}`, 'poll', () => this.pollBookOnce(run, ex, ref), Math.max(this.bookIntervalMs, 1_000))
        const wide = ref.marketType === 'perp' ? this.wideBookSources(ex, ref) : []
        if (wide.length > 0)
          run.loop(`wide-book:${ref.symbol}`, 'poll', async () => {
            this.wideBooks.set(ref.symbol, await run.abortable(fetchWideBooks(ref, wide, { now: this.now(), band: this.bookBand })))
          }, this.intervals.wideBookMs)
      }
    }
    const perps = this.refs.filter((r) => r.marketType === 'perp')
    const oiInTickers = this.openInterestInTickers && on('tickers')
    if (this.refs.length > 0 && on('tickers')) poll('tickers', () => this.pollTickers(this.refs, oiInTickers && on('openInterest') ? perps : []), this.intervals.tickerMs)
    if (perps.length > 0 && on('openInterest') && !oiInTickers) poll('open-interest', () => this.pollOpenInterest(perps), this.intervals.openInterestMs)
    if (perps.length > 0 && on('funding')) poll('funding', () => this.pollFunding(perps), this.intervals.fundingMs)
    // the stream's own liveness (liveness.ts) goes to the sink as the venue's feed state, not as market data
    const feed = (up: boolean) => this.sink.feed?.({ exchange: this.exchange, stream: 'liquidations', coins: perps.map((r) => r.coin), ts: this.now(), up })
    if (perps.length > 0 && on('liquidations')) watchLiveness(run, this.watchLiquidations(run, perps, (e) => this.emit(e)), this.livenessMs, feed)
    const positioning = () => positioningOf(this.exchangeFor('perp')!, perps, (calls) => this.settleAll(calls))
    if (perps.length > 0 && on('positioning') && this.publishesPositioning) poll('positioning', positioning, this.intervals.positioningMs)
  }

  protected emit(event: MarketEvent | null): void {
    if (!event || !this.run || this.run.stopped) return
    try {
      this.sink.emit(event)
      this.lastEventAt = this.now()
    } catch (err) {
      this.errorCount++
      this.log.error({ exchange: this.exchange, err }, 'sink rejected event')
    }
  }

  private emitAll(events: ReadonlyArray<MarketEvent | null>): void {
    for (const e of events) this.emit(e)
  }

  private async watchTradesOnce(run: Supervisor, ex: Exchange, ref: MarketRef): Promise<void> {
    const trades = await run.abortable(ex.watchTrades(ref.symbol))
    for (const t of trades) this.emitTrade(ref, tradeEvent(ref, t), t)
  }

  private emitTrade(ref: MarketRef, e: ReturnType<typeof tradeEvent>, t: Trade): void {
    this.emit(this.liquidationOfTrade(ref, t))
    if (!e) return
    this.lastTradePrice.set(ref.symbol, e.price)
    this.emit(e)
  }

  private async watchBookOnce(run: Supervisor, ex: Exchange, ref: MarketRef): Promise<void> {
    const ob = await run.abortable(ex.watchOrderBook(ref.symbol, this.bookLimit(ref), this.watchBookParams(ref)))
    const now = this.now()
    const last = this.lastBookAt.get(ref.symbol)
    if (last !== undefined && now - last < this.bookIntervalMs) return
    const e = this.withWide(ref, bookEvent(ref, ob, { band: this.bookBand, now, depth: this.bookDepth(ref, 'stream') }))
    if (!e) return
    this.lastBookAt.set(ref.symbol, now)
    this.emit(e)
  }

  private withWide(ref: MarketRef, e: BookSnapshotEvent | null): BookSnapshotEvent | null {
    const wide = this.wideBooks.get(ref.symbol)
    return e && wide && wide.length > 0 ? { ...e, wide } : e
  }

  /** REST fallback for an injected instance without ccxt.pro watchers (books too) */
  private async pollTradesOnce(run: Supervisor, ex: Exchange, ref: MarketRef): Promise<void> {
    const trades = await run.abortable(this.fetchRecentTrades(ex, ref))
    const events = trades.flatMap((t) => [{ e: tradeEvent(ref, t), t }]).filter((x) => x.e !== null)
    for (const { e, t } of this.tradeWatermark.fresh(ref.symbol, events, (x) => x.e!)) this.emitTrade(ref, e, t)
  }

  private async pollBookOnce(run: Supervisor, ex: Exchange, ref: MarketRef): Promise<void> {
    const ob = await run.abortable(ex.fetchOrderBook(ref.symbol, this.restBookLimit(ref)))
    this.emit(this.withWide(ref, bookEvent(ref, ob, { band: this.bookBand, now: this.now(), depth: this.bookDepth(ref, 'rest') })))
  }

  /** Settled funding rates newer than the last one emitted, per perp market. */
  protected async pollFunding(refs: MarketRef[]): Promise<FundingEvent[]> {
    const out: FundingEvent[] = []
    await this.settleAll(
      refs.map(async (ref) => {
        const ex = this.exchangeFor('perp')!
        const q = this.fundingHistoryQuery(ref)
        const rows: FundingRateHistory[] = await ex.fetchFundingRateHistory(ref.symbol, q.since, q.limit, q.params ?? {})
        out.push(...this.newFunding(ref, rows))
      }),
    )
    return out
  }

  protected newFunding(ref: MarketRef, rows: readonly FundingRateHistory[]): FundingEvent[] {
    const prev = this.lastFundingTs.get(ref.symbol)
    const known = this.knownIntervalHours(ref)
    const events = fundingEvents(ref, rows, this.learnedIntervalHours.get(ref.symbol) ?? this.defaultIntervalHours(), prev, known)
    const fresh = events.filter((e) => prev === undefined || e.ts > prev)
    const newest = events.at(-1)
    if (newest) {
      this.lastFundingTs.set(ref.symbol, Math.max(prev ?? -Infinity, newest.ts))
      if (events.length > 1 || prev !== undefined) this.learnedIntervalHours.set(ref.symbol, newest.intervalHours)
    }
    return fresh
  }

  /**
   * Awaits all calls. When every call failed, throws the first failure (the loop backs off); when only some failed,
   * counts and logs them and returns, so one bad endpoint or market does not withhold the others' data.
   */
  protected async settleAll(calls: Promise<unknown>[]): Promise<void> {
    const results = await Promise.allSettled(calls)
    const failed = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')
    if (failed.length === 0) return
    if (failed.length === results.length) throw failed[0]!.reason
    for (const f of failed) {
      this.errorCount++
      this.log.warn({ exchange: this.exchange, err: errorText(f.reason) }, 'partial poll failure')
    }
  }
}

const errorText = (err: unknown) => (err instanceof Error ? err.message : String(err))
