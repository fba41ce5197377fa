// History backfill from a deterministic source (the simulator): newest day first, so a fresh start has
// recent data within seconds while older days fill in behind. Each day goes through its own ingest
// pipeline (its own aggregator: history never interleaves with live trades) and is recorded in
// backfill_day once written through to the day's end, so a restart only fills what is missing.
import type { Logger } from 'pino'
import type { Database } from '../store/database.js'
import { type BarSink, type TradeSource } from '../domain/minute-bars.js'
import { DAY_MS, HOUR_MS, MINUTE_MS, floorTo } from '../domain/time.js'
import type { EventSink } from '../domain/events.js'
import { Ingest, type Written } from './ingest.js'
import { storedMinuteRanges } from '../store/market/candles.js'
import type { MarketState } from '../read/state.js'

export interface HistorySource {
  /** emit the events of [fromTs, toTs) into sink, deterministically: trades as 1-minute bars, samples per slot, no books */
  simulateRange(fromTs: number, toTs: number, sink: EventSink & BarSink, options: HistoryOptions): unknown
  /** the range that will be asked for next: a source that simulates elsewhere (a worker thread) starts on it now */
  prefetch?(fromTs: number, toTs: number, options: HistoryOptions): void
  /** what its trades and bars are marked as (the simulator: 'simulated'); default 'trades' */
  readonly tradeSource?: TradeSource
}

type HistoryOptions = { sampleEveryMs: number; books: false }

export interface BackfillChunk {
  from: number
  to: number
  /** a whole UTC day: recorded as complete when written */
  wholeDay: boolean
  /** nothing is stored in its range yet: hourly rollups are folded in memory */
  fresh: boolean
  /** skip minutes already stored (the chunk reaches into data a live run wrote) */
  resume: boolean
}

/** history samples are coarser than live ones: 5 minutes is plenty for 1h/4h/24h changes and keeps the backfill fast */
const HISTORY_SAMPLE_MS = 5 * MINUTE_MS
/** history keeps no books (only the live feed's latest book is stored) */
const HISTORY: HistoryOptions = { sampleEveryMs: HISTORY_SAMPLE_MS, books: false }
/** how many ranges ahead of the one being written a source that simulates elsewhere is asked for */
const LOOKAHEAD = 2

/** a chunk's ranges, an hour at a time (its first and last may be parts of hours) */
function hoursOf(c: { from: number; to: number }): [number, number][] {
  const out: [number, number][] = []
  for (let from = c.from; from < c.to; ) {
    const to = Math.min(c.to, floorTo(from, HOUR_MS) + HOUR_MS)
    out.push([from, to])
    from = to
  }
  return out
}

export async function planBackfill(db: Database, source: string, now: number, days: number): Promise<BackfillChunk[]> {
  const end = floorTo(now, MINUTE_MS)
  // whole minutes: a source of trades that began inside one would leave it short
  const start = Math.ceil((end - Math.round(days * DAY_MS)) / MINUTE_MS) * MINUTE_MS
  if (!(end > start)) return []
  // per UTC day, the earliest ms from which this source has written through to the day's end (the day start for a
  // whole day; later for the oldest day of an earlier window, which begins mid-day)
  const doneFrom = new Map<number, number>()
  for (const r of await db.sql.query<{ day: number | string }>('SELECT day FROM backfill_day WHERE source = $1 AND day >= $2', [source, floorTo(start, DAY_MS)])) {
    const from = Number(r.day)
    const day = floorTo(from, DAY_MS)
    doneFrom.set(day, Math.min(from, doneFrom.get(day) ?? from))
  }
  const ranges = [...(await storedMinuteRanges(db.sql)).values()]
  const lo = ranges.length ? Math.min(...ranges.map((r) => r.first)) : null
  const hi = ranges.length ? Math.max(...ranges.map((r) => r.last)) : null
  const chunks: BackfillChunk[] = []
  for (let to = end; to > start; ) {
    const dayStart = floorTo(to - 1, DAY_MS)
    const from = Math.max(dayStart, start)
    const wholeDay = from === dayStart && to === dayStart + DAY_MS
    const written = to === dayStart + DAY_MS && (doneFrom.get(dayStart) ?? Infinity) <= from
    if (!written) {
      const overlaps = lo !== null && hi !== null && from <= hi && to > lo
      chunks.push({ from, to, wholeDay, fresh: !overlaps, resume: hi !== null && to > floorTo(hi, DAY_MS) })
    }
    to = from
  }
  return chunks
}

export interface BackfillProgress {
  chunk: number
  chunks: number
  from: number
  to: number
  bars: number
}

export async function runBackfill(opts: {
  db: Database
  market: MarketState
  source: HistorySource
  sourceName: string
  now: number
  days: number
  logger?: Logger
  onProgress?: (p: BackfillProgress) => void
  /** checked between chunks: return true to stop early (shutdown) */
  aborted?: () => boolean
  /** after every write (the bus publisher) */
  onWritten?: (w: Written) => void
}): Promise<{ chunks: number; bars: number }> {
  const chunks = await planBackfill(opts.db, opts.sourceName, opts.now, opts.days)
  const windowTo = floorTo(opts.now, MINUTE_MS)
  const windowFrom = windowTo - Math.round(opts.days * DAY_MS)
  // chunks run newest first: history is complete from the end of the newest chunk not yet written
  const status = { source: opts.sourceName, windowFrom, windowTo, completeFrom: chunks[0]?.to ?? windowFrom, chunks: chunks.length, chunksDone: 0, done: chunks.length === 0 }
  opts.market.backfill = status
  let bars = 0
  // every range the chunks will ask the source for, in order: a source that simulates elsewhere works ahead
  const hours = chunks.map(hoursOf)
  const queue = hours.flat()
  for (const [from, to] of queue.slice(0, LOOKAHEAD)) opts.source.prefetch?.(from, to, HISTORY)
  let taken = 0
  for (const [i, c] of chunks.entries()) {
    if (opts.aborted?.()) break
    const ingest = new Ingest({ db: opts.db, market: opts.market, logger: opts.logger, tradeSource: opts.source.tradeSource, sampleEveryMs: HISTORY_SAMPLE_MS, trackLive: false, onWritten: opts.onWritten })
    // the source replays the whole chunk: a partial minute inside it is completed, not skipped
    if (c.resume) await ingest.resume({ replayFrom: c.from, replayTo: c.to })
    // an hour at a time: small batches keep memory flat and let requests in between
    let from = c.from
    for (const [, to] of hours[i]!) {
      if (from > c.from && opts.aborted?.()) break
      const ahead = queue[taken++ + LOOKAHEAD]
      if (ahead) opts.source.prefetch?.(ahead[0], ahead[1], HISTORY)
      await opts.source.simulateRange(from, to, ingest, HISTORY)
      // every event before `to` has been emitted: the minutes up to it are whole
      ingest.advance(to)
      // a whole hour of a fresh chunk is new in every table (no minute of it is stored, so neither is its rollup, and
      // samples are only written with minutes); a partial hour upserts: the newest chunk's last one meets the live
      // feed's rows, the oldest chunk's first one may hold minutes of an earlier, shorter window. Before a reopened
      // partial minute, only closed minutes are written: a final flush would store it short again before its bar came.
      const wholeHour = from % HOUR_MS === 0 && to - from === HOUR_MS
      if (ingest.reopenedUntil > to) await ingest.flush()
      else await ingest.flush({ final: true, fresh: c.fresh, freshHours: c.fresh && wholeHour })
      from = to
      // the embedded store answers without real I/O, so without this the whole backfill would run as one chain
      // of promise continuations and starve the HTTP server (and the live feed) until it ended
      await new Promise((r) => setImmediate(r))
    }
    // a chunk that reaches its day's end is recorded with where it began (a later window starts later, so the
    // oldest, partial day of this one is not redone on every restart); today's chunk and one cut short by a
    // shutdown are not recorded: the next start redoes them
    if (c.to === floorTo(c.from, DAY_MS) + DAY_MS && from >= c.to)
      await opts.db.sql.query('INSERT INTO backfill_day (source, day) VALUES ($1, $2) ON CONFLICT DO NOTHING', [opts.sourceName, c.from])
    bars += ingest.stats.barsWritten
    if (from >= c.to) {
      status.chunksDone = i + 1
      status.completeFrom = chunks[i + 1]?.to ?? windowFrom
      status.done = i + 1 === chunks.length
    }
    opts.onProgress?.({ chunk: i + 1, chunks: chunks.length, from: c.from, to: c.to, bars })
  }
  return { chunks: chunks.length, bars }
}
