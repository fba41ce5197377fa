// Leverage-tier payloads of the five venues, raw body -> tiers (maintenance margin rate, max leverage and
// maintenance amount by position size). The connectors fetch the public ones (OKX, Bybit, Hyperliquid, dYdX);
// Binance's leverage brackets need a signed call, so a recorded copy is shipped (src/read/tiers/recorded/).
// Field meanings and sources: docs/methodology.md#leverage-tiers.
import { continuousMaintenanceAmounts, type LeverageTier } from '../../analytics/leverage-tiers.js'
import { num } from '../../domain/numbers.js'

/** one coin's table as a connector fetched it */
export interface FetchedTiers {
  coin: string
  tiers: LeverageTier[]
  /** OKX's bounds are coins (contracts × ctVal), the others USD */
  unit: 'usd' | 'coin'
  /** the endpoint it came from */
  note: string
}

const positive = (x: number | null): x is number => x !== null && x > 0

/** make bounds contiguous (each tier starts where the previous ends) and open the last tier upwards */
function contiguous(tiers: LeverageTier[]): LeverageTier[] {
  const sorted = [...tiers].sort((a, b) => a.minNotional - b.minNotional || a.maxNotional - b.maxNotional)
  return sorted.map((t, i) => ({ ...t, minNotional: i === 0 ? Math.max(0, t.minNotional) : sorted[i - 1]!.maxNotional, maxNotional: i === sorted.length - 1 ? Infinity : t.maxNotional }))
}

interface BinanceBracket {
  bracket?: string | number
  initialLeverage?: string | number
  notionalCap?: string | number
  notionalFloor?: string | number
  maintMarginRatio?: string | number
  cum?: string | number
}

/**
 * Binance USDⓈ-M leverage brackets (GET /fapi/v1/leverageBracket): `brackets[]` of the raw envelope, or CCXT's
 * fetchLeverageTiers rows whose `info` is the raw bracket. notionalFloor..notionalCap in USDT, maintMarginRatio,
 * initialLeverage (the bracket's max), cum = maintenance amount.
 */
export function parseBinanceBrackets(rows: readonly (BinanceBracket | { info?: BinanceBracket })[]): LeverageTier[] {
  const tiers: LeverageTier[] = []
  for (const row of rows) {
    const b: BinanceBracket = 'info' in row && row.info ? row.info : (row as BinanceBracket)
    const min = num(b.notionalFloor)
    const max = num(b.notionalCap)
    const mmr = num(b.maintMarginRatio)
    const lev = num(b.initialLeverage)
    if (min === null || !positive(max) || mmr === null || !positive(lev)) continue
    tiers.push({ minNotional: min, maxNotional: max, maintenanceMarginRate: mmr, maxLeverage: lev, maintenanceAmount: num(b.cum) ?? 0 })
  }
  return contiguous(tiers)
}

interface OkxTierRow {
  tier?: string
  minSz?: string
  maxSz?: string
  mmr?: string
  maxLever?: string
}

/**
 * OKX GET /api/v5/public/position-tiers?instType=SWAP&tdMode=isolated&instFamily=<coin>-USDT: `data[]` with
 * minSz..maxSz in contracts, mmr, maxLever. Bounds are returned in coins (contracts × ctVal). OKX publishes no
 * maintenance deduction: its maintenance margin is the tier's mmr × the position value.
 */
export function parseOkxPositionTiers(body: unknown, contractSize: number): LeverageTier[] {
  const data = ((body as { data?: OkxTierRow[] } | null)?.data ?? []).filter((r) => r && typeof r === 'object')
  const tiers: LeverageTier[] = []
  for (const r of data) {
    const min = num(r.minSz)
    const max = num(r.maxSz)
    const mmr = num(r.mmr)
    const lev = num(r.maxLever)
    if (min === null || !positive(max) || mmr === null || !positive(lev)) continue
    tiers.push({ minNotional: min * contractSize, maxNotional: max * contractSize, maintenanceMarginRate: mmr, maxLeverage: lev, maintenanceAmount: 0 })
  }
  return contiguous(tiers)
}

interface BybitRiskLimitRow {
  riskLimitValue?: string
  maintenanceMargin?: string | number
  initialMargin?: string | number
  maxLeverage?: string
  mmDeduction?: string
}

/**
 * Bybit GET /v5/market/risk-limit?category=linear&symbol=<coin>USDT: `result.list[]`, each tier up to
 * riskLimitValue (USDT position value), maintenanceMargin (rate), maxLeverage, mmDeduction (maintenance margin
 * deduction, USDT; empty on the lowest tier). A tier starts where the one below ends. Rates are fractions
 * (linear: "0.005" at 100x); a row whose initial margin × max leverage is 100 states them in percent (the v5 docs'
 * inverse example: "0.5" and "1" at 100x), and is scaled.
 */
export function parseBybitRiskLimit(body: unknown): LeverageTier[] {
  const list = ((body as { result?: { list?: BybitRiskLimitRow[] } } | null)?.result?.list ?? []).filter((r) => r && typeof r === 'object')
  const tiers: LeverageTier[] = []
  for (const r of list) {
    const max = num(r.riskLimitValue)
    const lev = num(r.maxLeverage)
    const im = num(r.initialMargin)
    const scale = im !== null && lev !== null && Math.abs(im * lev - 100) < 1 ? 0.01 : 1
    const mmr = num(r.maintenanceMargin)
    if (!positive(max) || mmr === null || !positive(lev)) continue
    tiers.push({ minNotional: 0, maxNotional: max, maintenanceMarginRate: mmr * scale, maxLeverage: lev, maintenanceAmount: num(r.mmDeduction) ?? 0 })
  }
  tiers.sort((a, b) => a.maxNotional - b.maxNotional)
  tiers.forEach((t, i) => (t.minNotional = i === 0 ? 0 : tiers[i - 1]!.maxNotional))
  return contiguous(tiers)
}

interface HyperliquidMeta {
  universe?: { name?: string; maxLeverage?: number; marginTableId?: number }[]
  marginTables?: [number, { description?: string; marginTiers?: { lowerBound?: string; maxLeverage?: number }[] }][]
}

/** Hyperliquid table ids below this are one tier at that leverage, never listed in marginTables */
const HYPERLIQUID_FLAT_TABLES_BELOW = 50

/**
 * Hyperliquid POST /info {"type":"meta"}: the coin's universe entry names its `marginTableId`; `marginTables`
 * lists [id, {marginTiers: [{lowerBound, maxLeverage}]}] (ids under 50 are one tier at that leverage). Per tier:
 * maintenance rate = half the initial margin at its max leverage, 1 / (2 · maxLeverage); maintenance deduction
 * chosen so maintenance margin is continuous in position size. Without a table id, the entry's maxLeverage.
 */
export function parseHyperliquidMarginTiers(meta: unknown, coin: string): LeverageTier[] | null {
  const m = meta as HyperliquidMeta | null
  const asset = m?.universe?.find((u) => u?.name === coin)
  if (!asset) return null
  let steps: { lower: number; lev: number }[] = []
  const id = asset.marginTableId
  const listed = id === undefined ? undefined : m?.marginTables?.find(([tid]) => tid === id)?.[1]
  if (listed?.marginTiers?.length) steps = listed.marginTiers.map((t) => ({ lower: num(t.lowerBound) ?? NaN, lev: num(t.maxLeverage) ?? NaN }))
  else if (id !== undefined && id > 0 && id < HYPERLIQUID_FLAT_TABLES_BELOW) steps = [{ lower: 0, lev: id }]
  else if (positive(num(asset.maxLeverage))) steps = [{ lower: 0, lev: asset.maxLeverage! }]
  steps = steps.filter((s) => s.lower >= 0 && s.lev > 0).sort((a, b) => a.lower - b.lower)
  if (!steps.length) return null
  return hyperliquidTiers(steps)
}

/** tiers from Hyperliquid's [lower bound, max leverage] steps (the form its docs and `meta` give them in) */
export function hyperliquidTiers(steps: readonly { lower: number; lev: number }[]): LeverageTier[] {
  return continuousMaintenanceAmounts(
    steps.map((s, i) => ({ minNotional: s.lower, maxNotional: steps[i + 1]?.lower ?? Infinity, maintenanceMarginRate: 1 / (2 * s.lev), maxLeverage: s.lev })),
  )
}

/**
 * dYdX v4 GET /v4/perpetualMarkets: per ticker (BTC-USD) initialMarginFraction and maintenanceMarginFraction, one
 * tier for every size: max leverage 1 / IMF, maintenance rate MMF. Keyed by base coin.
 */
export function parseDydxMarginFractions(body: unknown): Map<string, LeverageTier[]> {
  const markets = (body as { markets?: Record<string, { initialMarginFraction?: string; maintenanceMarginFraction?: string }> } | null)?.markets ?? {}
  const out = new Map<string, LeverageTier[]>()
  for (const [ticker, m] of Object.entries(markets)) {
    const imf = num(m?.initialMarginFraction)
    const mmf = num(m?.maintenanceMarginFraction)
    if (!positive(imf) || mmf === null || !(mmf < imf)) continue
    out.set(ticker.replace(/-USD$/, ''), [{ minNotional: 0, maxNotional: Infinity, maintenanceMarginRate: mmf, maxLeverage: 1 / imf, maintenanceAmount: 0 }])
  }
  return out
}
