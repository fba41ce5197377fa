// COINS=all: the coin universe from the venues' own market lists (CCXT's loaded markets), a pure function. A coin is in
// it when at least two of the five venues list a linear perpetual of it settled in USDT or USDC that is active
// (docs/connectors.md#the-universe). Each venue names its markets its own way; CCXT's unified `base` is the coin
// on every one of ours (Binance and Bybit BTCUSDT / BTCPERP, OKX BTC-USDT-SWAP, Hyperliquid BTC, dYdX BTC-USD).
import type { MarketInterface } from 'ccxt'
import { EXCHANGE_IDS, type ExchangeId } from '../../domain/exchanges.js'

/** the fewest venues that must list a coin's perp for it to be in the universe */
const UNIVERSE_MIN_VENUES = 2

/** the settlement currencies a perp of the universe may have */
const SETTLES = new Set(['USDT', 'USDC'])

/** what a coin symbol may look like (the same rule as SIM_COINS and the coin parameter's values) */
const COIN_NAME = /^[A-Z0-9]{1,20}$/

/**
 * Markets quoting a multiple of the coin: Binance and Bybit 1000PEPE, 1000000MOG, 1MBABYDOGE, Bybit SHIB1000,
 * Hyperliquid kPEPE (k = 1 000). Their prices are per 1 000 (or 10^n) coins and their sizes in those lots, so they are
 * not the coin's market: left out, and named in `excluded` (docs/connectors.md#the-universe says why).
 */
export function multiplierOf(exchange: ExchangeId, base: string): number | null {
  const prefix = /^(1(?:0{2,})|1M)(?=[A-Z])/.exec(base)
  if (prefix) return prefix[1] === '1M' ? 1_000_000 : Number(prefix[1])
  const suffix = /(?<=[A-Z])(10{3,})$/.exec(base)
  if (suffix) return Number(suffix[1])
  if (exchange === 'hyperliquid' && /^k(?=[A-Z])/.test(base)) return 1000
  return null
}

export type ExclusionReason = 'multiplier' | 'name'

export interface ExcludedMarket {
  exchange: ExchangeId
  /** the venue's own name of the market (1000PEPEUSDT, Hyperliquid's kPEPE) and CCXT's symbol */
  name: string
  symbol: string
  reason: ExclusionReason
  /** coins per quoted unit, for a multiplier market */
  multiplier: number | null
}

export interface UniverseCoin {
  coin: string
  /** the venues listing its perp, canonical order */
  venues: ExchangeId[]
}

export interface Universe {
  /** coins listed on at least UNIVERSE_MIN_VENUES venues, by symbol */
  coins: UniverseCoin[]
  /** perps of the universe's kind left out, and why */
  excluded: ExcludedMarket[]
  /** the venues whose market list went in */
  venues: ExchangeId[]
  /** every coin any list (or fallback) names, with the venues listing it: the universe's and those on one venue */
  listed: ReadonlyMap<string, ExchangeId[]>
}

/** a linear perpetual settled in USDT or USDC, active, and on Hyperliquid on its main dex (HIP-3 dexes are not ours) */
function isUniversePerp(exchange: ExchangeId, m: MarketInterface): boolean {
  if (m.swap !== true || m.linear !== true || m.active === false) return false
  if (!SETTLES.has(String(m.settle ?? '').toUpperCase())) return false
  if (exchange === 'hyperliquid' && (m.info as { dex?: unknown } | undefined)?.dex !== undefined) return false
  return true
}

/** a universe perp -> its coin, or why it is left out */
/** the base as the venue names it: CCXT upper-cases Hyperliquid's names (kPEPE -> KPEPE), the venue keeps the lot's lower-case k */
function venueBase(exchange: ExchangeId, m: MarketInterface): string {
  const hl = exchange === 'hyperliquid' ? ((m as { baseName?: string }).baseName ?? (m.info as { name?: string } | undefined)?.name) : undefined
  return String(hl ?? m.base ?? '')
}

function coinOfPerp(exchange: ExchangeId, m: MarketInterface): { coin: string } | { reason: ExclusionReason; multiplier: number | null } {
  const base = venueBase(exchange, m)
  const multiplier = multiplierOf(exchange, base)
  if (multiplier !== null) return { reason: 'multiplier', multiplier }
  const coin = base.toUpperCase()
  return COIN_NAME.test(coin) ? { coin } : { reason: 'name', multiplier: null }
}

/**
 * The universe from each venue's loaded markets. `fallback` gives, for a venue whose list could not be loaded, the
 * coins it listed when last seen, so a venue that failed to answer does not drop its coins out of the universe.
 */
export function universeOf(
  lists: Partial<Record<ExchangeId, readonly MarketInterface[]>>,
  opts: { minVenues?: number; fallback?: Partial<Record<ExchangeId, ReadonlySet<string>>> } = {},
): Universe {
  const min = opts.minVenues ?? UNIVERSE_MIN_VENUES
  const listing = new Map<string, Set<ExchangeId>>()
  const excluded: ExcludedMarket[] = []
  const add = (coin: string, e: ExchangeId) => {
    let s = listing.get(coin)
    if (!s) listing.set(coin, (s = new Set()))
    s.add(e)
  }
  const venues: ExchangeId[] = []
  for (const e of EXCHANGE_IDS) {
    const list = lists[e]
    if (!list) {
      for (const coin of opts.fallback?.[e] ?? []) add(coin, e)
      continue
    }
    venues.push(e)
    for (const m of list) {
      if (!isUniversePerp(e, m)) continue
      const c = coinOfPerp(e, m)
      if ('coin' in c) add(c.coin, e)
      else excluded.push({ exchange: e, name: e === 'hyperliquid' ? venueBase(e, m) : String(m.id), symbol: m.symbol, reason: c.reason, multiplier: c.multiplier })
    }
  }
  const listed = new Map([...listing].map(([coin, s]) => [coin, EXCHANGE_IDS.filter((e) => s.has(e))]))
  const coins = [...listed]
    .filter(([, v]) => v.length >= min)
    .map(([coin, venues]) => ({ coin, venues }))
    .sort((a, b) => (a.coin < b.coin ? -1 : a.coin > b.coin ? 1 : 0))
  excluded.sort((a, b) => EXCHANGE_IDS.indexOf(a.exchange) - EXCHANGE_IDS.indexOf(b.exchange) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return { coins, excluded, venues, listed }
}
