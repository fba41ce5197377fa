// Hot per-coin series in memory: hourly cells for the retention window and minute cells for the last day,
// per market (bars) and per exchange (samples). They mirror exactly what the store holds — every flush
// replaces the cells with the rows it just wrote (hour rollups included) — so models that scan weeks of
// history (divergence, regime, cascade, snapshot) never pull weeks of rows from the store per request.
import type { Database } from '../store/database.js'
import { DAY_MS, HOUR_MS, MINUTE_MS, floorTo, type Bar, type MinuteBar } from './bars.js'
import type { ExchangeId, MarketType } from './events.js'
import { rowToBar } from './store/candles.js'
import type { MarketSample } from './store/samples.js'

/** one stored bar without its bucket time, tagged with its market (read on every merge: no key parsing) */
type BarCell = Omit<Bar, 'ts'> & { exchange: ExchangeId; marketType: MarketType }
interface SampleCell {
  ts: number
  oi: number | null
  mark: number | null
  rate: number | null
  interval: number | null
}

/** one bucket of a coin, all exchanges merged */
export interface CoinPoint {
  ts: number
  /** perp close: volume-weighted across exchanges that traded (plain mean when none did) */
  close: number | null
  high: number | null
  low: number | null
  /** Σ quote / Σ volume of the perps */
  vwap: number | null
  perpVolume: number
  perpBuy: number
  perpSell: number
  /** null when the coin has no spot market data in the bucket */
  spotBuy: number | null
  spotSell: number | null
  /** Σ one-sided OI of the exchanges' latest samples (each carried forward up to 2 buckets), coins */
  openInterest: number | null
  /** OI-weighted funding rate normalized to 8 h */
  funding8h: number | null
}

class Grid {
  /** coin → bucket ts → market ("exchange:marketType") → bar */
  readonly bars = new Map<string, Map<number, Map<string, BarCell>>>()
  /** coin → bucket ts → exchange → latest perp sample in the bucket */
  readonly samples = new Map<string, Map<number, Map<ExchangeId, SampleCell>>>()

  /** buckets from here on mirror the store (null until loaded) */
  coveredFrom: number | null = null

  constructor(readonly bucketMs: number) {}

  setBar(b: MinuteBar): void {
    const ts = floorTo(b.ts, this.bucketMs)
    at(at(this.bars, b.coin, () => new Map()), ts, () => new Map()).set(`${b.exchange}:${b.marketType}`, {
      open: b.open, high: b.high, low: b.low, close: b.close, volume: b.volume, buyVolume: b.buyVolume, sellVolume: b.sellVolume, quoteVolume: b.quoteVolume, trades: b.trades,
      exchange: b.exchange, marketType: b.marketType,
    })
  }

  setSample(s: MarketSample): void {
    if (s.marketType !== 'perp') return
    const cells = at(at(this.samples, s.coin, () => new Map()), floorTo(s.ts, this.bucketMs), () => new Map())
    const prev = cells.get(s.exchange)
    if (prev && prev.ts > s.ts) return
    cells.set(s.exchange, { ts: s.ts, oi: s.openInterest ?? prev?.oi ?? null, mark: s.markPrice ?? prev?.mark ?? null, rate: s.fundingRate, interval: s.fundingIntervalHours })
  }

  prune(before: number): void {
    if (this.coveredFrom !== null && this.coveredFrom < before) this.coveredFrom = floorTo(before + this.bucketMs - 1, this.bucketMs)
    for (const m of [this.bars, this.samples] as Map<string, Map<number, unknown>>[])
      for (const byTs of m.values()) for (const ts of byTs.keys()) if (ts < before) byTs.delete(ts)
  }

  /** whether buckets [from, to) are fully mirrored here (loaded, and not pruned away) */
  covers(from: number, to: number): boolean {
    return this.coveredFrom !== null && from >= this.coveredFrom && to >= from
  }

  /** the bars of one coin and market type in buckets [from, to), as stored (candle_1m / candle_1h rows; no volume at price) */
  marketBars(coin: string, marketType: MarketType, from: number, to: number, exchange?: ExchangeId): MinuteBar[] {
    const out: MinuteBar[] = []
    for (const [ts, cells] of this.bars.get(coin) ?? []) {
      if (ts < from || ts >= to) continue
      for (const c of cells.values()) if (c.marketType === marketType && (!exchange || c.exchange === exchange)) out.push({ ...c, ts, coin, vap: new Map() })
    }
    return out
  }

  /** per-exchange perp closes in [from, to): one row per market and bucket, at the bucket's last ms */
  perpCloses(coin: string, from: number, to: number): { exchange: ExchangeId; ts: number; price: number }[] {
    const out: { exchange: ExchangeId; ts: number; price: number }[] = []
    for (const [ts, cells] of this.bars.get(coin) ?? []) {
      if (ts < from || ts >= to) continue
      for (const c of cells.values()) if (c.marketType === 'perp') out.push({ exchange: c.exchange, ts: ts + this.bucketMs - 1, price: c.close })
    }
    return out
  }

  /** per-exchange perp samples (the latest of each bucket) in [from, to) */
  perpSamples(coin: string, from: number, to: number): (SampleCell & { exchange: ExchangeId })[] {
    const out: (SampleCell & { exchange: ExchangeId })[] = []
    for (const [ts, cells] of this.samples.get(coin) ?? []) {
      if (ts < from || ts >= to) continue
      for (const [exchange, c] of cells) out.push({ ...c, exchange })
    }
    return out
  }

  points(coin: string, from: number, to: number, exchange?: ExchangeId): CoinPoint[] {
    const bars = this.bars.get(coin)
    const samples = this.samples.get(coin)
    const out: CoinPoint[] = []
    const carried = new Map<ExchangeId, { cell: SampleCell; age: number }>()
    const start = floorTo(from, this.bucketMs)
    // carry samples from just before the window
    for (let ts = start - 2 * this.bucketMs; ts < start; ts += this.bucketMs)
      for (const [e, cell] of samples?.get(ts) ?? []) if (!exchange || e === exchange) carried.set(e, { cell, age: 0 })
    for (let ts = start; ts < to; ts += this.bucketMs) {
      for (const [e, c] of carried) if (++c.age > 2) carried.delete(e)
      for (const [e, cell] of samples?.get(ts) ?? []) if (!exchange || e === exchange) carried.set(e, { cell, age: 0 })
      const cells = bars?.get(ts)
      if (!cells && carried.size === 0) continue
      out.push(mergePoint(ts, cells, carried, exchange))
    }
    return out
  }
}

function at<K, V>(m: Map<K, V>, k: K, make: () => V): V {
  let v = m.get(k)
  if (v === undefined) m.set(k, (v = make()))
  return v
}

function mergePoint(ts: number, cells: Map<string, BarCell> | undefined, samples: Map<ExchangeId, { cell: SampleCell }>, exchange?: ExchangeId): CoinPoint {
  let vol = 0, quote = 0, buy = 0, sell = 0, wClose = 0, sumClose = 0, nClose = 0
  let high = -Infinity, low = Infinity
  let spotBuy: number | null = null, spotSell: number | null = null
  for (const c of cells?.values() ?? []) {
    if (exchange && c.exchange !== exchange) continue
    if (c.marketType === 'spot') {
      spotBuy = (spotBuy ?? 0) + c.buyVolume
      spotSell = (spotSell ?? 0) + c.sellVolume
      continue
    }
    vol += c.volume
    quote += c.quoteVolume
    buy += c.buyVolume
    sell += c.sellVolume
    wClose += c.close * c.volume
    sumClose += c.close
    nClose++
    if (c.high > high) high = c.high
    if (c.low < low) low = c.low
  }
  let oi = 0, nOi = 0, wRate = 0, wOi = 0
  for (const { cell } of samples.values()) {
    if (cell.oi != null) {
      oi += cell.oi
      nOi++
    }
    if (cell.rate != null && cell.interval && cell.oi != null && cell.mark) {
      const usd = cell.oi * cell.mark
      wRate += ((cell.rate * 8) / cell.interval) * usd
      wOi += usd
    }
  }
  return {
    ts,
    close: nClose === 0 ? null : vol > 0 ? wClose / vol : sumClose / nClose,
    high: nClose ? high : null,
    low: nClose ? low : null,
    vwap: vol > 0 ? quote / vol : null,
    perpVolume: vol,
    perpBuy: buy,
    perpSell: sell,
    spotBuy,
    spotSell,
    openInterest: nOi ? oi : null,
    funding8h: wOi > 0 ? wRate / wOi : null,
  }
}

export class CoinSeries {
  hours = new Grid(HOUR_MS)
  minutes = new Grid(MINUTE_MS)
  /** bumped on every change, for caches of results computed from the series */
  version = 0

  constructor(
    readonly retentionMs = 31 * DAY_MS,
    readonly minuteRetentionMs = DAY_MS + 2 * HOUR_MS,
  ) {}

  /** rows just written to the store: minute bars, their hourly rollups, samples */
  apply(written: { minuteBars?: readonly MinuteBar[]; hourBars?: readonly MinuteBar[]; samples?: readonly MarketSample[] }, now: number): void {
    if (!written.minuteBars?.length && !written.hourBars?.length && !written.samples?.length) return
    const minuteFloor = now - this.minuteRetentionMs
    for (const b of written.minuteBars ?? []) if (b.ts >= minuteFloor) this.minutes.setBar(b)
    const hourFloor = now - this.retentionMs - HOUR_MS
    for (const b of written.hourBars ?? []) if (b.ts >= hourFloor) this.hours.setBar(b)
    for (const s of written.samples ?? []) {
      this.hours.setSample(s)
      if (s.ts >= minuteFloor) this.minutes.setSample(s)
    }
    this.version++
    if (this.version % 64 === 0) this.prune(now)
  }

  prune(now: number): void {
    this.hours.prune(now - this.retentionMs)
    this.minutes.prune(now - this.minuteRetentionMs)
  }

  /**
   * Replace the mirror with what the store holds: hourly rollups and the latest sample per hour for the
   * retention, minutes for the last day (run before ingest starts: writes applied meanwhile would be lost).
   * Read in time slices: the embedded store's WebAssembly memory grows to fit the largest result and never
   * shrinks, so small results keep the process small.
   */
  async load(db: Database, now: number): Promise<void> {
    const from = floorTo(now - this.retentionMs, HOUR_MS)
    const mFrom = floorTo(now - this.minuteRetentionMs, MINUTE_MS)
    const q = db.sql.query.bind(db.sql)
    const cols = 'exchange, coin, market_type, ts, open, high, low, close, volume, buy_volume, sell_volume, quote_volume, trades'
    const sampleCols = 'exchange, coin, ts, open_interest, mark_price, funding_rate, funding_interval_hours'
    const end = now + HOUR_MS
    const hours = new Grid(HOUR_MS)
    const minutes = new Grid(MINUTE_MS)
    for (let t = from; t < end; t += 2 * DAY_MS) {
      for (const r of await q<Parameters<typeof rowToBar>[0]>(`SELECT ${cols} FROM candle_1h WHERE ts >= $1 AND ts < $2`, [t, t + 2 * DAY_MS])) hours.setBar(rowToBar(r, false))
      const samples = await q<SampleRow>(
        `SELECT DISTINCT ON (exchange, coin, ts / ${HOUR_MS}) ${sampleCols}
         FROM market_sample WHERE market_type = 'perp' AND ts >= $1 AND ts < $2 ORDER BY exchange, coin, ts / ${HOUR_MS}, ts DESC`,
        [t, t + 2 * DAY_MS],
      )
      for (const r of samples) hours.setSample(toSample(r))
    }
    for (let t = mFrom; t < end; t += 2 * HOUR_MS) {
      for (const r of await q<Parameters<typeof rowToBar>[0]>(`SELECT ${cols} FROM candle_1m WHERE ts >= $1 AND ts < $2`, [t, t + 2 * HOUR_MS])) minutes.setBar(rowToBar(r, false))
      for (const r of await q<SampleRow>(`SELECT ${sampleCols} FROM market_sample WHERE market_type = 'perp' AND ts >= $1 AND ts < $2`, [t, t + 2 * HOUR_MS]))
        minutes.setSample(toSample(r))
    }
    hours.coveredFrom = from
    minutes.coveredFrom = mFrom
    this.hours = hours
    this.minutes = minutes
    this.version++
  }
}

interface SampleRow {
  exchange: string
  coin: string
  ts: number | string
  open_interest: number | null
  mark_price: number | null
  funding_rate: number | null
  funding_interval_hours: number | null
}

const toSample = (r: SampleRow): MarketSample => ({
  exchange: r.exchange as ExchangeId, coin: r.coin, marketType: 'perp', ts: Number(r.ts),
  markPrice: r.mark_price, indexPrice: null, lastPrice: null, fundingRate: r.funding_rate, fundingIntervalHours: r.funding_interval_hours,
  nextFundingTime: null, openInterest: r.open_interest,
})
