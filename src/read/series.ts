// Hot per-coin series in memory: hourly cells for the retention window and minute cells for the last day,
// per market (bars) and per exchange (samples). They mirror exactly what the store holds — every flush
// replaces the cells with the rows it just wrote (hour rollups included) — so models that scan weeks of
// history (divergence, regime, cascade, snapshot) never pull weeks of rows from the store per request.
import type { Database } from '../store/database.js'
import { selectRows } from '../store/select-rows.js'
import { type MarketKey, type MinuteBar } from '../domain/minute-bars.js'
import { DAY_MS, HOUR_MS, MINUTE_MS, earliest, floorTo } from '../domain/time.js'
import { type Bar } from '../domain/bars.js'
import type { ExchangeId, MarketType } from '../domain/exchanges.js'
import { CANDLE_VALUE_COLUMNS, CANDLE_VALUE_LIST, rowToBarValues, type CandleRow } from '../store/market/candles.js'
import { SERIES_SAMPLE_COLUMNS, seriesSample, type MarketSample, type SeriesSampleRow } from '../store/market/samples.js'
import { mergePoint, sampleCarry, type CoinPoint } from './series-point.js'
import { decodeSeries, encodeSeries, type GridParts } from './series-snapshot.js'
import { BAR_WIDTH, BUY, CLOSE, HIGH, KLINE, LOW, NO_SPLIT, OPEN, QUOTE, Ring, SAMPLE_WIDTH, SELL, SOURCE, SOURCES, S_INTERVAL, S_MARK, S_OI, S_RATE, S_TS, TRADES, VOLUME, orNaN, orNull, type BarTrack, type SampleCell, type SampleTrack } from './series-ring.js'

export type { CoinPoint } from './series-point.js'

/** changes remembered for versionBefore (older ones are merged) */
const MAX_TOUCHES = 256

/** tracks in a fixed order (venue, then market type), not the order their first rows came in */
const venueOrder = (a: { exchange: string; marketType?: string }, b: { exchange: string; marketType?: string }): number =>
  a.exchange < b.exchange ? -1 : a.exchange > b.exchange ? 1 : (a.marketType ?? '') < (b.marketType ?? '') ? -1 : (a.marketType ?? '') > (b.marketType ?? '') ? 1 : 0

class Grid {
  /** coin → its markets' bar tracks, ordered by exchange then market type */
  private readonly bars = new Map<string, BarTrack[]>()
  /** coin → its exchanges' perp sample tracks (the latest sample of each bucket), ordered by exchange */
  private readonly samples = new Map<string, SampleTrack[]>()
  /** the newest bucket written: a ring holds at most `capacity` buckets back from here */
  private newest = Number.NEGATIVE_INFINITY
  /** buckets before this were pruned */
  private floor = Number.NEGATIVE_INFINITY

  /** buckets from here on mirror the store (null until loaded) */
  coveredFrom: number | null = null

  constructor(
    readonly bucketMs: number,
    /** buckets kept per track: the retention plus some slack */
    readonly capacity: number,
  ) {}

  /** the grid's state, sharing its arrays (series-snapshot.ts writes it) */
  parts(): GridParts {
    const bars = [...this.bars].flatMap(([coin, tracks]) => tracks.map((t) => ({ coin, exchange: t.exchange, marketType: t.marketType, held: t.ring.held, data: t.ring.data })))
    const samples = [...this.samples].flatMap(([coin, tracks]) => tracks.map((t) => ({ coin, exchange: t.exchange, held: t.ring.held, data: t.ring.data })))
    return { bucketMs: this.bucketMs, capacity: this.capacity, newest: this.newest, floor: this.floor, coveredFrom: this.coveredFrom, bars, samples }
  }

  /** a grid holding `parts` (their arrays, not copies); null when they do not fit this grid's shape */
  static fromParts(bucketMs: number, capacity: number, parts: GridParts): Grid | null {
    if (parts.bucketMs !== bucketMs || parts.capacity !== capacity) return null
    const grid = new Grid(bucketMs, capacity)
    const fits = (held: Float64Array, data: Float64Array, width: number) => held.length === capacity && data.length === capacity * width
    for (const b of parts.bars) {
      if (!fits(b.held, b.data, BAR_WIDTH)) return null
      grid.barTrack(b.coin, b.exchange, b.marketType, new Ring(capacity, BAR_WIDTH, bucketMs, b))
    }
    for (const s of parts.samples) {
      if (!fits(s.held, s.data, SAMPLE_WIDTH)) return null
      grid.sampleTrack(s.coin, s.exchange, new Ring(capacity, SAMPLE_WIDTH, bucketMs, s))
    }
    grid.newest = parts.newest
    grid.floor = parts.floor
    grid.coveredFrom = parts.coveredFrom
    return grid
  }

  /** a market's track, made (with `ring`, or an empty one) when it has none yet */
  private barTrack(coin: string, exchange: ExchangeId, marketType: MarketType, ring?: Ring): BarTrack {
    let tracks = this.bars.get(coin)
    if (!tracks) this.bars.set(coin, (tracks = []))
    let t = tracks.find((x) => x.exchange === exchange && x.marketType === marketType)
    if (!t) {
      tracks.push((t = { exchange, marketType, ring: ring ?? new Ring(this.capacity, BAR_WIDTH, this.bucketMs) }))
      tracks.sort(venueOrder)
    }
    return t
  }

  private sampleTrack(coin: string, exchange: ExchangeId, ring?: Ring): SampleTrack {
    let tracks = this.samples.get(coin)
    if (!tracks) this.samples.set(coin, (tracks = []))
    let t = tracks.find((x) => x.exchange === exchange)
    if (!t) {
      tracks.push((t = { exchange, ring: ring ?? new Ring(this.capacity, SAMPLE_WIDTH, this.bucketMs) }))
      // in a fixed order, not the order the venues' first samples came in: reads list venues the same on every node and after every start
      tracks.sort(venueOrder)
    }
    return t
  }

  private touch(ts: number): void {
    if (ts > this.newest) this.newest = ts
  }

  /** the newest bucket written (reads end there: a later newest can add points before it, see CoinSeries.apply) */
  get newestBucket(): number {
    return this.newest
  }

  setBar(b: Bar & MarketKey): void {
    const ts = floorTo(b.ts, this.bucketMs)
    const { ring } = this.barTrack(b.coin, b.exchange, b.marketType)
    const o = ring.claim(ts)
    if (o < 0) return
    const d = ring.data
    this.touch(ts)
    d[o + OPEN] = b.open
    d[o + HIGH] = b.high
    d[o + LOW] = b.low
    d[o + CLOSE] = b.close
    d[o + VOLUME] = b.volume
    d[o + BUY] = orNaN(b.buyVolume)
    d[o + SELL] = orNaN(b.sellVolume)
    d[o + QUOTE] = orNaN(b.quoteVolume)
    d[o + TRADES] = orNaN(b.trades)
    d[o + SOURCE] = SOURCES.indexOf(b.source)
    d[o + NO_SPLIT] = b.noSplitMinutes
    d[o + KLINE] = b.klineMinutes
  }

  setSample(s: MarketSample): void {
    if (s.marketType !== 'perp') return
    const ts = floorTo(s.ts, this.bucketMs)
    const { ring } = this.sampleTrack(s.coin, s.exchange)
    const had = ring.find(ts)
    if (had >= 0 && ring.data[had + S_TS]! > s.ts) return
    const o = ring.claim(ts)
    if (o < 0) return
    this.touch(ts)
    const d = ring.data
    // OI and ticker arrive on their own schedules (and late events bring partial rows): a null keeps the bucket's value
    d[o + S_OI] = s.openInterest ?? d[o + S_OI]!
    d[o + S_MARK] = s.markPrice ?? d[o + S_MARK]!
    d[o + S_TS] = s.ts
    d[o + S_RATE] = s.fundingRate ?? d[o + S_RATE]!
    d[o + S_INTERVAL] = s.fundingIntervalHours ?? d[o + S_INTERVAL]!
  }

  prune(before: number): void {
    if (this.coveredFrom !== null && this.coveredFrom < before) this.coveredFrom = floorTo(before + this.bucketMs - 1, this.bucketMs)
    if (before > this.floor) this.floor = before
  }

  /** the oldest bucket a lookup may still find */
  private oldest(): number {
    return Math.max(this.floor, this.newest - (this.capacity - 1) * this.bucketMs)
  }

  /** buckets [lo, hi) worth visiting for a window [from, to) */
  private span(from: number, to: number): [number, number] {
    const lo = Math.max(Math.ceil(from / this.bucketMs) * this.bucketMs, Math.ceil(this.oldest() / this.bucketMs) * this.bucketMs)
    return [lo, Math.min(to, this.newest + this.bucketMs)]
  }

  /** whether buckets [from, to) are fully mirrored here (loaded, not pruned, and still held by the rings) */
  covers(from: number, to: number): boolean {
    return this.coveredFrom !== null && from >= this.coveredFrom && from >= this.oldest() && to >= from
  }

  /** the bars of one coin and market type in buckets [from, to), as stored (candle_1m / candle_1h rows; no volume at price), by exchange then time */
  marketBars(coin: string, marketType: MarketType, from: number, to: number, exchange?: ExchangeId): MinuteBar[] {
    const out: MinuteBar[] = []
    const [lo, hi] = this.span(from, to)
    for (const t of this.bars.get(coin) ?? []) {
      if (t.marketType !== marketType || (exchange && t.exchange !== exchange)) continue
      const { ring } = t
      const d = ring.data
      for (let ts = lo; ts < hi; ts += this.bucketMs) {
        const o = ring.find(ts)
        if (o < 0) continue
        out.push({
          exchange: t.exchange, coin, marketType, ts,
          open: d[o + OPEN]!, high: d[o + HIGH]!, low: d[o + LOW]!, close: d[o + CLOSE]!, volume: d[o + VOLUME]!,
          buyVolume: orNull(d[o + BUY]!), sellVolume: orNull(d[o + SELL]!), quoteVolume: orNull(d[o + QUOTE]!), trades: orNull(d[o + TRADES]!),
          source: SOURCES[d[o + SOURCE]!]!, noSplitMinutes: d[o + NO_SPLIT]!, klineMinutes: d[o + KLINE]!, vap: new Map(),
        })
      }
    }
    return out
  }

  /** per-exchange perp closes in [from, to): one row per market and bucket, at the bucket's last ms */
  perpCloses(coin: string, from: number, to: number): { exchange: ExchangeId; ts: number; price: number }[] {
    const out: { exchange: ExchangeId; ts: number; price: number }[] = []
    const [lo, hi] = this.span(from, to)
    for (const t of this.bars.get(coin) ?? []) {
      if (t.marketType !== 'perp') continue
      for (let ts = lo; ts < hi; ts += this.bucketMs) {
        const o = t.ring.find(ts)
        if (o >= 0) out.push({ exchange: t.exchange, ts: ts + this.bucketMs - 1, price: t.ring.data[o + CLOSE]! })
      }
    }
    return out
  }

  private sampleAt(ring: Ring, ts: number): SampleCell | null {
    const o = ts >= this.floor ? ring.find(ts) : -1
    if (o < 0) return null
    const d = ring.data
    return { ts: d[o + S_TS]!, oi: orNull(d[o + S_OI]!), mark: orNull(d[o + S_MARK]!), rate: orNull(d[o + S_RATE]!), interval: orNull(d[o + S_INTERVAL]!) }
  }

  /** per-exchange perp samples (the latest of each bucket) in [from, to) */
  perpSamples(coin: string, from: number, to: number): (SampleCell & { exchange: ExchangeId })[] {
    const out: (SampleCell & { exchange: ExchangeId })[] = []
    const [lo, hi] = this.span(from, to)
    for (const t of this.samples.get(coin) ?? [])
      for (let ts = lo; ts < hi; ts += this.bucketMs) {
        const c = this.sampleAt(t.ring, ts)
        if (c) out.push({ ...c, exchange: t.exchange })
      }
    return out
  }

  points(coin: string, from: number, to: number, exchange?: ExchangeId): CoinPoint[] {
    const bars = this.bars.get(coin) ?? []
    const samples = (this.samples.get(coin) ?? []).filter((t) => !exchange || t.exchange === exchange)
    const out: CoinPoint[] = []
    const carried = new Map<ExchangeId, { cell: SampleCell; age: number }>()
    const start = floorTo(from, this.bucketMs)
    const oldest = this.oldest()
    const end = Math.min(to, this.newest + this.bucketMs)
    // carry samples from just before the window, each as old at the window's start as it is
    for (let ts = start - sampleCarry(this.bucketMs) * this.bucketMs; ts < start; ts += this.bucketMs)
      for (const t of samples) {
        const cell = ts >= oldest ? this.sampleAt(t.ring, ts) : null
        if (cell) carried.set(t.exchange, { cell, age: (start - ts) / this.bucketMs - 1 })
      }
    for (let ts = Math.max(start, floorTo(oldest, this.bucketMs)); ts < end; ts += this.bucketMs) {
      for (const [e, c] of carried) if (++c.age > sampleCarry(this.bucketMs)) carried.delete(e)
      for (const t of samples) {
        const cell = ts >= oldest ? this.sampleAt(t.ring, ts) : null
        if (cell) carried.set(t.exchange, { cell, age: 0 })
      }
      const point = ts >= oldest ? mergePoint(ts, bars, carried, exchange) : null
      if (point) out.push(point)
    }
    return out
  }
}


export class CoinSeries {
  hours: Grid
  minutes: Grid
  /** bumped on every change, for caches of results computed from the series */
  version = 0
  /**
   * Recent changes as (version, earliest bucket time touched), both increasing from the first to the last: a change
   * drops the entries it supersedes (those touching no earlier time), so the list stays short. See versionBefore.
   */
  private readonly touches: { version: number; from: number }[] = []
  /** called after every change (views precomputed on the data tick: src/read/tick-views.ts) */
  private readonly listeners: (() => void)[] = []

  onChange(listener: () => void): void {
    this.listeners.push(listener)
  }

  /** `from`: the earliest bucket time the change touched (-Infinity: any) */
  private moved(from = Number.NEGATIVE_INFINITY): void {
    this.version++
    while (this.touches.length && this.touches.at(-1)!.from >= from) this.touches.pop()
    this.touches.push({ version: this.version, from })
    if (this.touches.length > MAX_TOUCHES) {
      // merge the two oldest: the later version from the earlier time (a result may be recomputed once too often, never kept too long)
      const [a, b] = this.touches.splice(0, 2)
      this.touches.unshift({ version: b!.version, from: a!.from })
    }
    for (const l of this.listeners) l()
  }

  /**
   * The version as results that read only buckets before `t` see it: it moves only with changes that touched a bucket
   * before `t` (a write of the live minute leaves the complete hours' version as it was).
   */
  versionBefore(t: number): number {
    for (let i = this.touches.length - 1; i >= 0; i--) if (this.touches[i]!.from < t) return this.touches[i]!.version
    return 0
  }

  constructor(
    readonly retentionMs = 31 * DAY_MS,
    readonly minuteRetentionMs = DAY_MS + 2 * HOUR_MS,
  ) {
    this.hours = this.grid(HOUR_MS)
    this.minutes = this.grid(MINUTE_MS)
  }

  /** a grid whose rings hold the retention plus slack: a day of hours, two hours of minutes */
  private grid(bucketMs: number): Grid {
    return bucketMs === HOUR_MS
      ? new Grid(HOUR_MS, Math.ceil(this.retentionMs / HOUR_MS) + 24 + 1)
      : new Grid(MINUTE_MS, Math.ceil(this.minuteRetentionMs / MINUTE_MS) + 120 + 1)
  }

  /** rows just written to the store: minute bars, their hourly rollups, samples */
  apply(written: { minuteBars?: readonly MinuteBar[]; hourBars?: readonly MinuteBar[]; samples?: readonly MarketSample[] }, now: number): void {
    if (!written.minuteBars?.length && !written.hourBars?.length && !written.samples?.length) return
    const newest = [this.hours.newestBucket, this.minutes.newestBucket]
    const minuteFloor = now - this.minuteRetentionMs
    for (const b of written.minuteBars ?? []) if (b.ts >= minuteFloor) this.minutes.setBar(b)
    const hourFloor = now - this.retentionMs - HOUR_MS
    for (const b of written.hourBars ?? []) if (b.ts >= hourFloor) this.hours.setBar(b)
    for (const s of written.samples ?? []) {
      this.hours.setSample(s)
      if (s.ts >= minuteFloor) this.minutes.setSample(s)
    }
    let from = earliest(written.minuteBars ?? [], written.hourBars ?? [], written.samples ?? [])
    // a grid's reads stop at its newest bucket: moving that on brings the buckets after the old one into reach
    if (this.hours.newestBucket !== newest[0]) from = Math.min(from, newest[0]! + HOUR_MS)
    if (this.minutes.newestBucket !== newest[1]) from = Math.min(from, newest[1]! + MINUTE_MS)
    // every 64th change also prunes the oldest buckets: that one counts as touching everything
    const prune = (this.version + 1) % 64 === 0
    if (prune) this.prune(now)
    // a sample lands in its hour's bucket: the change reaches back to that hour's start
    this.moved(prune ? Number.NEGATIVE_INFINITY : floorTo(from, HOUR_MS))
  }

  prune(now: number): void {
    this.hours.prune(now - this.retentionMs)
    this.minutes.prune(now - this.minuteRetentionMs)
  }

  /** the series as bytes (series-snapshot.ts), for the next start on the same embedded store; null where it cannot be written */
  snapshot(): Uint8Array | null {
    return encodeSeries({ retentionMs: this.retentionMs, minuteRetentionMs: this.minuteRetentionMs, hours: this.hours.parts(), minutes: this.minutes.parts() })
  }

  /**
   * Replace the mirror with a snapshot() of a series that mirrored this store when the store was last closed, as
   * load() would read it (the store's handoff guarantees nothing wrote in between). False, and nothing changed, when the
   * bytes are not such a snapshot or were written with other retentions.
   */
  restore(bytes: Uint8Array, now: number): boolean {
    const parts = decodeSeries(bytes)
    if (!parts || parts.retentionMs !== this.retentionMs || parts.minuteRetentionMs !== this.minuteRetentionMs) return false
    const hours = Grid.fromParts(HOUR_MS, this.hours.capacity, parts.hours)
    const minutes = Grid.fromParts(MINUTE_MS, this.minutes.capacity, parts.minutes)
    if (hours?.coveredFrom == null || minutes?.coveredFrom == null) return false
    // time went on while no process ran: what load() would no longer read at `now` is dropped
    hours.prune(floorTo(now - this.retentionMs, HOUR_MS))
    minutes.prune(floorTo(now - this.minuteRetentionMs, MINUTE_MS))
    this.hours = hours
    this.minutes = minutes
    this.moved()
    return true
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
    const bars = (text: string, params: number[]) => selectRows<CandleRow>(db.sql, text, params, CANDLE_VALUE_COLUMNS)
    const samples = (text: string, params: number[]) => selectRows<SeriesSampleRow>(db.sql, text, params, SERIES_SAMPLE_COLUMNS)
    const sampleCols = SERIES_SAMPLE_COLUMNS.map(([c]) => c).join(', ')
    const end = now + HOUR_MS
    const hours = this.grid(HOUR_MS)
    const minutes = this.grid(MINUTE_MS)
    for (let t = from; t < end; t += 2 * DAY_MS) {
      for (const r of await bars(`SELECT ${CANDLE_VALUE_LIST} FROM candle_1h WHERE ts >= $1 AND ts < $2`, [t, t + 2 * DAY_MS])) hours.setBar(rowToBarValues(r))
      // per hour and venue, as setSample folds the hour's samples in time order: the latest time, and each value the
      // latest one the hour has (a latest row without OI keeps the hour's earlier OI)
      const last = (c: string) => `(array_agg(${c} ORDER BY ts DESC) FILTER (WHERE ${c} IS NOT NULL))[1] AS ${c}`
      const latest = await samples(
        `SELECT exchange, coin, max(ts) AS ts, ${SERIES_SAMPLE_COLUMNS.slice(3).map(([c]) => last(c)).join(', ')}
         FROM market_sample WHERE market_type = 'perp' AND ts >= $1 AND ts < $2 GROUP BY exchange, coin, ts / ${HOUR_MS}`,
        [t, t + 2 * DAY_MS],
      )
      for (const r of latest) hours.setSample(seriesSample(r))
    }
    for (let t = mFrom; t < end; t += 2 * HOUR_MS) {
      for (const r of await bars(`SELECT ${CANDLE_VALUE_LIST} FROM candle_1m WHERE ts >= $1 AND ts < $2`, [t, t + 2 * HOUR_MS])) minutes.setBar(rowToBarValues(r))
      // in time order, as they were written: setSample keeps a bucket's later sample over an earlier one
      for (const r of await samples(`SELECT ${sampleCols} FROM market_sample WHERE market_type = 'perp' AND ts >= $1 AND ts < $2 ORDER BY ts`, [t, t + 2 * HOUR_MS]))
        minutes.setSample(seriesSample(r))
    }
    hours.coveredFrom = from
    minutes.coveredFrom = mFrom
    this.hours = hours
    this.minutes = minutes
    this.moved()
  }
}
