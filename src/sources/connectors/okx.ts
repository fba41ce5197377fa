// OKX v5: USDT-margined perpetual SWAPs and spot through one CCXT `okx` instance.
// SWAP amounts are contracts: CCXT's market.contractSize is the instrument's ctVal (BTC-USDT-SWAP: 0.01 BTC).
import { crc32 } from 'node:zlib'
import ccxt, { ChecksumError, type Exchange } from 'ccxt'
import type { OpenInterestEvent, TickerEvent } from '../../domain/events.js'
import { callRaw, setOption, skipCurrencies } from './ccxt-access.js'
import { ExchangeConnector } from './connector.js'
import { applyVenueAccess } from './venue-access.js'
import { openInterestPerMarket } from './market-polls.js'
import type { ConnectorOptions } from './connector-options.js'
import { mergeParts, partsFromFundingRate, partsFromTicker, tickerEvent, type MarketRef, type TickerParts } from './mapping.js'
import { num } from '../../domain/numbers.js'
import type { WideBookSource } from './wide-books.js'
import { parseOkxPositionTiers, type FetchedTiers } from '../../read/tiers/venue-tables.js'
import { okxLiquidationOrders, watchLiquidationLoops } from './liquidations.js'
import type { Supervisor } from './supervisor.js'
import type { LiquidationStream } from './liveness.js'
import type { LiquidationEvent } from '../../domain/events.js'

/** The `books` channel and GET /market/books both stop at 400 levels per side. */
const BOOK_LIMIT = 400
/** GET /api/v5/market/books-full: up to 5 000 levels per side, refreshed by OKX about once a second */
const OKX_FULL_BOOK_LIMIT = 5000

interface IndexTickers {
  data?: Array<{ instId?: string; idxPx?: string; ts?: string }>
}

/** /api/v5/market/index-tickers body -> index instId (e.g. BTC-USDT) -> price and time. */
export function parseOkxIndexTickers(body: IndexTickers): Map<string, { price: number; ts: number | null }> {
  const out = new Map<string, { price: number; ts: number | null }>()
  for (const row of body.data ?? []) {
    const price = num(row.idxPx)
    if (row.instId && price !== null) out.set(row.instId, { price, ts: num(row.ts) })
  }
  return out
}

/** The index a SWAP settles against: its underlying (BTC-USDT-SWAP -> BTC-USDT). */
export function okxIndexId(ref: MarketRef): string {
  return ref.id.replace(/-SWAP$/, '')
}

type Level = [string, string]

/** OKX `books` checksum: CRC32 (signed) of "bid1Px:bid1Sz:ask1Px:ask1Sz:..." over the top 25 levels, as sent. */
export function okxChecksum(bids: readonly Level[], asks: readonly Level[]): number {
  const parts: string[] = []
  for (let i = 0; i < 25; i++) {
    const b = bids[i]
    const a = asks[i]
    if (b) parts.push(`${b[0]}:${b[1]}`)
    if (a) parts.push(`${a[0]}:${a[1]}`)
  }
  return crc32(parts.join(':')) | 0
}

interface ShadowBook {
  bids: Map<number, Level>
  asks: Map<number, Level>
  /** after a mismatch: ignore updates until the next snapshot */
  stale: boolean
}

function applyLevels(side: Map<number, Level>, rows: ReadonlyArray<ReadonlyArray<string>> | undefined): void {
  for (const row of rows ?? []) {
    const price = Number(row[0])
    if (Number(row[1]) === 0) side.delete(price)
    else side.set(price, [String(row[0]), String(row[1])])
  }
}

function top(side: Map<number, Level>, dir: 1 | -1): Level[] {
  return [...side.entries()]
    .sort((a, b) => dir * (a[0] - b[0]))
    .slice(0, 25)
    .map(([, l]) => l)
}

/**
 * CCXT 4.5.84 checks OKX books only by seqId continuity, not by the CRC32 `checksum` OKX sends with every frame.
 * This keeps the levels as sent (strings, so formatting matches OKX's) and verifies each frame before CCXT sees it;
 * on a mismatch it drops CCXT's book and rejects the watch with ChecksumError, so the next watchOrderBook resubscribes and
 * starts again from a fresh snapshot.
 */
export function installOkxChecksum(ex: Exchange): void {
  const marker = ex as unknown as { __okxChecksum?: boolean }
  if (marker.__okxChecksum) return
  marker.__okxChecksum = true
  const shadows = new Map<string, ShadowBook>()
  const original = ex.handleMessage.bind(ex)
  ex.handleMessage = (client: unknown, message: unknown) => {
    const m = message as { arg?: { channel?: string; instId?: string }; action?: string; data?: Array<{ bids?: string[][]; asks?: string[][]; checksum?: number }> } | null
    const instId = m?.arg?.instId
    if (!m || m.arg?.channel !== 'books' || !instId || !Array.isArray(m.data)) return original(client, message)
    let shadow = shadows.get(instId)
    if (m.action === 'snapshot' || !shadow) {
      shadow = { bids: new Map(), asks: new Map(), stale: m.action !== 'snapshot' }
      shadows.set(instId, shadow)
    }
    let mismatch = false
    for (const d of m.data) {
      applyLevels(shadow.bids, d.bids)
      applyLevels(shadow.asks, d.asks)
      if (!shadow.stale && typeof d.checksum === 'number' && okxChecksum(top(shadow.bids, -1), top(shadow.asks, 1)) !== d.checksum) mismatch = true
    }
    if (!mismatch) return original(client, message)
    // not handed to CCXT: its book is dropped and the watcher learns why
    shadow.stale = true
    const symbol = ex.safeSymbol(instId)
    const hash = `books:${symbol}`
    const c = client as { subscriptions: Record<string, unknown>; reject(e: unknown, hash: string): void }
    delete (ex.orderbooks as Record<string, unknown>)[symbol]
    delete c.subscriptions[hash]
    c.reject(new ChecksumError(`okx ${instId} books checksum mismatch`), hash)
  }
}

export class OkxConnector extends ExchangeConnector {
  readonly exchange = 'okx' as const
  private readonly ex: Exchange

  protected override readonly publishesPositioning = true

  /** the `liquidation-orders` channel (instType SWAP), filtered to the followed perps (CCXT subscribes it by message hash `liquidations…`) */
  protected override watchLiquidations(run: Supervisor, perps: MarketRef[], emit: (e: LiquidationEvent) => void): LiquidationStream | null {
    return watchLiquidationLoops(run, this.ex, perps, okxLiquidationOrders, emit, /^liquidations/)
  }

  constructor(opts: ConnectorOptions) {
    super(opts)
    this.ex = opts.ccxtExchange ?? new ccxt.pro.okx({ enableRateLimit: true })
    applyVenueAccess(this.ex, opts.access)
    const types: string[] = []
    if (!opts.marketTypes || opts.marketTypes.includes('perp')) types.push('swap')
    if (!opts.marketTypes || opts.marketTypes.includes('spot')) types.push('spot')
    skipCurrencies(this.ex)
    setOption(this.ex, 'fetchMarkets', { types })
    // `books`: 400 levels, public; every frame carries a CRC32 we verify (CCXT does not)
    setOption(this.ex, 'watchOrderBook', { depth: 'books' })
    installOkxChecksum(this.ex)
  }

  exchangeFor(): Exchange {
    return this.ex
  }


  protected override bookLimit(): number {
    return BOOK_LIMIT
  }

  /** books-full (CCXT fetchOrderBook with limit > 400), polled for the bands the 400-level stream does not reach */
  protected override wideBookSources(ex: Exchange, ref: MarketRef): WideBookSource[] {
    return [{ source: 'books-full', depth: OKX_FULL_BOOK_LIMIT, granularity: () => 0, fetch: () => ex.fetchOrderBook(ref.symbol, OKX_FULL_BOOK_LIMIT) }]
  }

  /**
   * OKX spreads a perp ticker over four endpoints; each is one call for all instruments:
   * fetchTickers (market/tickers: last), fetchMarkPrices (public/mark-price), raw market/index-tickers (idxPx,
   * CCXT has no unified index price for OKX) and fetchFundingRates (public/funding-rate?instId=ANY: rate,
   * next settlement, interval from fundingTime..nextFundingTime).
   */
  protected async pollTickers(refs: MarketRef[]): Promise<TickerEvent[]> {
    const now = this.now()
    const perps = refs.filter((r) => r.marketType === 'perp')
    const spots = refs.filter((r) => r.marketType === 'spot')
    const parts = new Map<string, TickerParts[]>()
    const add = (symbol: string, p: TickerParts) => parts.set(symbol, [...(parts.get(symbol) ?? []), p])
    // the row's time is the mark's own `ts` (the figure the analytics compare), else the last trade ticker's
    const markTs = new Map<string, number | null>()
    const lastTs = new Map<string, number | null>()
    const calls: Promise<void>[] = []
    if (perps.length > 0) {
      const symbols = perps.map((r) => r.symbol)
      calls.push(
        this.ex.fetchTickers(symbols).then((t) => {
          for (const s of symbols) {
            if (!t[s]) continue
            add(s, { lastPrice: num(t[s].last) })
            lastTs.set(s, num(t[s].timestamp))
          }
        }),
        this.ex.fetchMarkPrices(symbols).then((t) => {
          for (const s of symbols) {
            if (!t[s]) continue
            add(s, { markPrice: num(t[s].markPrice) })
            markTs.set(s, num(t[s].timestamp))
          }
        }),
        callRaw<IndexTickers>(this.ex, 'publicGetMarketIndexTickers', { quoteCcy: 'USDT' }).then((body) => {
          const idx = parseOkxIndexTickers(body)
          for (const ref of perps) {
            const i = idx.get(okxIndexId(ref))
            if (i) add(ref.symbol, { indexPrice: i.price })
          }
        }),
        this.ex.fetchFundingRates(symbols).then((rates) => {
          for (const s of symbols) {
            const fr = rates[s]
            if (!fr) continue
            const p = partsFromFundingRate(fr)
            add(s, { fundingRate: p.fundingRate, fundingIntervalHours: p.fundingIntervalHours, nextFundingTime: p.nextFundingTime })
          }
        }),
      )
    }
    if (spots.length > 0) {
      calls.push(
        this.ex.fetchTickers(spots.map((r) => r.symbol)).then((t) => {
          for (const ref of spots) if (t[ref.symbol]) add(ref.symbol, partsFromTicker(t[ref.symbol]!))
        }),
      )
    }
    await this.settleAll(calls)
    const out: TickerEvent[] = []
    for (const ref of refs) {
      const p = parts.get(ref.symbol)
      if (!p) continue
      const merged = mergeParts(...p)
      if (ref.marketType === 'perp') {
        merged.ts = markTs.get(ref.symbol) ?? lastTs.get(ref.symbol) ?? null
        merged.fundingIntervalHours = this.intervalHoursFor(ref, merged.fundingIntervalHours)
        merged.lastPrice ??= this.lastTradePrice.get(ref.symbol) ?? null
      }
      out.push(tickerEvent(ref, merged, now))
    }
    return out
  }

  /** public/open-interest?instType=SWAP: `oi` in contracts (CCXT openInterestAmount) x ctVal = `oiCcy` coins. */
  protected pollOpenInterest(refs: MarketRef[]): Promise<OpenInterestEvent[]> {
    return openInterestPerMarket(this.ex, refs, this.now, (calls) => this.settleAll(calls))
  }

  /** GET /api/v5/public/position-tiers, isolated SWAP tiers per followed coin (one call each): bounds in coins. */
  async fetchLeverageTiers(): Promise<FetchedTiers[]> {
    const out: FetchedTiers[] = []
    for (const ref of this.markets().filter((r) => r.marketType === 'perp')) {
      const body = await callRaw(this.ex, 'publicGetPublicPositionTiers', { instType: 'SWAP', tdMode: 'isolated', instFamily: okxIndexId(ref) })
      const tiers = parseOkxPositionTiers(body, ref.contractSize)
      if (tiers.length) out.push({ coin: ref.coin, tiers, unit: 'coin', note: `OKX GET /api/v5/public/position-tiers (SWAP, isolated, ${okxIndexId(ref)})` })
    }
    return out
  }
}
