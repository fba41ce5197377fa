// Hyperliquid history through the connector's CCXT instance (POST /info, implicit publicPostInfo): 1-minute candles
// of the perp ({type: candleSnapshot}, the newest 5 000 candles of an interval only: 1-minute history reaches back
// about 3.5 days) and settled funding ({type: fundingHistory}, hourly, from startTime up). Both answer oldest first;
// a time-range answer stops at 500 rows (page by the last row's time). Hyperliquid publishes no open-interest and no
// long/short history (not_published: coverage says the service's own polls are all there is) and no liquidations.
import { HOUR_MS, MINUTE_MS } from '../../domain/time.js'
import type { MarketRef } from '../connectors/mapping.js'
import type { Pay } from './binance.js'
import { klineMinuteBar } from '../../domain/minute-bars.js'
import { CcxtHistory } from './ccxt-history.js'
import { httpStopRule } from './ccxt-budget.js'
import { hyperliquidFundingRows, hyperliquidKlines } from './dex-pages.js'
import { HYPERLIQUID_CANDLES, hyperliquidInfoWeight } from './limits.js'
import { klinesIn, oldestFirstTo } from './venue-call.js'
import type { HistoryCost, HistoryKind, HistoryPage, HistoryRequest } from '../../domain/venue-history.js'

/** "Responses that take a time range will only return 500 elements": the next page starts after the last row */
const RANGE_CAP = 500
/** Hyperliquid settles funding every hour */
const FUNDING_HOURS = 1

const COSTS: Partial<Record<HistoryKind, HistoryCost>> = {
  // 20 + 1 per 60 candles, paid for a full answer
  candles_perp: { weight: hyperliquidInfoWeight(HYPERLIQUID_CANDLES, 60), pageSpanMs: HYPERLIQUID_CANDLES * MINUTE_MS, pool: 'ip' },
  // 20 + 1 per 20 rows; 499 hourly settlements at most in a page's span, so a capped answer means a cut one
  funding: { weight: hyperliquidInfoWeight(RANGE_CAP, 20), pageSpanMs: (RANGE_CAP - 1) * HOUR_MS, pool: 'ip' },
}

export class HyperliquidHistory extends CcxtHistory {
  readonly venue = 'hyperliquid' as const
  readonly kinds: ReadonlySet<HistoryKind> = new Set<HistoryKind>(['candles_perp', 'funding'])
  protected readonly stop = httpStopRule
  /** per market: a candle exists at or before this time (the listing probe need not ask again above it) */
  private readonly olderThan = new Map<string, number>()

  cost(kind: HistoryKind): HistoryCost {
    const c = COSTS[kind]
    if (!c) throw new Error(`hyperliquid publishes no ${kind} history`)
    return c
  }

  /** "Only the most recent 5000 candles are available" (1-minute: 5 000 minutes); funding is kept whole */
  retentionMs(kind: HistoryKind): number {
    return kind === 'candles_perp' ? HYPERLIQUID_CANDLES * MINUTE_MS : Infinity
  }

  /** the coin name Hyperliquid's /info knows the perp by (CCXT's baseName: BTC, kPEPE) */
  private coinName(ref: MarketRef): string {
    const name = this.market(ref)?.baseName
    return typeof name === 'string' && name ? name : ref.coin
  }

  protected async page(ref: MarketRef, req: HistoryRequest, pay: Pay): Promise<HistoryPage> {
    const coin = this.coinName(ref)
    if (req.kind === 'funding') {
      const rows = hyperliquidFundingRows(await this.call('publicPostInfo', { type: 'fundingHistory', coin, startTime: req.from, endTime: req.to - 1 }))
      const to = oldestFirstTo(req, rows.map((r) => r.ts), RANGE_CAP, 1)
      const inPage = rows.filter((r) => r.ts >= req.from && r.ts < to)
      return { from: req.from, to, bars: [], events: this.fundingEvents(ref, inPage, FUNDING_HOURS) }
    }
    if (req.kind !== 'candles_perp') throw new Error(`hyperliquid publishes no ${req.kind} history`)
    const body = await this.call('publicPostInfo', { type: 'candleSnapshot', req: { coin, interval: '1m', startTime: req.from, endTime: req.to - 1 } })
    const all = hyperliquidKlines(body)
    const to = oldestFirstTo(req, all.map((k) => k.ts), RANGE_CAP, MINUTE_MS)
    const klines = klinesIn(all, req.from, to)
    const page: HistoryPage = { from: req.from, to, bars: klines.map((k) => klineMinuteBar(ref, k)), events: [] }
    if (!klines.length || klines[0]!.ts > req.from) {
      const cut = await this.probeListing(ref, coin, req, klines[0]?.ts ?? to, pay)
      if (cut) page.exhaustedBefore = cut
    }
    return page
  }

  /**
   * Hyperliquid states no listing time: once per market, one candleSnapshot from the epoch to just before the first
   * candle found says whether the venue keeps anything older; nothing means the market starts there.
   */
  private async probeListing(ref: MarketRef, coin: string, req: HistoryRequest, firstTs: number, pay: Pay): Promise<HistoryPage['exhaustedBefore']> {
    const older = this.olderThan.get(ref.coin)
    if (older !== undefined && older < firstTs) return undefined
    await pay([{ pool: 'ip', weight: hyperliquidInfoWeight(HYPERLIQUID_CANDLES, 60) }])
    const before = hyperliquidKlines(await this.call('publicPostInfo', { type: 'candleSnapshot', req: { coin, interval: '1m', startTime: 0, endTime: firstTs - 1 } })).filter((k) => k.ts < firstTs)
    if (before.length) {
      this.olderThan.set(ref.coin, before.at(-1)!.ts)
      return undefined
    }
    return firstTs > req.from ? { ts: firstTs, reason: 'listing' } : undefined
  }
}
