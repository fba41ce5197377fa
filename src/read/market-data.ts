// What the analytics read, loaded for a set of coins at once: ONE reader call per table (and window) for all the
// coins asked, so "all coins" is one query, not twelve; results come back per coin, in the order asked.
import type { FundingSample } from '../analytics/funding.js'
import type { BookInput } from '../analytics/imbalance.js'
import type { OiSample } from '../analytics/oi-changes.js'
import type { PriceRow } from '../analytics/spread.js'
import type { TickerInput } from '../analytics/ticker.js'
import { type MinuteBar } from '../domain/minute-bars.js'
import { DAY_MS, HOUR_MS, MINUTE_MS } from '../domain/time.js'
import { EXCHANGE_IDS, type ExchangeId, type MarketType } from '../domain/exchanges.js'
import type { MarketState } from './state.js'
import type { MarketSample } from '../store/market/samples.js'
import { publishesMark } from '../domain/venue-prices.js'
import { cacheOf } from './versioned-cache.js'

const groupBy = <T extends { coin: string }>(coins: readonly string[], rows: readonly T[]): T[][] => {
  const by = new Map<string, T[]>(coins.map((c) => [c, []]))
  for (const r of rows) by.get(r.coin)?.push(r)
  return coins.map((c) => by.get(c)!)
}

/**
 * The latest row per venue, in the venues' fixed order: the live cache's order is the order its events arrived in,
 * which differs between processes (API nodes fed by the bus), and answers list venues in the order given here.
 */
const inVenueOrder = <T extends { exchange: ExchangeId }>(rows: T[]): T[] => rows.sort((a, b) => EXCHANGE_IDS.indexOf(a.exchange) - EXCHANGE_IDS.indexOf(b.exchange))

/** the live cache as sample rows (the newest values, fresher than anything stored) */
export function liveSamples(market: MarketState, coins: ReadonlySet<string>): MarketSample[] {
  const out: MarketSample[] = []
  for (const t of market.live.tickers.values()) {
    if (t.marketType !== 'perp' || !coins.has(t.coin)) continue
    const oi = market.live.openInterest.get(`${t.exchange}:${t.coin}:perp`)
    out.push({
      exchange: t.exchange, coin: t.coin, marketType: 'perp', ts: t.ts,
      markPrice: t.markPrice, indexPrice: t.indexPrice, lastPrice: t.lastPrice,
      fundingRate: t.fundingRate, fundingIntervalHours: t.fundingIntervalHours, nextFundingTime: t.nextFundingTime,
      openInterest: oi?.openInterest ?? null,
    })
  }
  return out
}

/**
 * Stored perp samples of [from, now) per coin: from the hot series when it mirrors the window (its minute grid holds
 * every one-minute slot; the hour grid holds each hour's latest sample, enough where only that one counts), else
 * from the store. The series holds every sample column these reads use.
 */
async function storedSamples(market: MarketState, coins: readonly string[], from: number, now: number, grid: 'minutes' | 'hours'): Promise<MarketSample[]> {
  const g = market.series[grid]
  if (!g.covers(from, now)) return market.reader.samples(coins, 'perp', from, now)
  // the store reads whole minutes, [ceil(from), ceil(now)): the same rows for every call within a minute, until the series moves
  const lo = Math.ceil(from / MINUTE_MS) * MINUTE_MS
  const hi = Math.ceil(now / MINUTE_MS) * MINUTE_MS
  const key = `${grid}|${coins.join(',')}|${lo}|${hi}`
  return cacheOf<MarketSample[]>(market, 'series-rows', { maxEntries: 8 }).get(key, market.series.version, () => seriesSamples(g, coins, lo, hi, from, now))
}

function seriesSamples(g: MarketState['series']['hours'], coins: readonly string[], lo: number, hi: number, from: number, now: number): MarketSample[] {
  const out: MarketSample[] = []
  for (const coin of coins)
    for (const c of g.perpSamples(coin, from, now))
      if (c.ts < hi && c.ts >= lo)
        out.push({
          exchange: c.exchange, coin, marketType: 'perp', ts: c.ts, markPrice: c.mark, indexPrice: null, lastPrice: null,
          fundingRate: c.rate, fundingIntervalHours: c.interval, nextFundingTime: null, openInterest: c.oi,
        })
  return out
}

/** perp samples of the funding statistics window (7 days; each hour's latest is what the statistics use) plus the live values */
export async function fundingSamples(market: MarketState, coins: readonly string[], now: number): Promise<FundingSample[][]> {
  const stored = await storedSamples(market, coins, now - 7 * DAY_MS - HOUR_MS, now, 'hours')
  return groupBy(coins, [...stored, ...liveSamples(market, new Set(coins))])
}

/** perp samples of the last 24 h (+ tolerance) plus the live values (OI changes; the spread's per-minute marks) */
export async function oiSamples(market: MarketState, coins: readonly string[], now: number): Promise<OiSample[][]> {
  const stored = await storedSamples(market, coins, now - DAY_MS - 10 * MINUTE_MS, now, 'minutes')
  return groupBy(coins, [...stored, ...liveSamples(market, new Set(coins))])
}

/** the latest book per exchange: the live cache, else the stored snapshot */
export async function latestBooks(market: MarketState, coins: readonly string[]): Promise<(BookInput & { coin: string })[][]> {
  const set = new Set(coins)
  const live = market.live.bookList().filter((b) => b.marketType === 'perp' && set.has(b.coin))
  const have = new Set(live.map((b) => `${b.exchange}:${b.coin}`))
  const missing = coins.filter((c) => EXCHANGE_IDS.some((e) => !have.has(`${e}:${c}`)))
  const stored = missing.length ? (await market.reader.books(missing, 'perp')).filter((b) => !have.has(`${b.exchange}:${b.coin}`)) : []
  return groupBy(coins, inVenueOrder([...live, ...stored]))
}

/** the latest ticker per exchange: the live cache, else the newest stored sample of the last 10 minutes */
export async function latestTickers(market: MarketState, coins: readonly string[], now: number): Promise<TickerInput[][]> {
  const set = new Set(coins)
  const live: TickerInput[] = market.live.tickerList().filter((t) => t.marketType === 'perp' && set.has(t.coin))
  const have = new Set(live.map((t) => `${t.exchange}:${t.coin}`))
  // the store only for coins some exchange has no live ticker for (another process ingests, or a feed is off)
  const lacking = coins.filter((c) => EXCHANGE_IDS.some((e) => !have.has(`${e}:${c}`)))
  const stored = lacking.length ? (await market.reader.samples(lacking, 'perp', now - 10 * MINUTE_MS, now)).filter((s) => !have.has(`${s.exchange}:${s.coin}`)) : []
  return groupBy(coins, inVenueOrder([...live, ...stored]))
}

/**
 * candles of one coin over [start, end): hourly rollups for whole hours, minutes for the edges. Without volume at
 * price, every part the in-memory series mirrors (hours of the retention window, minutes of the last day) is
 * taken from there, and only what it does not hold (e.g. the first partial hour of a 30-day window) is read.
 */
export async function loadBars(
  market: MarketState,
  q: { coin: string; marketType: MarketType; start: number; end: number; exchange?: ExchangeId; withVap?: boolean; hourly: boolean },
): Promise<MinuteBar[]> {
  const { reader, series } = market
  const filter = (bars: MinuteBar[]) => (q.exchange ? bars.filter((b) => b.exchange === q.exchange) : bars)
  const minutes = async (from: number, to: number): Promise<MinuteBar[]> => {
    if (to <= from) return []
    if (!q.withVap && series.minutes.covers(from, to)) return series.minutes.marketBars(q.coin, q.marketType, from, to, q.exchange)
    return filter(await reader.candles('candle_1m', [q.coin], q.marketType, from, to, q.withVap))
  }
  const h0 = Math.ceil(q.start / HOUR_MS) * HOUR_MS
  const h1 = Math.floor(q.end / HOUR_MS) * HOUR_MS
  if (!q.hourly || h1 <= h0) return minutes(q.start, q.end)
  const hours = async (): Promise<MinuteBar[]> => {
    if (!q.withVap && series.hours.covers(h0, h1)) return series.hours.marketBars(q.coin, q.marketType, h0, h1, q.exchange)
    return filter(await reader.candles('candle_1h', [q.coin], q.marketType, h0, h1, q.withVap))
  }
  const [head, mid, tail] = await Promise.all([minutes(q.start, h0), hours(), minutes(h1, q.end)])
  return [...head, ...mid, ...tail]
}

/**
 * mark prices of ticker rows or samples as spread price rows (ts: the venue's time for the mark, or the sample's
 * minute); a venue without a mark of its own is left out: its stored mark is its oracle, which nobody trades at
 */
export const markRows = (rows: readonly { exchange: ExchangeId; ts: number; markPrice: number | null }[]): PriceRow[] =>
  rows.filter((r) => publishesMark(r.exchange)).map((r) => ({ exchange: r.exchange, ts: r.ts, price: r.markPrice, source: 'mark' as const }))

/** the last trade of each perp minute bar with trades (a kline without a trade count: with volume) as price rows (ts: the bar's minute, the trade fell in it) */
export const lastTradeRows = (bars: readonly MinuteBar[]): PriceRow[] =>
  bars.filter((b) => (b.trades === null ? b.volume > 0 : b.trades > 0) && b.close > 0).map((b) => ({ exchange: b.exchange, ts: b.ts, price: b.close, source: 'last_trade' as const }))

/** the perp minute bars of [from, end) of the venues without a mark of their own: their tradable price is their last trade */
export async function noMarkTradeBars(market: MarketState, coin: string, from: number, end: number): Promise<MinuteBar[]> {
  const venues = EXCHANGE_IDS.filter((e) => !publishesMark(e))
  return (await Promise.all(venues.map((exchange) => loadBars(market, { coin, marketType: 'perp', start: from, end, exchange, hourly: false })))).flat()
}

/**
 * The current tradable price per exchange for the spread: the mark of the live ticker where there is one (the venue's
 * time for it), else of the newest stored sample given; a venue without a mark of its own: its last trades (bars given).
 */
export function currentPrices(market: MarketState, coin: string, samples: readonly { exchange: ExchangeId; ts: number; markPrice: number | null }[], tradeBars: readonly MinuteBar[]): PriceRow[] {
  const live = market.live.tickerList().filter((t) => t.marketType === 'perp' && t.coin === coin)
  const withLive = new Set(live.map((t) => t.exchange))
  return [...markRows(live), ...markRows(samples.filter((s) => !withLive.has(s.exchange))), ...lastTradeRows(tradeBars)]
}
