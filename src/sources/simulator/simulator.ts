// MarketSimulator: the embedded default data source. Deterministic from a seed; emits exactly the normalized events
// of domain/events.ts (trades, book snapshots, tickers, open interest, funding) for the default coins on every market of
// exchanges.ts, with trade counts and volumes of the real venues' order (params.ts), so nothing downstream knows the
// difference from a live connector. History comes as 1-minute aggregates with the statistics of the minute's trades
// (history.ts), live as the individual trades (live.ts), both from the same minute plans. docs/simulator.md has the
// model.
//
// Determinism: every value is a function of (seed, market, time):
//   - the slow hourly layer (regimes, fair-price anchors, trends, crowd bias, open interest, cascades, premium) is
//     walked from a fixed origin (slow-path.ts), independent of what a caller asks for;
//   - within an hour the fair price is a Brownian bridge between the hourly anchors (price-path.ts);
//   - short-memory noise (venue basis, fast premium, index noise, activity, book asymmetry) is hash-based value noise
//     of time;
//   - each market-minute's plan, trades and bar come from PRNGs seeded from hash(seed, market, minute).
// So the events of a minute do not depend on how a range is chunked, nor on the start of the range.

import type { EventSink } from '../../domain/events.js'
import { LIQUIDATION_FEEDS } from '../../domain/liquidations.js'
import { DEFAULT_COINS } from '../../domain/coins.js'
import { type MarketKey } from '../../domain/minute-bars.js'
import { HOUR_MS, MINUTE_MS, floorTo } from '../../domain/time.js'
import { seedToU32 } from './rng.js'
import { buildMarkets, type SimMarket } from './markets.js'
import { PricePath } from './price-path.js'
import { SimPositions } from './positions.js'
import { HistoryGenerator, type HistorySink, type RangeResult } from './history.js'
import { LiveFeed } from './live.js'
import { ORIGIN_TS, hourIndex } from './slow-path.js'

export { ORIGIN_TS } from './slow-path.js'

export interface SimulatorOptions {
  /** the whole simulated world is a function of the seed (and time) */
  seed: number | string
  /** coins to simulate, default DEFAULT_COINS; unknown coins get hash-derived small-alt parameters */
  coins?: readonly string[]
  /** where live() starts when neither live({ fromTs }) nor simulateRange() gave a start; default now() at live() */
  startTs?: number
  /** live timer period, ms (default 250) */
  tickMs?: number
  /** a book snapshot per market every this many minutes in history, at minute starts (default 60; 0 = none) */
  historyBookEveryMinutes?: number
  /** price levels per book side (default 100) */
  bookLevels?: number
  /** live sampling intervals, ms: ticker (default 1000), book (1000), open interest (5000) */
  liveTickerMs?: number
  liveBookMs?: number
  liveOpenInterestMs?: number
}

export interface RangeOptions {
  /** emit tickers and open interest only at the last minute of each slot of this length (default: every minute) */
  sampleEveryMs?: number
  /** emit the history book snapshots (default true; a backfill that keeps no history books skips them) */
  books?: boolean
}

export interface LiveOptions {
  /** the clock (default Date.now) */
  now?: () => number
  /** first ts to emit; default: where the last simulateRange() ended, else options.startTs, else now() */
  fromTs?: number
  /** don't start a timer; the caller calls pump(now) itself (tests, replays) */
  manual?: boolean
  /**
   * a start in the past replays the time up to here with its tickers and open interest too (a restart completing
   * what it missed: quiet minutes are heard, samples written); default: only trades are caught up
   */
  catchUpTo?: number
}

export class MarketSimulator {
  /** its trades and bars are simulated (HistorySource) */
  readonly tradeSource = 'simulated' as const
  readonly seed: number
  readonly coins: readonly string[]
  readonly markets: readonly MarketKey[]
  private readonly opts: Required<Omit<SimulatorOptions, 'seed' | 'coins' | 'startTs'>> & { startTs: number | undefined }
  private readonly mkts: SimMarket[]
  private readonly path: PricePath
  /** the markets' leveraged positions, shared by history and live: a live start continues the backfill's books */
  private readonly positions: SimPositions
  private readonly history: HistoryGenerator
  private historyEnd: number | undefined
  private feed: LiveFeed | null = null
  private timer: ReturnType<typeof setInterval> | null = null

  constructor(options: SimulatorOptions) {
    this.seed = seedToU32(options.seed)
    const coins = [...(options.coins ?? DEFAULT_COINS)]
    if (coins.length === 0) throw new RangeError('coins must not be empty')
    if (new Set(coins).size !== coins.length) throw new RangeError('coins must be unique')
    this.coins = coins
    this.opts = {
      startTs: options.startTs,
      tickMs: options.tickMs ?? 250,
      historyBookEveryMinutes: options.historyBookEveryMinutes ?? 60,
      bookLevels: options.bookLevels ?? 100,
      liveTickerMs: options.liveTickerMs ?? 1000,
      liveBookMs: options.liveBookMs ?? 1000,
      liveOpenInterestMs: options.liveOpenInterestMs ?? 5000,
    }
    const o = this.opts
    if (!(o.bookLevels >= 2) || !(o.historyBookEveryMinutes >= 0)) throw new RangeError('bad book options')
    if (!(o.tickMs > 0 && o.liveTickerMs > 0 && o.liveBookMs > 0 && o.liveOpenInterestMs > 0)) throw new RangeError('bad live intervals')
    this.path = new PricePath(this.seed, coins)
    this.mkts = buildMarkets(this.seed, coins)
    this.markets = this.mkts.map(({ exchange, coin, marketType }) => ({ exchange, coin, marketType }))
    this.positions = new SimPositions(this.seed, coins)
    this.history = new HistoryGenerator(this.mkts, this.path, this.positions, o.bookLevels, o.historyBookEveryMinutes)
  }

  // ---- history --------------------------------------------------------------------------------------------------

  /**
   * Emit every minute whose start is in [fromTs, toTs) (both rounded up to whole minutes), in minute order; within a
   * minute market by market, each market's events in ts order: funding settlement (perps, at settlement minutes,
   * ts = minute start), book snapshot (every historyBookEveryMinutes, ts = minute start), the minute's 1-minute bar
   * (sink.emitBar; a quiet minute's bar is flat at the previous close), then ticker and open interest (perps)
   * sampled at the minute's last millisecond (ts = minute start + 59 999) — every minute, or with sampleEveryMs only
   * at the last minute of each slot (a backfill that keeps one sample per 5 minutes needs no more).
   */
  simulateRange(fromTs: number, toTs: number, sink: HistorySink, options: RangeOptions = {}): RangeResult {
    const m0 = Math.ceil(fromTs / MINUTE_MS) * MINUTE_MS
    const m1 = Math.ceil(toTs / MINUTE_MS) * MINUTE_MS
    if (!Number.isFinite(m0) || !Number.isFinite(m1)) throw new RangeError('fromTs and toTs must be finite')
    if (m0 < ORIGIN_TS) throw new RangeError(`the simulator starts at ${new Date(ORIGIN_TS).toISOString()}`)
    if (m1 <= m0) return { fromTs: m0, toTs: m0, events: 0, trades: 0 }
    const every = options.sampleEveryMs ?? MINUTE_MS
    if (!(every >= MINUTE_MS) || every % MINUTE_MS !== 0) throw new RangeError('sampleEveryMs must be a whole number of minutes')
    // its own liquidation feed covered the range: every venue that publishes one (not Hyperliquid), for the simulated coins
    this.reportFeeds(sink, m0, m1)
    const r = this.history.run(m0, m1, sink, every, options.books ?? true)
    this.historyEnd = this.historyEnd === undefined ? m1 : Math.max(this.historyEnd, m1)
    return r
  }

  // ---- live -----------------------------------------------------------------------------------------------------

  /**
   * Continue in real time: trades as their ts passes (ids `${minute}-L${n}`), a ticker every liveTickerMs, a book
   * snapshot every liveBookMs, open interest every liveOpenInterestMs per market, funding settlements. The minute
   * plans and price path are history's. If the start lies in the past, trades are caught up at once; sampled events
   * older than 5 s are skipped (use simulateRange for history), except tickers and open interest before `catchUpTo`.
   */
  live(sink: EventSink, options: LiveOptions = {}): void {
    if (this.feed) throw new Error('live() already running; stop() first')
    const now = options.now ?? Date.now
    const start = Math.floor(options.fromTs ?? this.historyEnd ?? this.opts.startTs ?? now())
    if (start < ORIGIN_TS) throw new RangeError(`the simulator starts at ${new Date(ORIGIN_TS).toISOString()}`)
    const o = this.opts
    const iv = { tickerMs: o.liveTickerMs, bookMs: o.liveBookMs, openInterestMs: o.liveOpenInterestMs, bookLevels: o.bookLevels }
    this.feed = new LiveFeed(this.mkts, this.path, this.positions, iv, sink, start, options.catchUpTo)
    // the live liquidation feed is up from its start for as long as it runs (the ingest extends it to its own clock)
    this.reportFeeds(sink, start)
    if (!options.manual) {
      const tick = () => {
        try {
          this.pump(now())
        } catch (err) {
          this.stop()
          throw err
        }
      }
      this.timer = setInterval(tick, o.tickMs)
      tick()
    }
  }

  /** stop live generation (idempotent) */
  stop(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    this.feed = null
  }

  get running(): boolean {
    return this.feed !== null
  }

  /** emit every live event with ts <= now not emitted yet; returns how many were emitted */
  pump(now: number): number {
    return this.feed ? this.feed.pump(now) : 0
  }

  /** the simulated liquidation feeds as up from `from` (until `until`, for a range of history) */
  private reportFeeds(sink: EventSink, from: number, until?: number): void {
    const venues = new Set(this.mkts.filter((m) => m.marketType === 'perp' && LIQUIDATION_FEEDS[m.exchange].published).map((m) => m.exchange))
    for (const exchange of venues) {
      const coins = this.mkts.filter((m) => m.exchange === exchange && m.marketType === 'perp').map((m) => m.coin)
      sink.feed?.({ exchange, stream: 'liquidations', coins, ts: from, up: true, ...(until === undefined ? {} : { until }) })
    }
  }

  // ---- inspection (tests, docs) ---------------------------------------------------------------------------------

  /** the fair (index) price of a coin at a minute boundary (ts is floored to the minute) */
  fairPrice(coin: string, ts: number): number {
    const ci = this.coinIndex(coin)
    const m = floorTo(ts, MINUTE_MS)
    this.path.ensureSlow(m + MINUTE_MS)
    return this.path.hours[ci]!.fair[this.path.prepare(m)]!
  }

  /** the slow state of a coin during the hour containing ts */
  hourState(coin: string, ts: number): {
    regime: 'calm' | 'normal' | 'stressed'
    trending: boolean
    bias: number
    openInterest: number
    premium: number
    cascade: { minute: number; jump: number; oiDrop: number } | null
  } {
    const p = this.path.paths[this.coinIndex(coin)]!
    const h = hourIndex(ts)
    if (h < 0) throw new RangeError('before the simulator origin')
    this.path.ensureSlow(ts + HOUR_MS)
    const k = p.cascadeMinute[h]!
    return {
      regime: (['calm', 'normal', 'stressed'] as const)[this.path.market.regime[h]!]!,
      trending: p.trending[h] === 1,
      bias: p.bias[h]!,
      openInterest: Math.exp(p.oi[h]!),
      premium: p.premium[h]!,
      cascade: k >= 0 ? { minute: k, jump: p.cascadeJump[h]!, oiDrop: p.cascadeOiDrop[h]! } : null,
    }
  }

  private coinIndex(coin: string): number {
    const ci = this.coins.indexOf(coin)
    if (ci < 0) throw new RangeError(`coin ${coin} is not simulated`)
    return ci
  }
}
