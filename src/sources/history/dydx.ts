// dYdX v4 history from the public indexer through the connector's CCXT instance (implicit indexer methods): 1-minute
// candles (/v4/candles/perpetualMarkets/{ticker}?resolution=1MIN, 1 000 a page: the indexer's API_LIMIT_V4), open
// interest every 5 minutes from the 5-minute candles' startingOpenInterest (resolution=5MINS, 1 000 a page: the open
// interest the moment each candle opened) and settled hourly funding (/v4/historicalFunding/{ticker}, 1 000 a page,
// effectiveBeforeOrAt). Both answer newest first (candles between fromISO and toISO). Candles carry no taker split.
// No long/short figures exist on dYdX; liquidations arrive with the live trades only.
import { HOUR_MS, MINUTE_MS } from '../../domain/time.js'
import type { MarketRef } from '../connectors/mapping.js'
import type { Pay } from './binance.js'
import { klineMinuteBar } from '../../domain/minute-bars.js'
import { CcxtHistory } from './ccxt-history.js'
import { dydxFundingRows, dydxKlines, dydxOiEvents } from './dex-pages.js'
import { SETTLEMENT_GAP_MS, klinesIn, newestFirstFrom } from './venue-call.js'
import { dydxStopRule } from './venue-stops.js'
import type { HistoryCost, HistoryKind, HistoryPage, HistoryRequest } from '../../domain/venue-history.js'

/** comlink's API_LIMIT_V4: the most rows one indexer answer holds */
const LIMIT = 1000
const FIVE_MINUTES = 5 * MINUTE_MS
/** dYdX settles funding every hour */
const FUNDING_HOURS = 1
const RESOLUTION: Record<number, string> = { [MINUTE_MS]: '1MIN', [FIVE_MINUTES]: '5MINS' }
const iso = (ms: number) => new Date(ms).toISOString()

const COSTS: Partial<Record<HistoryKind, HistoryCost>> = {
  candles_perp: { weight: 1, pageSpanMs: LIMIT * MINUTE_MS, pool: 'indexer' },
  open_interest: { weight: 1, pageSpanMs: LIMIT * FIVE_MINUTES, pool: 'indexer' },
  // 999 hourly settlements at most in a page's span, so a full answer means a cut one
  funding: { weight: 1, pageSpanMs: (LIMIT - 1) * HOUR_MS, pool: 'indexer' },
}

export class DydxHistory extends CcxtHistory {
  readonly venue = 'dydx' as const
  readonly kinds: ReadonlySet<HistoryKind> = new Set<HistoryKind>(['candles_perp', 'open_interest', 'funding'])
  protected readonly stop = dydxStopRule
  /** per market: a candle exists at or before this time (the listing probe need not ask again above it) */
  private readonly olderThan = new Map<string, number>()

  cost(kind: HistoryKind): HistoryCost {
    const c = COSTS[kind]
    if (!c) throw new Error(`dydx publishes no ${kind} history`)
    return c
  }

  retentionMs(): number {
    return Infinity
  }

  protected async page(ref: MarketRef, req: HistoryRequest, pay: Pay): Promise<HistoryPage> {
    if (req.kind === 'funding') {
      const body = await this.call('indexerGetHistoricalFundingMarket', { market: ref.id, effectiveBeforeOrAt: iso(req.to - 1), limit: LIMIT })
      // the answer is the newest LIMIT settlements up to `to`: a full one inside the span may be cut
      const rows = dydxFundingRows(body).filter((r) => r.ts >= req.from && r.ts < req.to)
      return { from: newestFirstFrom(req, rows.map((r) => r.ts), LIMIT, SETTLEMENT_GAP_MS), to: req.to, bars: [], events: this.fundingEvents(ref, rows, FUNDING_HOURS) }
    }
    const step = req.kind === 'open_interest' ? FIVE_MINUTES : MINUTE_MS
    if (req.kind !== 'open_interest' && req.kind !== 'candles_perp') throw new Error(`dydx publishes no ${req.kind} history`)
    const body = await this.call('indexerGetCandlesPerpetualMarketsMarket', { market: ref.id, resolution: RESOLUTION[step], fromISO: iso(req.from), toISO: iso(req.to - 1), limit: LIMIT })
    const page: HistoryPage = { from: req.from, to: req.to, bars: [], events: [] }
    let stamps: number[]
    if (req.kind === 'open_interest') {
      page.events = dydxOiEvents(ref, body).filter((e) => e.ts >= req.from && e.ts < req.to && e.ts % FIVE_MINUTES === 0)
      stamps = page.events.map((e) => e.ts)
    } else {
      const klines = klinesIn(dydxKlines(body), req.from, req.to)
      page.bars = klines.map((k) => klineMinuteBar(ref, k))
      stamps = klines.map((k) => k.ts)
    }
    page.from = newestFirstFrom(req, stamps, LIMIT, step)
    const first = stamps.length ? Math.min(...stamps) : req.to
    if (page.from === req.from && first - step >= req.from) {
      const cut = await this.probeListing(ref, req, first, step, pay)
      if (cut) page.exhaustedBefore = cut
    }
    return page
  }

  /**
   * The indexer states no listing time and has a candle for every minute of a market's life (zero volume included):
   * one call for the newest candle before `firstTs` (toISO only, limit 1) says whether anything older exists;
   * nothing means the market starts at `firstTs`.
   */
  private async probeListing(ref: MarketRef, req: HistoryRequest, firstTs: number, step: number, pay: Pay): Promise<HistoryPage['exhaustedBefore']> {
    const older = this.olderThan.get(ref.coin)
    if (older !== undefined && older < firstTs) return undefined
    await pay([{ pool: 'indexer', weight: 1 }])
    const body = await this.call('indexerGetCandlesPerpetualMarketsMarket', { market: ref.id, resolution: RESOLUTION[step], toISO: iso(firstTs - 1), limit: 1 })
    const before = dydxKlines(body).filter((k) => k.ts < firstTs).at(-1)
    if (before) {
      this.olderThan.set(ref.coin, before.ts)
      return undefined
    }
    return firstTs > req.from ? { ts: firstTs, reason: 'listing' } : undefined
  }
}
