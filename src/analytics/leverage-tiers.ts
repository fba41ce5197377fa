// Venue leverage tiers (maintenance margin and max leverage by position size), how new positions are spread over
// them, and the isolated-margin liquidation price with a maintenance amount.
// Methodology and sources: docs/methodology.md#leverage-tiers.

export type LiquidationSide = 'long' | 'short'

/** one notional bracket of a venue's tier table */
export interface LeverageTier {
  /** position notional where the tier starts, and where it ends (Infinity for the last tier); USD, or coins for `unit: 'coin'` */
  minNotional: number
  maxNotional: number
  maintenanceMarginRate: number
  maxLeverage: number
  /** maintenance amount deducted from notional × rate (Binance `cum`, Bybit `mmDeduction`, Hyperliquid's deduction), USD */
  maintenanceAmount: number
}

/** live: fetched from the venue by this service; recorded: a shipped copy of a real venue payload; default: documented values */
type TierSource = 'live' | 'recorded' | 'default'

export interface TierTable {
  /** ascending and contiguous */
  tiers: LeverageTier[]
  /** the bounds' unit: OKX sizes its tiers in contracts (converted to coins), the others in USD notional */
  unit: 'usd' | 'coin'
  source: TierSource
  /** where the table comes from (endpoint, recording or document) */
  note: string
  /** when it was fetched or recorded, Unix ms; null when unknown */
  asOf: number | null
}

export interface LeverageWeight {
  leverage: number
  /** share of new positions opened at this leverage (weights are normalized to sum 1) */
  weight: number
}

/**
 * The one leverage mix of new positions, by notional, read by the model (positionClasses) and by the simulator's
 * position book alike. Hyperliquid's open interest by leverage (on-chain, 2025-12-15: 36.3 % at 0–3x, 48.5 % at
 * 3–7x, 15.2 % above 7x), each band at a representative leverage; the source does not split the band above 7x, which
 * is spread halving with each step (10x, 20x, 50x). Sources and limits: docs/methodology.md#leverage-mix.
 */
export const DEFAULT_LEVERAGE_MIX: readonly LeverageWeight[] = [
  { leverage: 2, weight: 0.363 },
  { leverage: 5, weight: 0.485 },
  { leverage: 10, weight: 0.087 },
  { leverage: 20, weight: 0.043 },
  { leverage: 50, weight: 0.022 },
]

/**
 * How long a position stays liquidatable, in the model and in the simulator alike: one opened longer ago is taken as
 * closed or re-margined. The liquidation maps read this much build-up; the calibration window is as long.
 */
export const POSITION_HORIZON_HOURS = 7 * 24

/** tail exponent of position notional, P(N > x) ∝ x^-α: the inverse half-cubic law of trade sizes (Gabaix et al. 2003) */
const POSITION_SIZE_TAIL = 1.5
/** smallest position notional of the size distribution, USD */
const POSITION_SIZE_MIN_USD = 1_000

/** the documented default for a venue without a table: one tier, 0.5 % maintenance margin, up to 100x */
export const DEFAULT_TIERS: readonly LeverageTier[] = [
  { minNotional: 0, maxNotional: Infinity, maintenanceMarginRate: 0.005, maxLeverage: 100, maintenanceAmount: 0 },
]

/**
 * Isolated-margin liquidation price of a position of notional N opened at `entry` with leverage L, in a tier with
 * maintenance margin rate m and maintenance amount c (k = c / N): the price where the margin balance
 * N/L + Q(P − entry) equals the maintenance margin Q·P·m − c (Binance's USDⓈ-M formula with TMM = UPNL = 0).
 * long: entry·((1 − 1/L) − k)/(1 − m), short: entry·((1 + 1/L) + k)/(1 + m).
 */
export function liquidationPrice(entry: number, side: LiquidationSide, leverage: number, mmr: number, amountOverNotional = 0): number {
  return side === 'long'
    ? (entry * (1 - 1 / leverage - amountOverNotional)) / (1 - mmr)
    : (entry * (1 + 1 / leverage + amountOverNotional)) / (1 + mmr)
}

/** the maintenance amount that keeps maintenance margin continuous across tiers: c_n = c_{n−1} + lower_n·(m_n − m_{n−1}) */
export function continuousMaintenanceAmounts(tiers: readonly Omit<LeverageTier, 'maintenanceAmount'>[]): LeverageTier[] {
  let amount = 0
  return tiers.map((t, i) => {
    if (i > 0) amount += t.minNotional * (t.maintenanceMarginRate - tiers[i - 1]!.maintenanceMarginRate)
    return { ...t, maintenanceAmount: amount }
  })
}

/** a table's tiers in USD notional at `price` (coin-sized tiers scale with the price) */
export function tiersInUsd(table: Pick<TierTable, 'tiers' | 'unit'>, price: number): LeverageTier[] {
  if (table.unit === 'usd') return table.tiers
  return table.tiers.map((t) => ({ ...t, minNotional: t.minNotional * price, maxNotional: t.maxNotional * price }))
}

/** one kind of position: its share of new OI, leverage, and the tier terms its liquidation price uses */
export interface PositionClass {
  /** share of new open interest (classes sum to 1) */
  weight: number
  leverage: number
  maintenanceMarginRate: number
  /** notional-weighted mean of maintenance amount / notional over the tier's positions */
  amountOverNotional: number
  /** 1-based tier number */
  tier: number
}

export interface PositionClassOptions {
  leverageMix?: readonly LeverageWeight[]
  sizeTail?: number
  minSizeUsd?: number
}

/**
 * Spread new open interest over a venue's tiers and leverages. Position notional is Pareto(α, x_min): the notional
 * share of [a, b) is (a^(1−α) − b^(1−α)) / x_min^(1−α) for a ≥ x_min. Within a tier the leverage mix applies, each
 * leverage capped at the tier's maximum (a position cannot be opened above it). The maintenance amount enters as
 * its notional-weighted mean over the tier: c · E[1/N] = c · (α−1)/α · (a^−α − b^−α) / (a^(1−α) − b^(1−α)).
 */
export function positionClasses(tiers: readonly LeverageTier[], options: PositionClassOptions = {}): PositionClass[] {
  const alpha = options.sizeTail ?? POSITION_SIZE_TAIL
  const xmin = options.minSizeUsd ?? POSITION_SIZE_MIN_USD
  if (!(alpha > 1)) throw new RangeError(`sizeTail must be > 1, got ${alpha}`)
  if (!(xmin > 0)) throw new RangeError(`minSizeUsd must be > 0, got ${xmin}`)
  const mix = normalizeMix(options.leverageMix ?? DEFAULT_LEVERAGE_MIX)
  const table = tiers.length ? tiers : DEFAULT_TIERS
  const pow = (x: number, e: number) => (x === Infinity ? 0 : x ** e)
  const out: PositionClass[] = []
  table.forEach((t, i) => {
    const a = Math.max(t.minNotional, xmin)
    const b = i === table.length - 1 ? Infinity : t.maxNotional
    if (!(b > a)) return
    const share = (pow(a, 1 - alpha) - pow(b, 1 - alpha)) / xmin ** (1 - alpha)
    if (!(share > 0)) return
    const meanInverse = ((alpha - 1) / alpha) * ((pow(a, -alpha) - pow(b, -alpha)) / (pow(a, 1 - alpha) - pow(b, 1 - alpha)))
    const k = Math.max(0, t.maintenanceAmount) * meanInverse
    const m = t.maintenanceMarginRate
    // a leverage whose initial margin does not cover maintenance would be liquidated on opening: the venue refuses it
    const cap = Math.min(t.maxLeverage > 0 ? t.maxLeverage : Infinity, m - k > 0 ? 1 / (m - k) - 1e-9 : Infinity)
    const byLeverage = new Map<number, number>()
    for (const { leverage, weight } of mix) {
      const l = Math.min(leverage, cap)
      byLeverage.set(l, (byLeverage.get(l) ?? 0) + weight)
    }
    for (const [leverage, weight] of byLeverage) out.push({ weight: share * weight, leverage, maintenanceMarginRate: m, amountOverNotional: k, tier: i + 1 })
  })
  const total = out.reduce((s, c) => s + c.weight, 0)
  if (!(total > 0)) throw new RangeError('no tier holds any position size')
  for (const c of out) c.weight /= total
  return out
}

/** one class's liquidation prices per unit of entry price (liquidationPrice at entry 1), with its weight */
export interface ClassFactor {
  weight: number
  long: number
  short: number
}

/** the classes' liquidation price factors; a class that could not be opened (long ≤ 0, or not beyond entry) is left out */
export function classFactors(classes: readonly PositionClass[]): ClassFactor[] {
  return classes
    .filter((c) => c.weight > 0)
    .map((c) => ({
      weight: c.weight,
      long: liquidationPrice(1, 'long', c.leverage, c.maintenanceMarginRate, c.amountOverNotional),
      short: liquidationPrice(1, 'short', c.leverage, c.maintenanceMarginRate, c.amountOverNotional),
    }))
    .filter((f) => f.long > 0 && f.long < 1 && f.short > 1)
}

/** the classes of the pre-tier model: one maintenance margin rate for every position, the leverage mix as given */
export function uniformClasses(mmr: number, leverageMix: readonly LeverageWeight[] = DEFAULT_LEVERAGE_MIX): PositionClass[] {
  if (!(mmr >= 0 && mmr < 1)) throw new RangeError(`maintenanceMarginRate must be in [0, 1), got ${mmr}`)
  return normalizeMix(leverageMix).map((m) => {
    if (!(1 / m.leverage > mmr)) throw new RangeError(`leverage ${m.leverage} must have 1/leverage > maintenance margin rate ${mmr}`)
    return { weight: m.weight, leverage: m.leverage, maintenanceMarginRate: mmr, amountOverNotional: 0, tier: 1 }
  })
}

function normalizeMix(mix: readonly LeverageWeight[]): LeverageWeight[] {
  let sum = 0
  for (const m of mix) {
    if (!(m.leverage > 0) || !Number.isFinite(m.leverage)) throw new RangeError(`leverage must be > 0, got ${m.leverage}`)
    if (!(m.weight >= 0)) throw new RangeError(`leverage weight must be >= 0, got ${m.weight}`)
    sum += m.weight
  }
  if (!(sum > 0)) throw new RangeError('leverage weights must not all be zero')
  return mix.map((m) => ({ leverage: m.leverage, weight: m.weight / sum }))
}
