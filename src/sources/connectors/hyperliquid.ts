// Hyperliquid perps (the main USDC dex; HIP-3 dexes are not loaded) through CCXT `hyperliquid` (POST /info + ws).
import ccxt, { type Exchange, type MarketInterface, type Trade } from 'ccxt'
import type { OpenInterestEvent, TickerEvent } from '../../domain/events.js'
import type { MarketType } from '../../domain/exchanges.js'
import { callRaw, setOption, skipCurrencies } from './ccxt-access.js'
import { findByBase } from './ccxt-access.js'
import { ExchangeConnector } from './connector.js'
import { applyVenueAccess } from './venue-access.js'
import type { ConnectorOptions } from './connector-options.js'
import { nextFundingOnGrid, partsFromFundingRate, tickerEvent, type BookDepth, type MarketRef, type TickerParts } from './mapping.js'
import { num } from '../../domain/numbers.js'
import { sigFigBucket, type WideBookSource } from './wide-books.js'
import { parseHyperliquidMarginTiers, type FetchedTiers } from '../../read/tiers/venue-tables.js'

/**
 * Hyperliquid's asset-context `openInterest` is read as two-sided (Σ |position size| over all users, longs + shorts)
 * and halved; the evidence and the counter-evidence are in docs/methodology.md#open-interest-conventions.
 */
const HYPERLIQUID_OI_TWO_SIDED = true

/** asset-context `openInterest` (coins) -> one side, coins. The only place Hyperliquid's OI convention is applied. */
function hyperliquidOneSidedOi(openInterest: number | null): number | null {
  if (openInterest === null || !Number.isFinite(openInterest) || openInterest < 0) return null
  return HYPERLIQUID_OI_TWO_SIDED ? openInterest / 2 : openInterest
}

/** l2Book sends at most this many levels per side */
const HYPERLIQUID_BOOK_LEVELS = 20
/** coarser l2Book aggregations polled for the wide depth bands (nSigFigs 5 = exact prices is the main book) */
const HYPERLIQUID_WIDE_SIG_FIGS = [4, 3, 2] as const

/** Funding settles hourly on the UTC hour; `funding` in the asset context is the current hourly rate. */
const HYPERLIQUID_FUNDING_INTERVAL_HOURS = 1

/** One perp asset context, as in metaAndAssetCtxs[1][i], activeAssetCtx.ctx and allDexsAssetCtxs. */
export interface HyperliquidAssetCtx {
  funding?: string
  openInterest?: string
  oraclePx?: string
  markPx?: string
  midPx?: string | null
}

/** An asset context -> ticker fields (mark = markPx, index = oraclePx) and the one-sided OI in coins. */
export function hyperliquidCtx(ctx: HyperliquidAssetCtx, now: number): { parts: TickerParts; openInterest: number | null } {
  const oi = num(ctx.openInterest)
  return {
    parts: {
      markPrice: num(ctx.markPx),
      indexPrice: num(ctx.oraclePx),
      fundingRate: num(ctx.funding),
      fundingIntervalHours: HYPERLIQUID_FUNDING_INTERVAL_HOURS,
      nextFundingTime: nextFundingOnGrid(now, HYPERLIQUID_FUNDING_INTERVAL_HOURS),
    },
    openInterest: hyperliquidOneSidedOi(oi),
  }
}

/**
 * The ws `allDexsAssetCtxs` frame (CCXT has no handler for it): `data.ctxs` = [[dexName, ctx[]]], ctx order = the
 * dex's perp universe order. Only the main dex ("") is read; `universe[i]` names asset i (CCXT market baseId = i).
 */
export function parseAllDexsAssetCtxs(
  frame: unknown,
  universe: ReadonlyMap<number, string>,
): Array<{ coin: string; ctx: HyperliquidAssetCtx }> {
  const f = frame as { channel?: string; data?: { ctxs?: Array<[string, HyperliquidAssetCtx[]]> } } | null
  if (!f || f.channel !== 'allDexsAssetCtxs') return []
  const main = f.data?.ctxs?.find(([dex]) => dex === '')
  if (!main) return []
  const out: Array<{ coin: string; ctx: HyperliquidAssetCtx }> = []
  main[1].forEach((ctx, i) => {
    const coin = universe.get(i)
    if (coin) out.push({ coin, ctx })
  })
  return out
}

/** asset index -> coin, from CCXT's loaded perp markets (baseId is the index in the main dex universe). */
export function hyperliquidUniverse(ex: Exchange): Map<number, string> {
  const out = new Map<number, string>()
  for (const m of Object.values(ex.markets ?? {})) {
    if (!m || m.swap !== true) continue
    const info = m.info as { dex?: string } | undefined
    const idx = Number(m.baseId)
    if (info?.dex === undefined && Number.isInteger(idx)) out.set(idx, m.base)
  }
  return out
}

export class HyperliquidConnector extends ExchangeConnector {
  readonly exchange = 'hyperliquid' as const
  private readonly ex: Exchange

  constructor(opts: ConnectorOptions) {
    super(opts)
    this.ex = opts.ccxtExchange ?? new ccxt.pro.hyperliquid({ enableRateLimit: true })
    applyVenueAccess(this.ex, opts.access)
    // perps of the main dex only: one metaAndAssetCtxs call (spot and HIP-3 dex markets are not ours)
    setOption(this.ex, 'fetchMarkets', { types: ['swap'] })
    skipCurrencies(this.ex)
  }

  exchangeFor(marketType: MarketType): Exchange | undefined {
    return marketType === 'perp' ? this.ex : undefined
  }

  protected override findMarket(ex: Exchange, coin: string): MarketInterface | undefined {
    return findByBase(ex, coin, (m) => m.swap === true && m.settle === 'USDC' && (m.info as { dex?: string })?.dex === undefined)
  }

  protected override bookDepth(): BookDepth {
    return HYPERLIQUID_BOOK_LEVELS
  }

  /** POST /info {type: l2Book, coin, nSigFigs}: 20 coarser levels a side reach further than the exact 20 */
  protected override wideBookSources(ex: Exchange, ref: MarketRef): WideBookSource[] {
    return HYPERLIQUID_WIDE_SIG_FIGS.map((n) => ({
      source: `nSigFigs=${n}`,
      depth: HYPERLIQUID_BOOK_LEVELS,
      granularity: (mid: number) => sigFigBucket(n, mid),
      fetch: () => ex.fetchOrderBook(ref.symbol, undefined, { nSigFigs: n }),
    }))
  }

  /**
   * metaAndAssetCtxs via fetchFundingRates: markPx -> mark, oraclePx -> index, funding (hourly). No last-trade field
   * exists there (CCXT's HL ticker `last` is the mid), so lastPrice is the last trade seen on the trade stream.
   */
  protected async pollTickers(refs: MarketRef[]): Promise<TickerEvent[]> {
    const now = this.now()
    const rates = await this.ex.fetchFundingRates(refs.map((r) => r.symbol))
    const out: TickerEvent[] = []
    for (const ref of refs) {
      const fr = rates[ref.symbol]
      if (!fr) continue
      const parts = partsFromFundingRate(fr)
      out.push(
        tickerEvent(
          ref,
          {
            ...parts,
            lastPrice: this.lastTradePrice.get(ref.symbol),
            fundingIntervalHours: parts.fundingIntervalHours ?? HYPERLIQUID_FUNDING_INTERVAL_HOURS,
            nextFundingTime: parts.nextFundingTime ?? nextFundingOnGrid(now, HYPERLIQUID_FUNDING_INTERVAL_HOURS),
          },
          now,
        ),
      )
    }
    return out
  }

  /** metaAndAssetCtxs via fetchOpenInterests: `openInterest` in coins, one side by hyperliquidOneSidedOi. ts = poll time (the body has none). */
  protected async pollOpenInterest(refs: MarketRef[]): Promise<OpenInterestEvent[]> {
    const now = this.now()
    const ois = await this.ex.fetchOpenInterests(refs.map((r) => r.symbol))
    const out: OpenInterestEvent[] = []
    for (const ref of refs) {
      const oi = ois[ref.symbol] ? hyperliquidOneSidedOi(num(ois[ref.symbol]!.openInterestAmount)) : null
      if (oi !== null) out.push({ type: 'open_interest', exchange: 'hyperliquid', coin: ref.coin, marketType: 'perp', ts: num(ois[ref.symbol]!.timestamp) ?? now, openInterest: oi })
    }
    return out
  }

  /**
   * CCXT's hyperliquid fetchTrades returns a user's fills; public trades are POST /info {type: recentTrades}, parsed
   * here by CCXT's own trade parser (the one its ws trade handler uses too). Only the REST fallback needs this.
   */
  protected override async fetchRecentTrades(ex: Exchange, ref: MarketRef): Promise<Trade[]> {
    const market = ex.market(ref.symbol)
    const rows = await callRaw<unknown[]>(ex, 'publicPostInfo', { type: 'recentTrades', coin: (market as { baseName?: string }).baseName ?? market.base })
    return ex.parseTrades(rows, market)
  }

  /** fundingHistory needs a startTime; CCXT derives it from the limit (limit hours back). */
  protected override fundingHistoryQuery(): { limit: number } {
    return { limit: 10 }
  }

  /** POST /info {"type":"meta"} (one call): each followed coin's margin table from `marginTables`. */
  async fetchLeverageTiers(): Promise<FetchedTiers[]> {
    const meta = await callRaw(this.ex, 'publicPostInfo', { type: 'meta' })
    const out: FetchedTiers[] = []
    for (const ref of this.markets()) {
      const name = (this.ex.market(ref.symbol) as { baseName?: string }).baseName ?? ref.coin
      const tiers = parseHyperliquidMarginTiers(meta, name)
      if (tiers?.length) out.push({ coin: ref.coin, tiers, unit: 'usd', note: 'Hyperliquid POST /info {"type":"meta"} marginTables' })
    }
    return out
  }
}
