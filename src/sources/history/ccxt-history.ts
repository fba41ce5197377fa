// The frame of the Bybit, OKX, Hyperliquid and dYdX history fetchers: one CCXT instance of the venue's connector
// (its implicit methods, so base-URL overrides, the proxy and recordings apply), the connector's markets, the
// venue's "stop" rule for reading failures, and what every venue's pages need (the market's listing, settlements as
// funding events, the page narrowed to what the venue covered).
import type { Exchange } from 'ccxt'
import type { ExchangeId, MarketType } from '../../domain/exchanges.js'
import { MINUTE_MS } from '../../domain/time.js'
import type { FundingEvent } from '../../domain/events.js'
import type { MarketRef } from '../connectors/mapping.js'
import type { Pay } from './binance.js'
import type { StopRule } from './ccxt-budget.js'
import { settlementIntervals, venueCall } from './venue-call.js'
import { VenueHttpError, kindMarketType, type HistoryCost, type HistoryKind, type HistoryPage, type HistoryRequest, type VenueHistory } from '../../domain/venue-history.js'

export interface CcxtHistoryOptions {
  /** the connector's CCXT instance (perp and spot on one instance for Bybit and OKX) */
  ex: Exchange
  /** the connector's markets (after its markets loaded) */
  markets: () => readonly MarketRef[]
  now?: () => number
}

export abstract class CcxtHistory implements VenueHistory {
  abstract readonly venue: ExchangeId
  abstract readonly kinds: ReadonlySet<HistoryKind>
  protected abstract readonly stop: StopRule
  protected readonly now: () => number

  constructor(protected readonly opts: CcxtHistoryOptions) {
    this.now = opts.now ?? Date.now
  }

  abstract cost(kind: HistoryKind): HistoryCost
  abstract retentionMs(kind: HistoryKind): number
  protected abstract page(ref: MarketRef, req: HistoryRequest, pay: Pay): Promise<HistoryPage>

  lists(coin: string, kind: HistoryKind): boolean {
    return this.kinds.has(kind) && this.ref(coin, kindMarketType(kind)) !== undefined
  }

  async fetch(req: HistoryRequest, signal: AbortSignal, pay: Pay = async () => {}): Promise<HistoryPage> {
    if (!this.kinds.has(req.kind)) throw new VenueHttpError(this.venue, null, `${this.venue} serves no ${req.kind} history`)
    const ref = this.ref(req.coin, kindMarketType(req.kind))
    if (!ref) throw new VenueHttpError(this.venue, null, `${this.venue} lists no ${kindMarketType(req.kind)} market for ${req.coin}`)
    if (signal.aborted) throw new VenueHttpError(this.venue, null, 'aborted')
    return this.page(ref, req, pay)
  }

  protected ref(coin: string, marketType: MarketType): MarketRef | undefined {
    return this.opts.markets().find((r) => r.coin === coin && r.marketType === marketType)
  }

  /** one implicit-method call, already paid for */
  protected call(method: string, params: Record<string, unknown>): Promise<unknown> {
    return venueCall(this.venue, this.opts.ex, method, params, this.stop, this.now)
  }

  /** CCXT's market of the ref (its raw instrument in `info`) */
  protected market(ref: MarketRef): { created?: unknown; info?: unknown; baseName?: unknown } | undefined {
    return this.opts.ex.markets?.[ref.symbol] as { created?: unknown; info?: unknown; baseName?: unknown } | undefined
  }

  /** when the market was listed, where CCXT's market says (Bybit linear launchTime, OKX listTime); null otherwise */
  protected listedAt(ref: MarketRef): number | null {
    const created = Number(this.market(ref)?.created)
    return Number.isFinite(created) && created > 0 ? created : null
  }

  /** the page's cut at the market's listing, when it falls inside the page (on the step grid of the kind) */
  protected listingCut(ref: MarketRef, req: HistoryRequest, stepMs = MINUTE_MS): HistoryPage['exhaustedBefore'] {
    const listed = this.listedAt(ref)
    return listed !== null && listed > req.from ? { ts: Math.ceil(listed / stepMs) * stepMs, reason: 'listing' } : undefined
  }

  /** settlements (ascending) as settled funding, each with the interval it covered (venue-call.ts settlementIntervals) */
  protected fundingEvents(ref: MarketRef, rows: readonly { ts: number; rate: number }[], statedHours: number): FundingEvent[] {
    const hours = settlementIntervals(rows.map((r) => r.ts), statedHours)
    return rows.map((r, i) => ({ type: 'funding', exchange: ref.exchange, coin: ref.coin, marketType: 'perp', ts: r.ts, rate: r.rate, intervalHours: hours[i]!, source: 'venue_history' }))
  }
}
