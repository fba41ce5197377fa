// Bybit v5: linear USDT perpetuals (category=linear) and spot through one CCXT `bybit` instance.
import ccxt, { type Exchange, type FundingRate } from 'ccxt'
import type { OpenInterestEvent, TickerEvent } from '../../domain/events.js'
import { callRaw, setOption, skipCurrencies } from './ccxt-access.js'
import { ExchangeConnector } from './connector.js'
import { applyVenueAccess } from './venue-access.js'
import { spotTickerEvents } from './market-polls.js'
import type { ConnectorOptions } from './connector-options.js'
import { coinSize, partsFromFundingRate, tickerEvent, type BookDepth, type MarketRef } from './mapping.js'
import { num } from '../../domain/numbers.js'
import { parseBybitRiskLimit, type FetchedTiers } from '../../read/tiers/venue-tables.js'
import { bybitLiquidation, watchLiquidationLoops } from './liquidations.js'
import type { Supervisor } from './supervisor.js'
import type { LiquidationStream } from './liveness.js'
import type { LiquidationEvent } from '../../domain/events.js'

/** orderbook.1000.<symbol>: the deepest public ws depth (CCXT accepts 1, 50, 200, 1000). */
const BOOK_LIMIT = 1000
/** GET /v5/market/orderbook caps: linear 500, spot 200. */
const REST_BOOK_LIMIT = { perp: 500, spot: 200 } as const

/**
 * A linear ticker row (REST /v5/market/tickers, or the ws `tickers.<symbol>` snapshot with deltas merged, which CCXT
 * keeps in ticker.info) parsed by CCXT's parseFundingRate -> TickerEvent. lastPrice is the row's own lastPrice.
 */
export function bybitPerpTicker(ref: MarketRef, fr: FundingRate, now: number, intervalHours: (fromPayload: number | null | undefined) => number): TickerEvent {
  const parts = partsFromFundingRate(fr)
  const info = fr.info as { lastPrice?: string } | undefined
  return tickerEvent(ref, { ...parts, lastPrice: num(info?.lastPrice), fundingIntervalHours: intervalHours(parts.fundingIntervalHours) }, now)
}

/** The open-interest fields of a linear ticker row (REST /v5/market/tickers list item, or the ws `tickers.<symbol>` data). */
export interface BybitOiRow {
  openInterest?: string
  singleOpenInterest?: string
}

/**
 * One side of Bybit's open interest, in the row's amount unit (base coin for linear): `singleOpenInterest` where the
 * row carries it (since Bybit's 2026 change `openInterest` counts both sides), else `openInterest` (older rows, which
 * were one-sided). The only place Bybit's OI convention is decided.
 */
export function bybitOneSidedOi(row: BybitOiRow | undefined): number | null {
  return num(row?.singleOpenInterest) ?? num(row?.openInterest)
}

/**
 * Open interest from GET /v5/market/tickers?category=linear (real time) rather than /v5/market/open-interest, whose
 * newest value is a 5-minute bucket stamped at its start. ts = the response's `time`.
 */
function openInterestOfRows(refs: MarketRef[], rates: Record<string, FundingRate>, now: number): OpenInterestEvent[] {
  return refs
    .map((ref) => {
      const fr = rates[ref.symbol]
      return fr ? bybitOpenInterestEvent(ref, fr.info as BybitOiRow, num(fr.timestamp) ?? now) : null
    })
    .filter((e): e is OpenInterestEvent => e !== null)
}

/** A ticker row -> OpenInterestEvent (one-sided, coins); ts = the venue's time for the row. */
export function bybitOpenInterestEvent(ref: MarketRef, row: BybitOiRow | undefined, ts: number): OpenInterestEvent | null {
  const amount = bybitOneSidedOi(row)
  // inverse rows are in USD; only linear perps are followed
  if (amount === null || amount < 0 || ref.inverse) return null
  return { type: 'open_interest', exchange: ref.exchange, coin: ref.coin, marketType: ref.marketType, ts, openInterest: coinSize(ref, amount, 1) }
}

/**
 * Notes the depth each symbol's book frames arrive on (topic `orderbook.{depth}.{symbol}`) before CCXT handles them:
 * a side shorter than the depth asked for is whole only when the stream carries that depth.
 */
function installBybitDepthTap(ex: Exchange, depths: Map<string, number>): void {
  const original = ex.handleMessage.bind(ex)
  ex.handleMessage = (client: unknown, message: unknown) => {
    const topic = (message as { topic?: unknown } | null)?.topic
    const m = typeof topic === 'string' ? /^orderbook\.(\d+)\.(.+)$/.exec(topic) : null
    if (m) depths.set(m[2]!, Number(m[1]))
    return original(client, message)
  }
}

export class BybitConnector extends ExchangeConnector {
  readonly exchange = 'bybit' as const
  private readonly ex: Exchange
  /** venue symbol -> the depth its book frames carry */
  private readonly streamDepth = new Map<string, number>()
  protected override readonly publishesPositioning = true

  /** `allLiquidation.{symbol}` per perp (CCXT watchLiquidations, method allLiquidation; subscribed by message hash `liquidations::…`) */
  protected override watchLiquidations(run: Supervisor, perps: MarketRef[], emit: (e: LiquidationEvent) => void): LiquidationStream | null {
    return watchLiquidationLoops(run, this.ex, perps, bybitLiquidation, emit, /^liquidations/)
  }

  constructor(opts: ConnectorOptions) {
    super(opts)
    this.ex = opts.ccxtExchange ?? new ccxt.pro.bybit({ enableRateLimit: true })
    applyVenueAccess(this.ex, opts.access)
    const types = this.wantedCategories(opts.marketTypes)
    skipCurrencies(this.ex)
    setOption(this.ex, 'fetchMarkets', { types })
    installBybitDepthTap(this.ex, this.streamDepth)
  }

  /** the stream's own depth (a recording of orderbook.200, or a venue that serves less than asked) */
  protected override bookDepth(ref: MarketRef, via: 'stream' | 'rest'): BookDepth {
    return via === 'stream' ? (this.streamDepth.get(ref.id) ?? BOOK_LIMIT) : REST_BOOK_LIMIT[ref.marketType]
  }

  private wantedCategories(marketTypes: ConnectorOptions['marketTypes']): string[] {
    const out: string[] = []
    if (!marketTypes || marketTypes.includes('perp')) out.push('linear')
    if (!marketTypes || marketTypes.includes('spot')) out.push('spot')
    return out
  }

  exchangeFor(): Exchange {
    return this.ex
  }


  protected override bookLimit(): number {
    return BOOK_LIMIT
  }

  protected override restBookLimit(ref: MarketRef): number {
    return REST_BOOK_LIMIT[ref.marketType]
  }

  protected override readonly openInterestInTickers = true

  /**
   * Perps: GET /v5/market/tickers?category=linear (one call) via fetchFundingRates: markPrice, indexPrice, fundingRate,
   * nextFundingTime, and the interval from the instrument's fundingInterval (minutes). The same raw row carries
   * lastPrice and the open interest, read from `info`. Spot: fetchTickers on category=spot.
   */
  protected async pollTickers(refs: MarketRef[], withOpenInterest: MarketRef[] = []): Promise<Array<TickerEvent | OpenInterestEvent>> {
    const now = this.now()
    const perps = refs.filter((r) => r.marketType === 'perp')
    const spots = refs.filter((r) => r.marketType === 'spot')
    const out: Array<TickerEvent | OpenInterestEvent> = []
    await this.settleAll([
      (async () => {
        if (perps.length === 0) return
        const rates = await this.ex.fetchFundingRates(perps.map((r) => r.symbol))
        for (const ref of perps) {
          const fr = rates[ref.symbol]
          if (!fr) continue
          const e = bybitPerpTicker(ref, fr, now, (h) => this.intervalHoursFor(ref, h))
          out.push(e.lastPrice === null ? { ...e, lastPrice: this.lastTradePrice.get(ref.symbol) ?? null } : e)
        }
        out.push(...openInterestOfRows(withOpenInterest, rates, now))
      })(),
      (async () => {
        out.push(...(await spotTickerEvents(this.ex, spots, now)))
      })(),
    ])
    return out
  }

  /** Only when the ticker poll is off: the same tickers call, for its open interest. */
  protected async pollOpenInterest(refs: MarketRef[]): Promise<OpenInterestEvent[]> {
    return openInterestOfRows(refs, await this.ex.fetchFundingRates(refs.map((r) => r.symbol)), this.now())
  }

  /** GET /v5/market/risk-limit (category=linear) per followed perp (one call each): tiers by USDT position value. */
  async fetchLeverageTiers(): Promise<FetchedTiers[]> {
    const out: FetchedTiers[] = []
    for (const ref of this.markets().filter((r) => r.marketType === 'perp')) {
      const tiers = parseBybitRiskLimit(await callRaw(this.ex, 'publicGetV5MarketRiskLimit', { category: 'linear', symbol: ref.id }))
      if (tiers.length) out.push({ coin: ref.coin, tiers, unit: 'usd', note: `Bybit GET /v5/market/risk-limit (linear, ${ref.id})` })
    }
    return out
  }
}
