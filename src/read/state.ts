// What the running service knows about its markets right now: the coin universe and each feed's freshness.
import type { Database } from '../store/database.js'
import type { Exchange } from '../generated/prisma/client.js'
import { type ExchangeId, EXCHANGES } from '../domain/exchanges.js'
import { DEFAULT_COINS } from '../domain/coins.js'
import { feedStatus, type FeedStatus } from './feed-status.js'
import { LiveMarket } from './live.js'
import { MarketReader } from './reader.js'
import { liveDraft } from './stream/drafts.js'
import { StreamHub } from './stream/hub.js'
import { CoinSeries } from './series.js'
import { TierBook } from './tiers/book.js'
import type { HistoryHole } from '../store/market/history.js'
import type { SourceChoice } from '../sources/source-choice.js'
import { readStoreSource, type StoreSourceKind } from '../store/market/store-source.js'

/** the data tick: ingest writes, the series and caches move, feed freshness is persisted this often */
export const DATA_TICK_MS = 2000

/** the history backfill this process runs (newest day first), for /healthz and for responses' coverage */
export interface BackfillStatus {
  source: string
  /** the window it fills, Unix ms */
  windowFrom: number
  windowTo: number
  /** history is complete from here to windowTo (windowFrom once done) */
  completeFrom: number
  chunks: number
  chunksDone: number
  done: boolean
}

export class MarketState {
  private coinList: string[] = [...DEFAULT_COINS]
  private delistings = new Map<string, { at: number; venues: readonly ExchangeId[] }>()
  private readonly lastEvent = new Map<ExchangeId, number>()
  /** why a venue is impaired although data still flows (e.g. a replay that cannot answer a call) */
  private readonly degradedBy = new Map<ExchangeId, string>()
  /** venues refusing this service (451 geo-block, 403), with the reason the connector gave */
  private readonly refusedBy = new Map<ExchangeId, string>()
  /** exchanges whose feed is configured (the simulator feeds all five) */
  readonly enabled = new Set<ExchangeId>()
  /** latest ticker, OI and book per market */
  readonly live = new LiveMarket()
  /** memoized reads of stored market data */
  readonly reader: MarketReader
  /** hot hourly/minute series per coin, mirroring the store */
  readonly series = new CoinSeries()
  /** the running or finished backfill, null when none was started */
  backfill: BackfillStatus | null = null
  /** live venues: spans their REST history cannot serve (history_hole), for coverage; refreshed by the history runner */
  historyHoles: readonly HistoryHole[] = []
  /** live venues: the history backfill's progress per venue and kind, for /healthz and /readyz (null without one) */
  historyStatus: (() => Record<string, unknown>) | null = null
  /** leverage tiers per venue and coin for the cascade (live when a connector fetched them) */
  readonly tiers = new TierBook()
  /** the push channels (GET /v1/stream, alerts): live tickers and liquidations go in as they arrive */
  readonly stream: StreamHub
  /** the source this process runs and why (the runtime sets it; null on an API node) */
  sourceChoice: SourceChoice | null = null
  /** the kind of source the store's market data comes from (store_source), as last read */
  storeKind: StoreSourceKind | null = null

  constructor(
    private readonly db: Database,
    readonly clock: () => number = Date.now,
  ) {
    this.reader = new MarketReader(db)
    this.stream = new StreamHub(clock)
    this.live.listener = (e) => this.stream.publish(liveDraft(e))
  }

  /** every coin known to the store: the valid coin parameters (a delisted coin's history stays readable) */
  coins(): readonly string[] {
    return this.coinList
  }

  /** the coins "all coins" means: every known coin but those delisted from the universe (COINS=all) */
  listedCoins(): readonly string[] {
    return this.delistings.size === 0 ? this.coinList : this.coinList.filter((c) => !this.delistings.has(c))
  }

  /** COINS=all: when the coin left the universe and the venues still listing it then; null while listed */
  delisting(coin: string): { at: number; venues: readonly ExchangeId[] } | null {
    return this.delistings.get(coin) ?? null
  }

  /** where load() took the hot series from: the snapshot the last process left at shutdown, or the store */
  seriesFrom: 'snapshot' | 'store' | null = null

  /**
   * Make sure every default coin and exchange row exists, then load the coin universe from the store, and the hot
   * series from the snapshot the last process left with the store (Database.handoff) or, without one, from the store.
   */
  async load(): Promise<void> {
    const { prisma } = this.db
    await prisma.coin.createMany({ data: DEFAULT_COINS.map((symbol) => ({ symbol, source: 'default' })), skipDuplicates: true })
    await prisma.exchange.createMany({ data: EXCHANGES.map((e) => ({ id: e.id, name: e.name, type: e.type })), skipDuplicates: true })
    await this.refreshCoins()
    const left = this.db.handoff?.take()
    if (left && this.series.restore(left, this.clock())) this.seriesFrom = 'snapshot'
    else {
      await this.series.load(this.db, this.clock())
      this.seriesFrom = 'store'
    }
    await this.refreshExchanges()
    for (const e of this.exchangeRows) if (e.lastEventAt) this.lastEvent.set(e.id as ExchangeId, e.lastEventAt.getTime())
  }

  /**
   * Leave the hot series with the embedded store for the next start's load() (nothing on PostgreSQL). Only once
   * everything is written and nothing writes any more: the series must mirror the store as it closes.
   */
  async leaveSeries(): Promise<void> {
    const series = this.db.handoff ? this.series.snapshot() : null
    if (series) await this.db.handoff!.leave(series)
  }

  /** the exchange rows as stored (what other processes last persisted), re-read with every persist */
  exchangeRows: Exchange[] = []

  async refreshExchanges(): Promise<void> {
    this.exchangeRows = await this.db.prisma.exchange.findMany()
    // recorded once by the first writing start: read until there is one
    if (this.storeKind === null) this.storeKind = (await readStoreSource(this.db)).kind
  }

  /**
   * Where a venue's data comes from: simulator, live or replay. This process's source for the venues it feeds; on a
   * node that runs none (an API node, MARKET_SOURCE=none), the store's source for venues the store has data of.
   */
  sourceOf(exchange: ExchangeId): StoreSourceKind | null {
    const s = this.sourceChoice?.source
    if (s && s.kind !== 'none') return this.enabled.has(exchange) ? s.kind : null
    return this.storeKind !== null && this.lastEventAt(exchange) !== null ? this.storeKind : null
  }

  async refreshCoins(): Promise<void> {
    const rows = await this.db.prisma.coin.findMany({ orderBy: { symbol: 'asc' } })
    this.coinList = rows.map((r) => r.symbol)
    this.delistings = new Map(rows.filter((r) => r.delistedAt).map((r) => [r.symbol, { at: r.delistedAt!.getTime(), venues: (r.venues ?? []) as ExchangeId[] }]))
  }

  /** a source saw data from this exchange at ts */
  touch(exchange: ExchangeId, ts: number): void {
    if ((this.lastEvent.get(exchange) ?? 0) < ts) this.lastEvent.set(exchange, ts)
  }

  lastEventAt(exchange: ExchangeId): number | null {
    return this.lastEvent.get(exchange) ?? null
  }

  /**
   * Per venue the store knows, how far the newest event this process has seen trails the newest one the store holds
   * (persisted by the venue's writer every data tick), ms. On an API node, whose events come over the bus, this is
   * how far the bus lags behind; a venue that went quiet for everyone trails by nothing.
   */
  behindStore(): Partial<Record<ExchangeId, number>> {
    const out: Partial<Record<ExchangeId, number>> = {}
    for (const row of this.exchangeRows) {
      if (!row.lastEventAt) continue
      out[row.id as ExchangeId] = Math.max(0, row.lastEventAt.getTime() - (this.lastEvent.get(row.id as ExchangeId) ?? 0))
    }
    return out
  }

  /** feed freshness, or 'degraded' while degrade() or refuse() holds for a feed that is not down */
  status(exchange: ExchangeId, now: number): FeedStatus {
    const fresh = feedStatus(this.lastEventAt(exchange), now)
    return fresh !== 'down' && (this.degradedBy.has(exchange) || this.refusedBy.has(exchange)) ? 'degraded' : fresh
  }

  /** the venue refuses this service (its connector saw a 451 or 403) until clearRefusal() */
  refuse(exchange: ExchangeId, reason: string): void {
    this.refusedBy.set(exchange, reason)
  }

  clearRefusal(exchange: ExchangeId): void {
    this.refusedBy.delete(exchange)
  }

  /** why the venue refuses this service, null when it does not */
  refusal(exchange: ExchangeId): string | null {
    return this.refusedBy.get(exchange) ?? null
  }

  /** mark a venue degraded for a reason (replaces an earlier reason) until clearDegraded() */
  degrade(exchange: ExchangeId, reason: string): void {
    this.degradedBy.set(exchange, reason)
  }

  clearDegraded(exchange: ExchangeId): void {
    this.degradedBy.delete(exchange)
  }

  /** the reason given to degrade(), null when the venue is not marked */
  degradedReason(exchange: ExchangeId): string | null {
    return this.degradedBy.get(exchange) ?? null
  }

  /** share of the backfill window that is complete, 0..100 (100 without a backfill) */
  backfillPercent(): number {
    const b = this.backfill
    if (!b || b.done || b.windowTo <= b.windowFrom) return 100
    return Math.max(0, Math.min(100, ((b.windowTo - b.completeFrom) / (b.windowTo - b.windowFrom)) * 100))
  }

  /** persist feed freshness so other API nodes (and restarts) see it */
  async persist(): Promise<void> {
    for (const [id, ts] of this.lastEvent) await this.db.prisma.exchange.update({ where: { id }, data: { lastEventAt: new Date(ts) } })
    await this.refreshExchanges()
  }
}
