// dYdX v4 perps through CCXT `dydx` (indexer REST + indexer websocket). CCXT has no ticker, funding-rate or
// open-interest method for dYdX, so those come from the raw GET /v4/perpetualMarkets, parsed here.
import ccxt, { type Exchange, type MarketInterface } from 'ccxt'
import type { OpenInterestEvent, TickerEvent } from '../../domain/events.js'
import type { MarketType } from '../../domain/exchanges.js'
import { callRaw, skipCurrencies } from './ccxt-access.js'
import { findByBase } from './ccxt-access.js'
import { ExchangeConnector } from './connector.js'
import { applyVenueAccess } from './venue-access.js'
import type { ConnectorOptions } from './connector-options.js'
import { nextFundingOnGrid, tickerEvent, type BookDepth, type MarketRef, type TickerParts } from './mapping.js'
import { num } from '../../domain/numbers.js'

/** levels per side of the indexer's book snapshot (comlink config API_ORDERBOOK_LEVELS_PER_SIDE_LIMIT, default 100) */
const DYDX_BOOK_LEVELS = 100
import { parseDydxMarginFractions, type FetchedTiers } from '../../read/tiers/venue-tables.js'
import { dydxLiquidationOfTrade } from './liquidations.js'
import type { LiquidationStream } from './liveness.js'

/** dYdX v4 settles funding every hour; `nextFundingRate` is the predicted 1-hour rate. */
const DYDX_FUNDING_INTERVAL_HOURS = 1

/** What we read of one market, from GET /v4/perpetualMarkets or a v4_markets ws frame (partial in updates). */
export interface DydxMarketUpdate {
  /** indexer ticker, e.g. BTC-USD */
  ticker: string
  oraclePrice?: number
  /** oracle price time (ws oraclePrices only), Unix ms */
  oracleTs?: number
  /** one-sided open interest, coins */
  openInterest?: number
  nextFundingRate?: number
}

type RawMarket = Record<string, unknown>

function fromRaw(ticker: string, m: RawMarket): DydxMarketUpdate {
  const u: DydxMarketUpdate = { ticker }
  const oracle = num(m['oraclePrice'])
  const oi = num(m['openInterest'])
  const rate = num(m['nextFundingRate'])
  if (oracle !== null) u.oraclePrice = oracle
  if (oi !== null) u.openInterest = oi
  if (rate !== null) u.nextFundingRate = rate
  return u
}

/** GET /v4/perpetualMarkets body ({markets: {ticker: market}}) -> one update per market. */
export function parseDydxPerpetualMarkets(body: unknown): DydxMarketUpdate[] {
  const markets = (body as { markets?: Record<string, RawMarket> } | null)?.markets ?? {}
  return Object.entries(markets).map(([ticker, m]) => fromRaw(ticker, m))
}

/**
 * A v4_markets ws frame (not handled by CCXT): `subscribed` carries {markets} like the REST body; `channel_data`
 * carries {trading: {ticker: changed fields}} and/or {oraclePrices: {ticker: {oraclePrice, effectiveAt}}}.
 * `baseOpenInterest` is the OI-cap baseline, not open interest, and is ignored.
 */
export function parseDydxMarketsMessage(frame: unknown): DydxMarketUpdate[] {
  const f = frame as { channel?: string; contents?: Record<string, unknown> } | null
  if (!f || f.channel !== 'v4_markets' || !f.contents) return []
  const c = f.contents
  const out = c['markets'] ? parseDydxPerpetualMarkets(c) : []
  for (const [ticker, m] of Object.entries((c['trading'] ?? {}) as Record<string, RawMarket>)) {
    const u = fromRaw(ticker, m)
    if (Object.keys(u).length > 1) out.push(u)
  }
  for (const [ticker, p] of Object.entries((c['oraclePrices'] ?? {}) as Record<string, RawMarket>)) {
    const price = num(p['oraclePrice'])
    if (price === null) continue
    const ts = Date.parse(String(p['effectiveAt'] ?? ''))
    out.push({ ticker, oraclePrice: price, ...(Number.isFinite(ts) ? { oracleTs: ts } : {}) })
  }
  return out
}

/**
 * Ticker fields: dYdX v4 marks positions at the oracle price, so mark = index = oraclePrice; funding is the
 * predicted hourly nextFundingRate, settled on the UTC hour.
 */
export function dydxTickerParts(u: DydxMarketUpdate, now: number): TickerParts {
  return {
    ts: u.oracleTs ?? now,
    markPrice: u.oraclePrice ?? null,
    indexPrice: u.oraclePrice ?? null,
    fundingRate: u.nextFundingRate ?? null,
    fundingIntervalHours: DYDX_FUNDING_INTERVAL_HOURS,
    nextFundingTime: nextFundingOnGrid(now, DYDX_FUNDING_INTERVAL_HOURS),
  }
}

interface DydxWsMessage {
  type?: string
  channel?: string
  id?: string
  contents?: unknown
}

/** perpetualMarkets `openInterest`: one-sided, in coins; ts = poll time (the body has none) */
function openInterestOf(refs: MarketRef[], updates: Map<string, DydxMarketUpdate>, now: number): OpenInterestEvent[] {
  return refs.flatMap((ref) => {
    const oi = updates.get(ref.symbol)?.openInterest
    return oi === undefined ? [] : [{ type: 'open_interest' as const, exchange: 'dydx' as const, coin: ref.coin, marketType: 'perp' as const, ts: now, openInterest: oi }]
  })
}

/**
 * Two fixes around CCXT's dydx ws handler, installed on the instance:
 * - `channel_batch_data` frames (contents = array of updates; sent when subscribing with batched: true) are unrolled
 *   into one channel_data frame per element. CCXT alone reads them as empty.
 * - a v4_orderbook `subscribed` snapshot (first subscription or a resubscription after a reconnect) replaces the
 *   book. CCXT alone merges it into the previous book, keeping levels that no longer exist.
 */
export function installDydxWsFixes(ex: Exchange): void {
  const marker = ex as unknown as { __dydxWsFixes?: boolean }
  if (marker.__dydxWsFixes) return
  marker.__dydxWsFixes = true
  const original = ex.handleMessage.bind(ex)
  ex.handleMessage = (client: unknown, message: unknown) => {
    const m = message as DydxWsMessage | null
    if (m && m.type === 'channel_batch_data' && Array.isArray(m.contents)) {
      for (const contents of m.contents) original(client, { ...m, type: 'channel_data', contents })
      return
    }
    if (m && m.type === 'subscribed' && m.channel === 'v4_orderbook' && typeof m.id === 'string') {
      const symbol = ex.safeMarket(m.id)['symbol']
      if (symbol) delete (ex.orderbooks as Record<string, unknown>)[symbol]
    }
    original(client, message)
  }
}

export class DydxConnector extends ExchangeConnector {
  readonly exchange = 'dydx' as const
  private readonly ex: Exchange
  /** v4_trades of type LIQUIDATED are the venue's liquidations */
  protected override liquidationOfTrade = dydxLiquidationOfTrade

  /** no loops of its own: the liquidations come with the trades (CCXT subscribes v4_trades by message hash `trade:…`) */
  protected override watchLiquidations(): LiquidationStream {
    return { ex: this.ex, subscription: /^trade:/, loops: /^trades:/ }
  }

  constructor(opts: ConnectorOptions) {
    super(opts)
    this.ex = opts.ccxtExchange ?? new ccxt.pro.dydx({ enableRateLimit: true })
    applyVenueAccess(this.ex, opts.access)
    skipCurrencies(this.ex)
    installDydxWsFixes(this.ex)
  }

  exchangeFor(marketType: MarketType): Exchange | undefined {
    return marketType === 'perp' ? this.ex : undefined
  }

  protected override findMarket(ex: Exchange, coin: string): MarketInterface | undefined {
    return findByBase(ex, coin, (m) => m.swap === true && m.settle === 'USDC')
  }

  /**
   * The indexer serves at most DYDX_BOOK_LEVELS levels a side (comlink API_ORDERBOOK_LEVELS_PER_SIDE_LIMIT, no depth
   * parameter); read the same way for the v4_orderbook snapshot, which can only understate the reach, never overstate it.
   */
  protected override bookDepth(): BookDepth {
    return DYDX_BOOK_LEVELS
  }

  /** v4_orderbook batched: fewer frames for the same updates (unrolled by installDydxWsFixes). */
  protected override watchBookParams(): Record<string, unknown> {
    return { batched: true }
  }

  private async marketUpdates(refs: MarketRef[]): Promise<Map<string, DydxMarketUpdate>> {
    const body = await callRaw(this.ex, 'indexerGetPerpetualMarkets')
    const byTicker = new Map(parseDydxPerpetualMarkets(body).map((u) => [u.ticker, u]))
    return new Map(refs.flatMap((r) => (byTicker.has(r.id) ? [[r.symbol, byTicker.get(r.id)!] as const] : [])))
  }

  protected override readonly openInterestInTickers = true

  /** GET /v4/perpetualMarkets (all markets, one call): oraclePrice, nextFundingRate, and openInterest. Last price: the trade stream. */
  protected async pollTickers(refs: MarketRef[], withOpenInterest: MarketRef[] = []): Promise<Array<TickerEvent | OpenInterestEvent>> {
    const now = this.now()
    const updates = await this.marketUpdates(refs)
    const tickers = refs.flatMap((ref) => {
      const u = updates.get(ref.symbol)
      return u ? [tickerEvent(ref, { ...dydxTickerParts(u, now), lastPrice: this.lastTradePrice.get(ref.symbol) }, now)] : []
    })
    return [...tickers, ...openInterestOf(withOpenInterest, updates, now)]
  }

  /** Only when the ticker poll is off: the same call, for its open interest. */
  protected async pollOpenInterest(refs: MarketRef[]): Promise<OpenInterestEvent[]> {
    return openInterestOf(refs, await this.marketUpdates(refs), this.now())
  }

  /** GET /v4/perpetualMarkets (one call): initialMarginFraction / maintenanceMarginFraction per followed market. */
  async fetchLeverageTiers(): Promise<FetchedTiers[]> {
    const byCoin = parseDydxMarginFractions(await callRaw(this.ex, 'indexerGetPerpetualMarkets'))
    const out: FetchedTiers[] = []
    for (const ref of this.markets()) {
      const tiers = byCoin.get(ref.id.replace(/-USD$/, ''))
      if (tiers) out.push({ coin: ref.coin, tiers, unit: 'usd', note: 'dYdX GET /v4/perpetualMarkets margin fractions' })
    }
    return out
  }
}
