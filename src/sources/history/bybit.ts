// Bybit v5 REST history through the connector's CCXT instance (implicit methods): 1-minute klines of the linear perp
// and the spot pair (/v5/market/kline, 1 000 a page), open interest every 5 minutes (/v5/market/open-interest, 200 a
// page), settled funding (/v5/market/funding/history, 200 a page) and the accounts long/short ratio every 5 minutes
// (/v5/market/account-ratio, 500 a page). Every list comes newest first; pages are asked by startTime/endTime (the
// cursors are not needed: a page spans at most one page size). Bybit keeps them from the symbol's launch (the ratio
// from 2020-07-20). Klines carry no taker split and no trade count. No liquidation history by REST.
import { HOUR_MS, MINUTE_MS } from '../../domain/time.js'
import { bybitPositioningRows } from '../connectors/positioning.js'
import type { MarketRef } from '../connectors/mapping.js'
import type { Pay } from './binance.js'
import { bybitFundingRows, bybitKlines, bybitList, bybitOiEvents, bybitStatedIntervalHours } from './bybit-pages.js'
import { klineMinuteBar } from '../../domain/minute-bars.js'
import { CcxtHistory } from './ccxt-history.js'
import { SETTLEMENT_GAP_MS, klinesIn, newestFirstFrom } from './venue-call.js'
import { bybitStopRule } from './venue-stops.js'
import type { HistoryCost, HistoryKind, HistoryPage, HistoryRequest } from '../../domain/venue-history.js'

const KLINES = 1000
const OI_LIMIT = 200
const FUNDING_LIMIT = 200
const RATIO_LIMIT = 500
const FIVE_MINUTES = 5 * MINUTE_MS
/** Bybit's default funding interval, for an instrument that states none */
const DEFAULT_FUNDING_HOURS = 8

const COSTS: Record<Exclude<HistoryKind, 'liquidations'>, HistoryCost> = {
  candles_perp: { weight: 1, pageSpanMs: KLINES * MINUTE_MS, pool: 'ip' },
  candles_spot: { weight: 1, pageSpanMs: KLINES * MINUTE_MS, pool: 'ip' },
  open_interest: { weight: 1, pageSpanMs: OI_LIMIT * FIVE_MINUTES, pool: 'ip' },
  // the shortest interval Bybit uses is 1 h: 199 h hold at most 199 settlements, so a full page means a cut one
  funding: { weight: 1, pageSpanMs: (FUNDING_LIMIT - 1) * HOUR_MS, pool: 'ip' },
  long_short: { weight: 1, pageSpanMs: RATIO_LIMIT * FIVE_MINUTES, pool: 'ip' },
}

export class BybitHistory extends CcxtHistory {
  readonly venue = 'bybit' as const
  readonly kinds: ReadonlySet<HistoryKind> = new Set<HistoryKind>(['candles_perp', 'candles_spot', 'open_interest', 'funding', 'long_short'])
  protected readonly stop = bybitStopRule
  /** per spot market: a kline exists at or before this time (the listing probe need not ask again above it) */
  private readonly olderThan = new Map<string, number>()

  cost(kind: HistoryKind): HistoryCost {
    if (kind === 'liquidations') throw new Error('bybit serves no liquidation history')
    return COSTS[kind]
  }

  retentionMs(): number {
    return Infinity
  }

  protected async page(ref: MarketRef, req: HistoryRequest, pay: Pay): Promise<HistoryPage> {
    const range = { startTime: req.from, endTime: req.to - 1 }
    switch (req.kind) {
      case 'candles_perp':
      case 'candles_spot':
        return this.klines(ref, req, pay)
      case 'open_interest': {
        const body = await this.call('publicGetV5MarketOpenInterest', { category: 'linear', symbol: ref.id, intervalTime: '5min', ...range, limit: OI_LIMIT })
        const events = bybitOiEvents(ref, body).filter((e) => e.ts >= req.from && e.ts < req.to)
        return { from: newestFirstFrom(req, events.map((e) => e.ts), OI_LIMIT, FIVE_MINUTES), to: req.to, bars: [], events, exhaustedBefore: this.listingCut(ref, req, FIVE_MINUTES) }
      }
      case 'funding': {
        const body = await this.call('publicGetV5MarketFundingHistory', { category: 'linear', symbol: ref.id, ...range, limit: FUNDING_LIMIT })
        const rows = bybitFundingRows(body).filter((r) => r.ts >= req.from && r.ts < req.to)
        const stated = bybitStatedIntervalHours(this.market(ref)?.info) ?? DEFAULT_FUNDING_HOURS
        return { from: newestFirstFrom(req, rows.map((r) => r.ts), FUNDING_LIMIT, SETTLEMENT_GAP_MS), to: req.to, bars: [], events: this.fundingEvents(ref, rows, stated) }
      }
      case 'long_short': {
        const body = await this.call('publicGetV5MarketAccountRatio', { category: 'linear', symbol: ref.id, period: '5min', ...range, limit: RATIO_LIMIT })
        const events = bybitPositioningRows(ref, body).map((e) => ({ ...e, source: 'venue_history' as const })).filter((e) => e.ts >= req.from && e.ts < req.to)
        return { from: newestFirstFrom(req, events.map((e) => e.ts), RATIO_LIMIT, FIVE_MINUTES), to: req.to, bars: [], events, exhaustedBefore: this.listingCut(ref, req, FIVE_MINUTES) }
      }
      default:
        throw new Error(`bybit serves no ${req.kind} history`)
    }
  }

  private async klines(ref: MarketRef, req: HistoryRequest, pay: Pay): Promise<HistoryPage> {
    const category = ref.marketType === 'perp' ? 'linear' : 'spot'
    const body = await this.call('publicGetV5MarketKline', { category, symbol: ref.id, interval: '1', start: req.from, end: req.to - 1, limit: KLINES })
    const klines = klinesIn(bybitKlines(ref, body), req.from, req.to)
    const page: HistoryPage = { from: newestFirstFrom(req, klines.map((k) => k.ts), KLINES, MINUTE_MS), to: req.to, bars: klines.map((k) => klineMinuteBar(ref, k)), events: [] }
    if (page.from > req.from || (klines.length && klines[0]!.ts === req.from)) return page
    // nothing from the span's start: before the market's listing?
    const cut = this.listingCut(ref, req) ?? (this.listedAt(ref) === null ? await this.probeListing(ref, req, klines[0]?.ts ?? req.to, pay) : undefined)
    if (cut) page.exhaustedBefore = cut
    return page
  }

  /**
   * A spot pair states no launch time: one kline call for the newest kline before `firstTs` (limit 1, end only) says
   * whether anything older exists; nothing means the market starts at `firstTs`.
   */
  private async probeListing(ref: MarketRef, req: HistoryRequest, firstTs: number, pay: Pay): Promise<HistoryPage['exhaustedBefore']> {
    const key = `${ref.marketType}:${ref.coin}`
    const older = this.olderThan.get(key)
    if (older !== undefined && older < firstTs) return undefined
    await pay([{ pool: 'ip', weight: 1 }])
    const body = await this.call('publicGetV5MarketKline', { category: ref.marketType === 'perp' ? 'linear' : 'spot', symbol: ref.id, interval: '1', end: firstTs - 1, limit: 1 })
    const before = bybitList(body).length ? bybitKlines(ref, body)[0]?.ts : undefined
    if (before !== undefined && before < firstTs) {
      this.olderThan.set(key, before)
      return undefined
    }
    return firstTs > req.from ? { ts: firstTs, reason: 'listing' } : undefined
  }
}
