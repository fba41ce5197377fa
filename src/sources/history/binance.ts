// Binance's REST history through the connector's own CCXT instances (implicit methods, so base-URL overrides, the
// proxy and recordings apply): 1-minute klines of the USD-M perp (/fapi/v1/klines, 1 500 a page) and of the spot
// pair (/api/v3/klines, 1 000), open interest every 5 minutes (/futures/data/openInterestHist, 500 a page, last 30
// days), settled funding (/fapi/v1/fundingRate, 1 000 a page, each stamped with the interval /fapi/v1/fundingInfo
// states, else 8 h) and the long/short ratios every 5 minutes (globalLongShortAccountRatio and
// topLongShortPositionRatio, 500 a page each, last 30 days). Liquidations have no REST history on Binance.
import type { Exchange } from 'ccxt'
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../domain/time.js'
import type { MarketType } from '../../domain/exchanges.js'
import type { MarketRef } from '../connectors/mapping.js'
import type { Draw } from './budget.js'
import { paidCall } from './ccxt-budget.js'
import { callRaw } from '../connectors/ccxt-access.js'
import { binanceKlinesWeight } from './limits.js'
import { httpStopRule } from './ccxt-budget.js'
import { binanceFundingEvents, binanceFundingInfo, binanceKlineBars, binanceOiEvents, binancePositioningEvents } from './binance-pages.js'
import { VenueHttpError, kindMarketType, type HistoryCost, type HistoryKind, type HistoryPage, type HistoryRequest, type VenueHistory } from '../../domain/venue-history.js'

const PERP_KLINES = 1500
const SPOT_KLINES = 1000
const STATS_LIMIT = 500
const FUNDING_LIMIT = 1000
const STATS_PERIOD_MS = 5 * MINUTE_MS
/** /futures/data statistics: "only the data of the latest 30 days is available" */
const STATS_RETENTION_MS = 30 * DAY_MS
const DEFAULT_FUNDING_HOURS = 8
const FUNDING_INFO_EVERY_MS = HOUR_MS

const COSTS: Record<Exclude<HistoryKind, 'liquidations'>, HistoryCost> = {
  candles_perp: { weight: binanceKlinesWeight('perp', PERP_KLINES), pageSpanMs: PERP_KLINES * MINUTE_MS, pool: 'fapi' },
  candles_spot: { weight: binanceKlinesWeight('spot', SPOT_KLINES), pageSpanMs: SPOT_KLINES * MINUTE_MS, pool: 'spot' },
  open_interest: { weight: 1, pageSpanMs: STATS_LIMIT * STATS_PERIOD_MS, pool: 'futures_data' },
  // the shortest interval Binance uses is 1 h: a page of 1 000 settlements spans at least 1 000 h
  funding: { weight: 1, pageSpanMs: FUNDING_LIMIT * HOUR_MS, pool: 'fapi_funding' },
  // two calls a page: the accounts ratio and the top traders' position ratio
  long_short: { weight: 2, pageSpanMs: STATS_LIMIT * STATS_PERIOD_MS, pool: 'futures_data' },
}

export interface BinanceHistoryOptions {
  perp: Exchange
  spot?: Exchange
  /** the connector's markets (after its markets loaded) */
  markets: () => readonly MarketRef[]
  now?: () => number
}

/** a call the page pays for besides its own (the listing probe, fundingInfo), drawn from the budget by the runner */
export type Pay = (draws: Draw[]) => Promise<void>

export class BinanceHistory implements VenueHistory {
  readonly venue = 'binance' as const
  readonly kinds: ReadonlySet<HistoryKind> = new Set<HistoryKind>(['candles_perp', 'candles_spot', 'open_interest', 'funding', 'long_short'])
  private readonly now: () => number
  private fundingInfo: { at: number; hours: Map<string, number> } | null = null
  private readonly listings = new Map<string, number | null>()

  constructor(private readonly opts: BinanceHistoryOptions) {
    this.now = opts.now ?? Date.now
  }

  cost(kind: HistoryKind): HistoryCost {
    if (kind === 'liquidations') throw new Error('binance serves no liquidation history')
    return COSTS[kind]
  }

  retentionMs(kind: HistoryKind): number {
    return kind === 'open_interest' || kind === 'long_short' ? STATS_RETENTION_MS : Infinity
  }

  lists(coin: string, kind: HistoryKind): boolean {
    return this.kinds.has(kind) && this.ref(coin, kindMarketType(kind)) !== undefined && (kind !== 'candles_spot' || this.opts.spot !== undefined)
  }

  private ref(coin: string, marketType: MarketType): MarketRef | undefined {
    return this.opts.markets().find((r) => r.coin === coin && r.marketType === marketType)
  }

  async fetch(req: HistoryRequest, signal: AbortSignal, pay: Pay = async () => {}): Promise<HistoryPage> {
    const ref = this.ref(req.coin, kindMarketType(req.kind))
    if (!ref) throw new VenueHttpError('binance', null, `binance lists no ${kindMarketType(req.kind)} market for ${req.coin}`)
    if (signal.aborted) throw new VenueHttpError('binance', null, 'aborted')
    switch (req.kind) {
      case 'candles_perp':
      case 'candles_spot':
        return this.klines(ref, req, pay)
      case 'open_interest': {
        const rows = await this.call(this.opts.perp, 'fapiDataGetOpenInterestHist', this.statsQuery(ref, req))
        const events = binanceOiEvents(ref, rows)
        return { from: req.from, to: this.pageEnd(req, events, rowsLength(rows) >= STATS_LIMIT, STATS_PERIOD_MS), bars: [], events }
      }
      case 'long_short': {
        const q = this.statsQuery(ref, req)
        const [acc, top] = [await this.call(this.opts.perp, 'fapiDataGetGlobalLongShortAccountRatio', q), await this.call(this.opts.perp, 'fapiDataGetTopLongShortPositionRatio', q)]
        const a = binancePositioningEvents(ref, 'account', acc)
        const t = binancePositioningEvents(ref, 'top_position', top)
        const to = Math.min(this.pageEnd(req, a, rowsLength(acc) >= STATS_LIMIT, STATS_PERIOD_MS), this.pageEnd(req, t, rowsLength(top) >= STATS_LIMIT, STATS_PERIOD_MS))
        return { from: req.from, to, bars: [], events: [...a, ...t].filter((e) => e.ts < to) }
      }
      case 'funding': {
        const hours = await this.fundingHours(ref, pay)
        const rows = await this.call(this.opts.perp, 'fapiPublicGetFundingRate', { symbol: ref.id, startTime: req.from, endTime: req.to - 1, limit: FUNDING_LIMIT })
        const events = binanceFundingEvents(ref, rows, hours)
        return { from: req.from, to: this.pageEnd(req, events, rowsLength(rows) >= FUNDING_LIMIT, 1), bars: [], events }
      }
      default:
        throw new VenueHttpError('binance', null, `binance serves no ${req.kind} history`)
    }
  }

  private statsQuery(ref: MarketRef, req: HistoryRequest) {
    return { symbol: ref.id, period: '5m', startTime: req.from, endTime: req.to - 1, limit: STATS_LIMIT }
  }

  /** a full page may stop short of `to`: it covers up to its newest row (the planner asks again for the rest) */
  private pageEnd(req: HistoryRequest, rows: readonly { ts: number }[], full: boolean, stepMs: number): number {
    if (!full || !rows.length) return req.to
    return Math.min(req.to, Math.max(...rows.map((r) => r.ts)) + stepMs)
  }

  private async klines(ref: MarketRef, req: HistoryRequest, pay: Pay): Promise<HistoryPage> {
    const perp = ref.marketType === 'perp'
    const ex = perp ? this.opts.perp : this.opts.spot!
    const limit = perp ? PERP_KLINES : SPOT_KLINES
    const rows = await this.call(ex, perp ? 'fapiPublicGetKlines' : 'publicGetKlines', { symbol: ref.id, interval: '1m', startTime: req.from, endTime: req.to - 1, limit })
    const bars = binanceKlineBars(ref, rows).filter((b) => b.ts >= req.from && b.ts < req.to)
    const page: HistoryPage = { from: req.from, to: this.pageEnd(req, bars, rowsLength(rows) >= limit, MINUTE_MS), bars, events: [] }
    // nothing from the window's start: the market may not have been listed yet
    if (!bars.length || bars[0]!.ts > req.from) {
      const listed = await this.listing(ex, ref, pay)
      if (listed !== null && listed > req.from) page.exhaustedBefore = { ts: Math.ceil(listed / MINUTE_MS) * MINUTE_MS, reason: 'listing' }
    }
    return page
  }

  /** when the market's first minute was: the perp's onboardDate (CCXT `created`), else its first kline ever (one call) */
  private async listing(ex: Exchange, ref: MarketRef, pay: Pay): Promise<number | null> {
    const key = `${ref.marketType}:${ref.coin}`
    if (this.listings.has(key)) return this.listings.get(key)!
    const created = Number((ex.markets?.[ref.symbol] as { created?: unknown } | undefined)?.created)
    let first: number | null = Number.isFinite(created) && created > 0 ? created : null
    if (first === null) {
      const perp = ref.marketType === 'perp'
      await pay([{ pool: perp ? 'fapi' : 'spot', weight: binanceKlinesWeight(ref.marketType, 1) }])
      const rows = await this.call(ex, perp ? 'fapiPublicGetKlines' : 'publicGetKlines', { symbol: ref.id, interval: '1m', startTime: 0, limit: 1 })
      first = binanceKlineBars(ref, rows)[0]?.ts ?? null
    }
    this.listings.set(key, first)
    return first
  }

  /** the interval /fapi/v1/fundingInfo states for the symbol (re-read hourly), else Binance's default 8 h */
  private async fundingHours(ref: MarketRef, pay: Pay): Promise<number> {
    if (!this.fundingInfo || this.now() - this.fundingInfo.at >= FUNDING_INFO_EVERY_MS) {
      await pay([{ pool: 'fapi_funding', weight: 1 }])
      this.fundingInfo = { at: this.now(), hours: binanceFundingInfo(await this.call(this.opts.perp, 'fapiPublicGetFundingInfo', {})) }
    }
    return this.fundingInfo.hours.get(ref.id) ?? DEFAULT_FUNDING_HOURS
  }

  /** one implicit-method call, already paid for; its failure as a VenueHttpError with the status and how long to wait */
  private async call(ex: Exchange, method: string, params: Record<string, unknown>): Promise<unknown> {
    const r = await paidCall(() => callRaw(ex, method, params))
    if ('value' in r) return r.value
    const { status, headers, body } = r.record
    const stop = status === null ? null : httpStopRule(status, headers, body ?? '', this.now())
    const message = r.error instanceof Error ? r.error.message : String(r.error)
    throw new VenueHttpError('binance', status, message, stop ? Math.max(0, stop.until - this.now()) : null)
  }
}

const rowsLength = (body: unknown) => (Array.isArray(body) ? body.length : 0)
