// Binance: USD-M perpetuals through CCXT `binanceusdm`, spot through CCXT `binance` (two classes, two instances).
import ccxt, { type Exchange } from 'ccxt'
import type { FundingEvent, OpenInterestEvent, TickerEvent } from '../../domain/events.js'
import type { MarketType } from '../../domain/exchanges.js'
import { ExchangeConnector } from './connector.js'
import { applyVenueAccess } from './venue-access.js'
import { openInterestPerMarket, spotTickerEvents } from './market-polls.js'
import type { ConnectorOptions, KlineQuery } from './connector-options.js'
import type { Kline } from '../../domain/minute-bars.js'
import { binanceKline } from './klines.js'
import { parseIntervalHours, partsFromFundingRate, tickerEvent, type MarketRef } from './mapping.js'
import { callRaw, loadMarkets, setOption, skipCurrencies } from './ccxt-access.js'
import { binanceForceOrder, watchLiquidationLoops } from './liquidations.js'
import type { Supervisor } from './supervisor.js'
import type { LiquidationStream } from './liveness.js'
import type { LiquidationEvent } from '../../domain/events.js'

/** Deepest REST snapshot USD-M allows (spot allows 5000; 1000 already spans well over ±5 % on our coins). */
const BOOK_LIMIT = 1000
/** GET /fapi/v1/fundingInfo lists only symbols whose interval (or cap/floor) was adjusted; every other USD-M perp settles every 8 h */
const BINANCE_DEFAULT_FUNDING_INTERVAL_HOURS = 8
/** how often the fundingInfo list is re-read (Binance changes intervals rarely and announces them) */
const FUNDING_INFO_REFRESH_MS = 10 * 60_000

/** fundingInfo rows as CCXT's fetchFundingIntervals returns them -> unified symbol -> interval hours */
function binanceFundingIntervals(rates: Record<string, { interval?: string | undefined }>): Map<string, number> {
  const out = new Map<string, number>()
  for (const [symbol, fr] of Object.entries(rates)) {
    const hours = parseIntervalHours(fr.interval)
    if (hours !== null) out.set(symbol, hours)
  }
  return out
}

export class BinanceConnector extends ExchangeConnector {
  readonly exchange = 'binance' as const
  private readonly perp: Exchange
  private readonly spot: Exchange | undefined
  /** fundingInfo: symbols with an adjusted interval; null until first read */
  private fundingIntervals: Map<string, number> | null = null
  private fundingIntervalsAt = -Infinity
  protected override readonly publishesPositioning = true

  /** `<symbol>@forceOrder` for every perp on one connection (watchLiquidationsForSymbols; CCXT's subscription keys are the stream names) */
  protected override watchLiquidations(run: Supervisor, perps: MarketRef[], emit: (e: LiquidationEvent) => void): LiquidationStream | null {
    return watchLiquidationLoops(run, this.perp, perps, binanceForceOrder, emit, /forceOrder/)
  }

  constructor(opts: ConnectorOptions) {
    super(opts)
    const wants = (t: MarketType) => !opts.marketTypes || opts.marketTypes.includes(t)
    this.perp = opts.ccxtExchange ?? new ccxt.pro.binanceusdm({ enableRateLimit: true })
    this.spot = opts.ccxtSpotExchange ?? (wants('spot') ? new ccxt.pro.binance({ enableRateLimit: true }) : undefined)
    for (const ex of [this.perp, this.spot]) if (ex) applyVenueAccess(ex, opts.access)
    skipCurrencies(this.perp)
    setOption(this.perp, 'fetchMarkets', { types: ['linear'] })
    // USD-M publishes aggregate trades (`<sym>@aggTrade`); `a` is the trade id the aggregator dedupes on
    setOption(this.perp, 'watchTrades', { name: 'aggTrade' })
    setOption(this.perp, 'watchOrderBookLimit', BOOK_LIMIT)
    if (this.spot) {
      skipCurrencies(this.spot)
      setOption(this.spot, 'fetchMarkets', { types: ['spot'] })
      setOption(this.spot, 'watchOrderBookLimit', BOOK_LIMIT)
    }
  }

  exchangeFor(marketType: MarketType): Exchange | undefined {
    return marketType === 'perp' ? this.perp : this.spot
  }


  protected override bookLimit(): number {
    return BOOK_LIMIT
  }

  /** GET /fapi/v1/fundingInfo (CCXT fetchFundingIntervals), at most every FUNDING_INFO_REFRESH_MS; a failure keeps the last list */
  private async refreshFundingIntervals(): Promise<void> {
    const now = this.now()
    if (now - this.fundingIntervalsAt < FUNDING_INFO_REFRESH_MS) return
    this.fundingIntervalsAt = now
    try {
      this.fundingIntervals = binanceFundingIntervals(await this.perp.fetchFundingIntervals())
    } catch (err) {
      // try again in a minute, not on every ticker poll
      this.fundingIntervalsAt = now - FUNDING_INFO_REFRESH_MS + 60_000
      this.log.warn({ exchange: this.exchange, err: err instanceof Error ? err.message : String(err) }, 'fundingInfo unavailable; funding interval from settlement history')
    }
  }

  /** the interval Binance states: fundingInfo's fundingIntervalHours, else 8 h (unlisted); null before fundingInfo was read */
  protected override knownIntervalHours(ref: MarketRef): number | null {
    if (ref.marketType !== 'perp' || this.fundingIntervals === null) return null
    return this.fundingIntervals.get(ref.symbol) ?? BINANCE_DEFAULT_FUNDING_INTERVAL_HOURS
  }

  /**
   * Perps: /fapi/v1/premiumIndex (all symbols, one call) via fetchFundingRates -> mark, index, funding, next funding;
   * the interval from /fapi/v1/fundingInfo (premiumIndex has none). No last price there: that comes from the trade
   * stream. Spot: /api/v3/ticker/24hr via fetchTickers.
   */
  protected async pollTickers(refs: MarketRef[]): Promise<TickerEvent[]> {
    const now = this.now()
    const perps = refs.filter((r) => r.marketType === 'perp')
    const spots = refs.filter((r) => r.marketType === 'spot')
    const out: TickerEvent[] = []
    await this.settleAll([
      (async () => {
        if (perps.length === 0) return
        const [rates] = await Promise.all([this.perp.fetchFundingRates(perps.map((r) => r.symbol)), this.refreshFundingIntervals()])
        for (const ref of perps) {
          const fr = rates[ref.symbol]
          if (!fr) continue
          const parts = partsFromFundingRate(fr)
          out.push(
            tickerEvent(
              ref,
              { ...parts, lastPrice: this.lastTradePrice.get(ref.symbol), fundingIntervalHours: this.intervalHoursFor(ref, parts.fundingIntervalHours) },
              now,
            ),
          )
        }
      })(),
      (async () => {
        if (this.spot) out.push(...(await spotTickerEvents(this.spot, spots, now)))
      })(),
    ])
    return out
  }

  /** settled history: /fapi/v1/fundingRate, stamped with the interval fundingInfo states (not the spacing of the rows) */
  protected override async pollFunding(refs: MarketRef[]): Promise<FundingEvent[]> {
    await this.refreshFundingIntervals()
    return super.pollFunding(refs)
  }

  /** /fapi/v1/openInterest per symbol: one-sided, in coins. */
  protected pollOpenInterest(refs: MarketRef[]): Promise<OpenInterestEvent[]> {
    return openInterestPerMarket(this.perp, refs, this.now, (calls) => this.settleAll(calls))
  }

  /** Raw klines, because CCXT's OHLCV drops the taker-buy volume Binance reports. */
  override async fetchKlines(coin: string, marketType: MarketType, query: KlineQuery = {}): Promise<Kline[]> {
    const ex = this.exchangeFor(marketType)
    if (!ex) throw new Error(`binance: no ${marketType} instance`)
    await loadMarkets(ex)
    const market = this.findMarket(ex, coin.toUpperCase(), marketType)
    if (!market) throw new Error(`binance lists no ${marketType} market for ${coin}`)
    const request: Record<string, unknown> = { symbol: market.id, interval: query.timeframe ?? '1m' }
    if (query.since !== undefined) request['startTime'] = query.since
    if (query.limit !== undefined) request['limit'] = query.limit
    const rows = await callRaw<unknown[][]>(ex, marketType === 'perp' ? 'fapiPublicGetKlines' : 'publicGetKlines', request)
    return rows.map(binanceKline).filter((k): k is Kline => k !== null)
  }
}
