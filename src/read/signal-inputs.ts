// Inputs of the signature models, built from the hot per-coin series (src/read/series.ts), and results
// memoized per series version: a model over weeks of history runs once per data refresh, not per request.
import { chainLink } from '../analytics/chain-link.js'
import { computeDivergence, divergenceLookbackMinutes, type CoinDivergence, type DivergenceMinute } from '../analytics/divergence.js'
import { POSITION_HORIZON_HOURS, positionClasses, tiersInUsd, type PositionClass, type TierTable } from '../analytics/leverage-tiers.js'
import { estimateLiquidationMap, type LiquidationLevel, type OiBuildUpPoint } from '../analytics/liquidation-map.js'
import { classifyRegime, REGIME_HISTORY_HOURS, REGIME_WINDOW_HOURS, type RegimeHour, type RegimeResult } from '../analytics/regime.js'
import { DAY_MS, HOUR_MS, MINUTE_MS, floorTo } from '../domain/time.js'
import { EXCHANGE_IDS, type ExchangeId } from '../domain/exchanges.js'
import type { CoinPoint } from './series.js'
import type { SampleCell } from './series-ring.js'
import type { MarketState } from './state.js'
import { calibrateVenue, hourlyPairs } from '../analytics/liquidation-calibration.js'
import { outlierReason, outlierRunReason, outlierRuns, type OutlierRun } from '../analytics/price-outliers.js'
import type { CoverageGap } from '../analytics/coverage.js'
import { lackGaps } from '../analytics/provenance.js'
import { LIQUIDATION_FEEDS } from '../domain/liquidations.js'
import { hourRanges } from './coverage.js'
import { liveSamples } from './market-data.js'
import { cacheOf } from './versioned-cache.js'

/** minutes of the divergence grid taken from minute cells; older windows come from hourly cells */
const DIVERGENCE_MINUTE_TAIL_MS = 6 * HOUR_MS
/** hours of a liquidation map's calibration window; its build-up starts a position horizon earlier, so every hour of the window sees the positions still open then */
export const CASCADE_OI_HOURS = POSITION_HORIZON_HOURS

/**
 * One result per key, reused while the series version and the stamp (e.g. the current minute) stay the same; with
 * `before`, for a result that reads only buckets before that time, while no change touched them.
 */
function memoized<T>(market: MarketState, key: string, stamp: number | string, compute: () => T, before?: number): T {
  const version = before === undefined ? market.series.version : `<${market.series.versionBefore(before)}`
  return cacheOf<unknown>(market, 'signal-inputs', { maxEntries: 512 }).get(key, `${version}|${stamp}`, compute) as T
}

/** the coin's divergence grid points: hourly (placed at each hour's last minute) then minutes for the tail */
function divergencePoints(market: MarketState, coin: string, now: number): { p: CoinPoint; ts: number }[] {
  const end = floorTo(now, MINUTE_MS)
  const tailStart = floorTo(end - DIVERGENCE_MINUTE_TAIL_MS, HOUR_MS)
  const from = end - divergenceLookbackMinutes('4h') * MINUTE_MS
  return [
    ...market.series.hours.points(coin, from, tailStart).map((p) => ({ p, ts: p.ts + HOUR_MS - MINUTE_MS })),
    ...market.series.minutes.points(coin, tailStart, end).map((p) => ({ p, ts: p.ts })),
  ]
}

/**
 * The coin's divergence grid: hourly points then minutes for the tail. OI and funding are chain-linked over the whole
 * grid (each step measured over the venues present at both ends), so a venue's feed gap is not a move; every minute
 * names the venues behind each input.
 */
function divergenceMinutes(points: readonly { p: CoinPoint; ts: number }[]): DivergenceMinute[] {
  const linked = chainLink(points.map(({ p }) => p.venues))
  return points.map(({ p, ts }, i) => ({
    ts,
    price: p.close,
    openInterest: linked[i]!.oi,
    fundingRate: linked[i]!.funding8h,
    perpBuyVolume: p.perpBuy,
    perpSellVolume: p.perpSell,
    spotBuyVolume: p.spotBuy,
    spotSellVolume: p.spotSell,
    exchanges: { price: p.perpExchanges, perp: p.perpExchanges, spot: p.spotExchanges, openInterest: linked[i]!.oiExchanges, fundingRate: linked[i]!.fundingExchanges },
  }))
}

/** the venues left out of a run of composite closes as outliers, and how many closes there were */
export interface CloseOutliers {
  runs: OutlierRun[]
  closes: number
}

export const closeOutliersOf = (points: readonly CoinPoint[]): CloseOutliers => ({
  runs: outlierRuns(points.map((p) => ({ ts: p.ts, outliers: p.perpOutliers, median: p.perpMedian }))),
  closes: points.filter((p) => p.close !== null).length,
})

/** a coverage's gaps for the venues left out of the composite closes a figure read (status outlier) */
export const closeOutlierGaps = (o: CloseOutliers): CoverageGap[] =>
  o.runs.map((run) => ({ exchange: run.exchange, status: 'outlier', reason: outlierRunReason(run, o.closes, 'composite closes') }))

export function coinDivergence(market: MarketState, coin: string, now: number): CoinDivergence & { closeOutliers: CloseOutliers } {
  return memoized(market, `divergence:${coin}`, floorTo(now, MINUTE_MS), () => {
    const points = divergencePoints(market, coin, now)
    return { ...computeDivergence(coin, divergenceMinutes(points)), closeOutliers: closeOutliersOf(points.map(({ p }) => p)) }
  })
}

/** the hourly inputs of the regime classifier in [from, to), oldest first (OI chain-linked over the same venues) */
function regimeHours(market: MarketState, coin: string, from: number, to: number): RegimeHour[] {
  const points = market.series.hours.points(coin, from, to)
  const linked = chainLink(points.map((p) => p.venues))
  return points.flatMap((p, i) =>
    p.close === null ? [] : [{ ts: p.ts, close: p.close, openInterest: linked[i]!.oi, exchanges: p.perpExchanges, oiExchanges: linked[i]!.oiExchanges }],
  )
}

/** hours of history one classification reads, ending at the hour it is made */
export const REGIME_SPAN_MS = (REGIME_HISTORY_HOURS + REGIME_WINDOW_HOURS + 1) * HOUR_MS

export function coinRegime(market: MarketState, coin: string, now: number): RegimeResult {
  const to = floorTo(now, HOUR_MS)
  return memoized(market, `regime:${coin}`, to, () => classifyRegime(coin, regimeHours(market, coin, to - REGIME_SPAN_MS, to)), to)
}

/** the venues left out of the coin's hourly composite closes of the hours starting in [from, to) as outliers (a coverage's gaps) */
export function hourCloseOutliers(market: MarketState, coin: string, from: number, to: number): CloseOutliers {
  const [fromHour, toHour] = [Math.ceil(from / HOUR_MS), Math.ceil(to / HOUR_MS)]
  return memoized(market, `close-outliers|${coin}|${fromHour}|${toHour}`, toHour, () => closeOutliersOf(market.series.hours.points(coin, fromHour * HOUR_MS, toHour * HOUR_MS)), toHour * HOUR_MS)
}

export interface RegimePoint extends RegimeResult {
  /** interval start */
  ts: number
  /** the classification is made on the complete hours before this: the interval's end, or the current hour */
  asOf: number
}

/**
 * The regime at each interval start given: classified on the complete hours before the interval's end (the current
 * hour for an interval in progress), as coinRegime classifies now. An interval without an hourly close is absent.
 */
export function regimeHistory(market: MarketState, coin: string, slots: readonly number[], intervalMs: number, now: number): RegimePoint[] {
  if (!slots.length) return []
  const current = floorTo(now, HOUR_MS)
  const last = Math.min(slots.at(-1)! + intervalMs, current)
  // complete hours only: a write of the hour in progress leaves the history as it was
  return memoized(market, `regime-history:${coin}:${intervalMs}:${slots[0]}:${slots.length}`, current, () => {
    const hours = regimeHours(market, coin, slots[0]! - REGIME_SPAN_MS, last)
    const out: RegimePoint[] = []
    let lo = 0
    let hi = 0
    for (const ts of slots) {
      const asOf = Math.min(ts + intervalMs, current)
      if (asOf <= ts) continue
      while (hi < hours.length && hours[hi]!.ts < asOf) hi++
      while (lo < hi && hours[lo]!.ts < asOf - REGIME_SPAN_MS) lo++
      if (!hours.slice(lo, hi).some((h) => h.ts >= ts)) continue
      out.push({ ts, asOf, ...classifyRegime(coin, hours.slice(lo, hi)) })
    }
    return out
  }, last)
}

/** one venue's hourly OI build-up over the hours starting in [from, to), each with its hour (the heatmap's input) */
export function hourlyBuildUp(market: MarketState, coin: string, exchange: ExchangeId, from: number, to: number): { ts: number; point: OiBuildUpPoint }[] {
  const points = market.series.hours.points(coin, from - HOUR_MS, to, exchange)
  const out: { ts: number; point: OiBuildUpPoint }[] = []
  for (let i = 1; i < points.length; i++) {
    const p = points[i]!
    const prev = points[i - 1]!
    const price = p.vwap ?? p.close
    const oi = p.venues.oi[exchange]
    const before = prev.venues.oi[exchange]
    if (price === null || oi === undefined || before === undefined) continue
    out.push({ ts: p.ts, point: { ts: p.ts, price, oiChangeCoins: oi - before, openInterestCoins: before, buyVolume: p.perpBuy, sellVolume: p.perpSell, low: p.low ?? price, high: p.high ?? price } })
  }
  return out
}

/** the position classes of a venue's tier table, coin-sized tiers converted at `price` */
export function venueClasses(market: MarketState, coin: string, exchange: ExchangeId, now: number, price: number | undefined): { tiers: TierTable; classes: PositionClass[] } {
  const tiers = market.tiers.get(exchange, coin, now)
  return { tiers, classes: positionClasses(price ? tiersInUsd(tiers, price) : tiers.unit === 'usd' ? tiers.tiers : []) }
}

/** one venue's liquidation map and what it was built from */
export interface VenueLiquidationMap {
  exchange: ExchangeId
  /** tagged with the venue, ascending by price */
  levels: LiquidationLevel[]
  estimatedUsd: number
  tiers: TierTable
  /** hours of build-up the map was estimated from */
  hours: number
  /** USD of estimated positions the build-up's own ranges liquidated in the window [from, to), and per hour of it */
  sweptUsd: number
  hourly: { ts: number; sweptUsd: number }[]
  window: { from: number; to: number }
  /** the build-up reaches a position horizon before the window (its first hour, which has no hour before it, spared) */
  warmedUp: boolean
}

/** the map's build-up starts this long before its calibration window */
const POSITION_HORIZON_MS = POSITION_HORIZON_HOURS * HOUR_MS

/**
 * A venue's liquidation map from its own OI build-up and its own tier table, once per data refresh and hour: positions
 * of the last position horizon (what the levels hold), built from a horizon before the calibration window so every
 * hour of the window sweeps the positions open then.
 */
export function venueLiquidationMap(market: MarketState, coin: string, exchange: ExchangeId, now: number): VenueLiquidationMap {
  const tiers = market.tiers.get(exchange, coin, now)
  // keyed by source, not by fetch time: a bounded set of keys (the series version changes with every flush anyway)
  return memoized(market, `cascade-map|${coin}|${exchange}|${tiers.source}`, floorTo(now, HOUR_MS), () => {
    const to = floorTo(now, HOUR_MS) + HOUR_MS
    const from = to - CASCADE_OI_HOURS * HOUR_MS
    const buildUp = hourlyBuildUp(market, coin, exchange, from - POSITION_HORIZON_MS, to)
    const series = buildUp.map((p) => p.point)
    // coin-sized tiers (OKX) are converted at the latest build-up price: stable within the hour, unlike the mark
    const price = series.at(-1)?.price
    const classes = positionClasses(price ? tiersInUsd(tiers, price) : tiers.unit === 'usd' ? tiers.tiers : [])
    const map = estimateLiquidationMap(series, { classes, horizonMs: POSITION_HORIZON_MS })
    const levels = map.levels.map((l) => ({ ...l, exchange }))
    const hourly = buildUp.flatMap((p, i) => (p.ts >= from ? [{ ts: p.ts, sweptUsd: map.trace.swept[i]! }] : []))
    return {
      exchange, levels, estimatedUsd: levels.reduce((s, l) => s + l.notionalUsd, 0), tiers, hours: series.length,
      sweptUsd: hourly.reduce((s, h) => s + h.sweptUsd, 0), hourly, window: { from, to },
      warmedUp: buildUp.length > 0 && buildUp[0]!.ts <= from - POSITION_HORIZON_MS + HOUR_MS,
    }
  })
}

/**
 * Each venue's liquidation map calibrated by the liquidations that venue published over the map's calibration window
 * (analytics/liquidation-calibration.ts), with its score and every level in one list: once per data refresh (the
 * series and the stored liquidations), not per answer — the calibration reads a week of liquidation minutes.
 */
export function calibratedLiquidationMaps(market: MarketState, coin: string, venues: readonly ExchangeId[], exchange: ExchangeId | undefined, now: number) {
  const modelled = venues.map((e) => venueLiquidationMap(market, coin, e, now))
  const window = modelled[0]!.window
  const key = `cascade-calibrated|${coin}|${exchange ?? '*'}|${modelled.map((m) => `${m.exchange}:${m.tiers.source}`).join(',')}`
  return memoized(market, key, `${window.from}|${market.reader.version('liquidations')}`, async () => {
    const minutes = await market.reader.liquidationMinutes([coin], window.from, window.to, exchange)
    const maps = modelled.map((m) => {
      const mine = minutes.filter((r) => r.exchange === m.exchange)
      const feed = LIQUIDATION_FEEDS[m.exchange]
      const calibration = calibrateVenue({
        published: feed.published,
        completeness: feed.completeness,
        note: feed.note,
        orders: mine.reduce((s, r) => s + r.longCount + r.shortCount, 0),
        observedUsd: mine.reduce((s, r) => s + r.longUsd + r.shortUsd, 0),
        modelledUsd: m.sweptUsd,
        hourly: hourlyPairs(m.hourly, mine.map((r) => ({ ts: r.ts, usd: r.longUsd + r.shortUsd })), window.from, window.to),
        warmedUp: m.warmedUp,
      })
      const f = calibration.factor
      const levels = f === 1 ? m.levels : m.levels.map((l) => ({ ...l, notionalUsd: l.notionalUsd * f }))
      return { ...m, levels, estimatedUsd: m.estimatedUsd * f, calibration }
    })
    return { window, maps, levels: maps.flatMap((m) => m.levels) }
  })
}

/**
 * Each venue's span of hours with a perp close in [from, to) (a coverage's ranges). The hours in reach are the same
 * for every `from` and `to` within one hour, and change only with a change of the series before `to`'s hour: kept
 * per those, not recomputed per request.
 */
export function closeHourRanges(market: MarketState, coin: string, from: number, to: number) {
  const [fromHour, toHour] = [Math.ceil(from / HOUR_MS), Math.ceil(to / HOUR_MS)]
  return memoized(market, `close-hours|${coin}|${fromHour}|${toHour}`, toHour, () => hourRanges(market.series.hours.perpCloses(coin, from, to)), toHour * HOUR_MS)
}

/** the hours of each venue's open-interest samples in [from, to) (a coverage's ranges), once per series version */
export function oiHourRanges(market: MarketState, coin: string, from: number, to: number, only: ExchangeId | undefined) {
  return memoized(market, `oi-hours|${coin}|${only ?? '*'}`, `${from}|${to}`, () =>
    hourRanges(market.series.hours.perpSamples(coin, from, to).filter((c) => c.oi !== null && (!only || c.exchange === only))),
  )
}

/** a venue left out of a composite close as an outlier: which close, and why */
export interface CloseOutlier {
  exchange: ExchangeId
  /** the minute of the composite close it was left out of */
  ts: number
  reason: string
}

/** the latest composite perp close and its change from the close 24 h before that one (same minute of day) */
export function priceChange24h(market: MarketState, coin: string, now: number): { price: number | null; changePct: number | null; outliers: CloseOutlier[] } {
  const { price, changes, outliers } = priceChanges(market, coin, now, [24 * HOUR_MS])
  return { price, changePct: changes[0]!, outliers }
}

/**
 * The latest composite perp close (of the last 30 minutes) and, per horizon, its change from the latest close at or
 * before the same minute one horizon earlier (within 30 minutes of it): the overview's and the snapshot's changes.
 * `outliers`: the venues left out of any of those closes (their close far off the other venues'), per close.
 */
export function priceChanges(market: MarketState, coin: string, now: number, horizonsMs: readonly number[]): { price: number | null; ts: number | null; changes: (number | null)[]; outliers: CloseOutlier[] } {
  const to = floorTo(now, MINUTE_MS)
  const closeAt = (t: number) => market.series.minutes.points(coin, t - 30 * MINUTE_MS, t + MINUTE_MS).filter((p) => p.close !== null).at(-1)
  const latest = closeAt(to)
  if (!latest) return { price: null, ts: null, changes: horizonsMs.map(() => null), outliers: [] }
  const outliers: CloseOutlier[] = []
  const aside = (p: CoinPoint) => {
    for (const o of p.perpOutliers) outliers.push({ exchange: o.exchange, ts: p.ts, reason: outlierReason(o, p.perpMedian!) })
  }
  aside(latest)
  return {
    price: latest.close,
    ts: latest.ts,
    changes: horizonsMs.map((h) => {
      const ref = closeAt(latest.ts - h)
      if (ref) aside(ref)
      return ref?.close ? ((latest.close! - ref.close) / ref.close) * 100 : null
    }),
    outliers,
  }
}

/**
 * Σ quote volume (USD: USDT and USDC count as USD) of the coin's perp minute candles in [from, to), and the venues in
 * it; minutes from venue klines without a quote volume are left out and named in `noQuote` (never estimated)
 */
export function perpQuoteVolume(market: MarketState, coin: string, from: number, to: number): { usd: number | null; exchanges: ExchangeId[]; bars: { exchange: ExchangeId; ts: number }[]; noQuote: string | null } {
  const bars = market.series.minutes.marketBars(coin, 'perp', from, to)
  let usd = 0
  for (const b of bars) if (b.quoteVolume !== null) usd += b.quoteVolume
  const quoted = bars.filter((b) => b.quoteVolume !== null)
  const lacking = lackGaps(bars, 'no_quote_volume', MINUTE_MS, { from, to })
  const noQuote = lacking.length ? `volume_24h_usd leaves out ${lacking.map((g) => `${g.exchange}: ${g.reason}`).join('; ')}` : null
  return { usd: quoted.length ? usd : null, exchanges: EXCHANGE_IDS.filter((e) => quoted.some((b) => b.exchange === e)), bars: quoted, noQuote }
}

/**
 * The same inputs the spread, weighted-funding and OI-change endpoints read from the store, taken from the hot
 * series instead (samples of the last day, the latest sample of each hour for a week), plus the live values: what
 * the snapshot feeds its models with (the spread's history is the marks of the last day's samples).
 */
export function seriesHistory(market: MarketState, coin: string, now: number) {
  const only = new Set([coin])
  const live = liveSamples(market, only).filter((s) => s.ts <= now)
  const hour = floorTo(now, HOUR_MS)
  const grids = market.series
  // the cells before the hour in progress are kept until a change reaches into them (a live write touches only the
  // hour in progress) or the windows' first bucket moves (keyed by the minute they start in); only the hour in
  // progress is read again after every write
  const head = memoized(
    market,
    `history:${coin}`,
    Math.ceil(now / MINUTE_MS),
    () => ({
      funding: grids.hours.perpSamples(coin, now - 7 * DAY_MS - HOUR_MS, hour).map(historySample),
      oi: grids.minutes.perpSamples(coin, now - DAY_MS - 10 * MINUTE_MS, hour).map(historySample),
    }),
    hour,
  )
  const fundingSamples = [...byExchange(head.funding, grids.hours.perpSamples(coin, hour, now).map(historySample)), ...live]
  const oiSamples = [...byExchange(head.oi, grids.minutes.perpSamples(coin, hour, now).map(historySample)), ...live]
  return { fundingSamples, oiSamples }
}

const historySample = (c: SampleCell & { exchange: ExchangeId }) => ({
  exchange: c.exchange,
  ts: c.ts,
  fundingRate: c.rate,
  fundingIntervalHours: c.interval,
  markPrice: c.mark,
  openInterest: c.oi,
})

/**
 * Two reads of the same tracks over consecutive windows, each by exchange (in the series' venue order) then time,
 * joined in that order: the rows one read of the whole window gives.
 */
export function byExchange<T extends { exchange: ExchangeId }>(head: readonly T[], tail: readonly T[]): T[] {
  const out: T[] = []
  let i = 0
  let j = 0
  while (i < head.length || j < tail.length) {
    // the next exchange in order: the smaller of the two reads' current ones
    const e = j >= tail.length || (i < head.length && head[i]!.exchange <= tail[j]!.exchange) ? head[i]!.exchange : tail[j]!.exchange
    while (i < head.length && head[i]!.exchange === e) out.push(head[i++]!)
    while (j < tail.length && tail[j]!.exchange === e) out.push(tail[j++]!)
  }
  return out
}
