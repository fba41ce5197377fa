// OKX v5 REST history through the connector's CCXT instance (implicit methods): 1-minute candles of the USDT SWAP and
// the spot pair (/api/v5/market/history-candles, 300 a page, kept for years), open interest every 5 minutes
// (/api/v5/rubik/stat/contracts/open-interest-history, 100 a page, the newest 1 440 periods: 5 days), settled funding
// (/api/v5/public/funding-rate-history, 400 a page, three months) and the accounts long/short ratio every 5 minutes
// (/api/v5/rubik/stat/contracts/long-short-account-ratio-contract, 100 a page, the newest 1 440 periods). Rows come
// newest first; a page is asked by its bounds (after/before, end/begin: "earlier than" and "newer than" a stamp).
// Candles carry no taker split and no trade count. No liquidation history is asked (the live stream has them).
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../../domain/time.js'
import { okxPositioningRows } from '../connectors/positioning.js'
import type { MarketRef } from '../connectors/mapping.js'
import { klineMinuteBar } from '../../domain/minute-bars.js'
import { CcxtHistory } from './ccxt-history.js'
import { okxFundingRows, okxKlines, okxOiEvents } from './okx-pages.js'
import { SETTLEMENT_GAP_MS, klinesIn, newestFirstFrom } from './venue-call.js'
import { okxStopRule } from './venue-stops.js'
import type { HistoryCost, HistoryKind, HistoryPage, HistoryRequest } from '../../domain/venue-history.js'

const CANDLES = 300
const STATS_LIMIT = 100
const FUNDING_LIMIT = 400
const FIVE_MINUTES = 5 * MINUTE_MS
/** the rubik statistics keep "the latest 1,440 data entries" of a period */
const STATS_RETENTION_MS = 1440 * FIVE_MINUTES
/** funding-rate-history "can return data up to three months" (the shortest three months) */
const FUNDING_RETENTION_MS = 89 * DAY_MS
/** OKX's default funding interval, for a page whose spacing says nothing */
const DEFAULT_FUNDING_HOURS = 8

const COSTS: Record<Exclude<HistoryKind, 'liquidations'>, HistoryCost> = {
  candles_perp: { weight: 1, pageSpanMs: CANDLES * MINUTE_MS, pool: 'history_candles' },
  candles_spot: { weight: 1, pageSpanMs: CANDLES * MINUTE_MS, pool: 'history_candles' },
  open_interest: { weight: 1, pageSpanMs: STATS_LIMIT * FIVE_MINUTES, pool: 'oi_history' },
  // the shortest interval OKX uses is 1 h: 399 h hold at most 399 settlements, so a full page means a cut one
  funding: { weight: 1, pageSpanMs: (FUNDING_LIMIT - 1) * HOUR_MS, pool: 'funding_history' },
  long_short: { weight: 1, pageSpanMs: STATS_LIMIT * FIVE_MINUTES, pool: 'long_short' },
}

export class OkxHistory extends CcxtHistory {
  readonly venue = 'okx' as const
  readonly kinds: ReadonlySet<HistoryKind> = new Set<HistoryKind>(['candles_perp', 'candles_spot', 'open_interest', 'funding', 'long_short'])
  protected readonly stop = okxStopRule

  cost(kind: HistoryKind): HistoryCost {
    if (kind === 'liquidations') throw new Error('okx history serves no liquidations')
    return COSTS[kind]
  }

  retentionMs(kind: HistoryKind): number {
    return kind === 'open_interest' || kind === 'long_short' ? STATS_RETENTION_MS : kind === 'funding' ? FUNDING_RETENTION_MS : Infinity
  }

  protected async page(ref: MarketRef, req: HistoryRequest): Promise<HistoryPage> {
    // bounds one off the span on both sides: the rows strictly between are [from, to) whichever way OKX reads them
    const stats = { instId: ref.id, period: '5m', begin: req.from - 1, end: req.to - 1, limit: STATS_LIMIT }
    switch (req.kind) {
      case 'candles_perp':
      case 'candles_spot': {
        const body = await this.call('publicGetMarketHistoryCandles', { instId: ref.id, bar: '1m', after: req.to - 1, before: req.from - 1, limit: CANDLES })
        const klines = klinesIn(okxKlines(ref, body), req.from, req.to)
        const page: HistoryPage = { from: newestFirstFrom(req, klines.map((k) => k.ts), CANDLES, MINUTE_MS), to: req.to, bars: klines.map((k) => klineMinuteBar(ref, k)), events: [] }
        const cut = this.listingCut(ref, req)
        if (cut) page.exhaustedBefore = cut
        return page
      }
      case 'open_interest': {
        const events = okxOiEvents(ref, await this.call('publicGetRubikStatContractsOpenInterestHistory', stats)).filter((e) => e.ts >= req.from && e.ts < req.to)
        return { from: newestFirstFrom(req, events.map((e) => e.ts), STATS_LIMIT, FIVE_MINUTES), to: req.to, bars: [], events, exhaustedBefore: this.listingCut(ref, req, FIVE_MINUTES) }
      }
      case 'funding': {
        const body = await this.call('publicGetPublicFundingRateHistory', { instId: ref.id, after: req.to - 1, before: req.from - 1, limit: FUNDING_LIMIT })
        const rows = okxFundingRows(body).filter((r) => r.ts >= req.from && r.ts < req.to)
        return { from: newestFirstFrom(req, rows.map((r) => r.ts), FUNDING_LIMIT, SETTLEMENT_GAP_MS), to: req.to, bars: [], events: this.fundingEvents(ref, rows, DEFAULT_FUNDING_HOURS) }
      }
      case 'long_short': {
        const events = okxPositioningRows(ref, await this.call('publicGetRubikStatContractsLongShortAccountRatioContract', stats)).map((e) => ({ ...e, source: 'venue_history' as const })).filter((e) => e.ts >= req.from && e.ts < req.to)
        return { from: newestFirstFrom(req, events.map((e) => e.ts), STATS_LIMIT, FIVE_MINUTES), to: req.to, bars: [], events, exhaustedBefore: this.listingCut(ref, req, FIVE_MINUTES) }
      }
      default:
        throw new Error(`okx serves no ${req.kind} history`)
    }
  }
}
