// Binance: USD-M perpetuals through CCXT `binanceusdm`, spot through CCXT `binance` (two classes, two instances).
import ccxt, { type Exchange } from 'ccxt'
import type { MarketType, OpenInterestEvent, TickerEvent } from '../events.js'
import { ExchangeConnector, type ConnectorOptions, type KlineQuery } from './connector.js'
import { binanceKline, type Kline } from './klines.js'
import { partsFromFundingRate, tickerEvent, type MarketRef } from './mapping.js'
import { callRaw, setOption, skipCurrencies } from './ccxt-access.js'

/** Deepest REST snapshot USD-M allows (spot allows 5000; 1000 already spans well over ±5 % on our coins). */
const BOOK_LIMIT = 1000

export class BinanceConnector extends ExchangeConnector {
  readonly exchange = 'binance' as const
  private readonly perp: Exchange
  private readonly spot: Exchange | undefined

  constructor(opts: ConnectorOptions) {
    super(opts)
    const wants = (t: MarketType) => !opts.marketTypes || opts.marketTypes.includes(t)
    this.perp = opts.ccxtExchange ?? new ccxt.pro.binanceusdm({ enableRateLimit: true })
    this.spot = opts.ccxtSpotExchange ?? (wants('spot') ? new ccxt.pro.binance({ enableRateLimit: true }) : undefined)
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

  protected exchangeFor(marketType: MarketType): Exchange | undefined {
    return marketType === 'perp' ? this.perp : this.spot
  }


  protected override bookLimit(): number {
    return BOOK_LIMIT
  }

  /**
   * Perps: /fapi/v1/premiumIndex (all symbols, one call) via fetchFundingRates -> mark, index, funding, next funding.
   * It has no last price: that comes from the trade stream. Spot: /api/v3/ticker/24hr via fetchTickers.
   */
  protected async pollTickers(refs: MarketRef[]): Promise<TickerEvent[]> {
    const now = this.now()
    const perps = refs.filter((r) => r.marketType === 'perp')
    const spots = refs.filter((r) => r.marketType === 'spot')
    const out: TickerEvent[] = []
    await this.settleAll([
      (async () => {
        if (perps.length === 0) return
        const rates = await this.perp.fetchFundingRates(perps.map((r) => r.symbol))
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
        if (this.spot) out.push(...(await this.spotTickerEvents(this.spot, spots, now)))
      })(),
    ])
    return out
  }

  /** /fapi/v1/openInterest per symbol: one-sided, in coins. */
  protected pollOpenInterest(refs: MarketRef[]): Promise<OpenInterestEvent[]> {
    return this.openInterestPerMarket(this.perp, refs)
  }

  /** Raw klines, because CCXT's OHLCV drops the taker-buy volume Binance reports. */
  override async fetchKlines(coin: string, marketType: MarketType, query: KlineQuery = {}): Promise<Kline[]> {
    const ex = this.exchangeFor(marketType)
    if (!ex) throw new Error(`binance: no ${marketType} instance`)
    await ex.loadMarkets()
    const market = this.findMarket(ex, coin.toUpperCase(), marketType)
    if (!market) throw new Error(`binance lists no ${marketType} market for ${coin}`)
    const request: Record<string, unknown> = { symbol: market.id, interval: query.timeframe ?? '1m' }
    if (query.since !== undefined) request['startTime'] = query.since
    if (query.limit !== undefined) request['limit'] = query.limit
    const rows = await callRaw<unknown[][]>(ex, marketType === 'perp' ? 'fapiPublicGetKlines' : 'publicGetKlines', request)
    return rows.map(binanceKline).filter((k): k is Kline => k !== null)
  }
}
