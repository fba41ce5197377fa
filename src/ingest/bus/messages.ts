// What ingest nodes tell API nodes over the bus (docs/operations.md, "The bus"): the live state as it arrives
// (tickers, open interest, books), what each store write changed (the rows the hot series mirror, and which kinds
// of data moved: the data version), and each ingest node's status (venues, backfill progress, writer leases).
import type { ExchangeId } from '../../domain/exchanges.js'
import type { MinuteBar } from '../../domain/minute-bars.js'
import type { BookSnapshotEvent, OpenInterestEvent, TickerEvent } from '../../domain/events.js'
import type { DataKind } from '../../read/reader.js'
import type { BackfillStatus } from '../../read/state.js'
import type { MarketSample } from '../../store/market/samples.js'

export type LiveEvent = TickerEvent | OpenInterestEvent | BookSnapshotEvent

/** a bar as the series keep it (no volume at price) */
export type SeriesBar = Omit<MinuteBar, 'vap'>

/** one store write: the rows the hot series mirror, and the kinds of stored data it changed */
export interface DataMessage {
  node: string
  /** the writer's number for this message, 1, 2, 3…: a follower that sees one skipped missed a write (absent from an older node) */
  seq?: number
  kinds: DataKind[]
  /** per kind, the earliest time the write touched (absent, e.g. from an older node: all of it may have moved) */
  from?: Partial<Record<DataKind, number>>
  minuteBars: SeriesBar[]
  hourBars: SeriesBar[]
  samples: MarketSample[]
}

export interface StatusMessage {
  node: string
  /** the node's clock when sent, Unix ms */
  ts: number
  /** venues its source feeds */
  enabled: ExchangeId[]
  /** venues whose writer lease it holds */
  writing: ExchangeId[]
  /** the node's newest event per venue */
  lastEvent: Partial<Record<ExchangeId, number>>
  backfill: BackfillStatus | null
  /** the number of the node's newest data message, sent or not (absent from an older node) */
  dataSeq?: number
}

/** rows per data message: a message stays far below NATS's default 1 MB payload limit */
const ROWS_PER_MESSAGE = 2000

const strip = (b: MinuteBar): SeriesBar => ({
  exchange: b.exchange, coin: b.coin, marketType: b.marketType, ts: b.ts, open: b.open, high: b.high, low: b.low, close: b.close,
  volume: b.volume, buyVolume: b.buyVolume, sellVolume: b.sellVolume, quoteVolume: b.quoteVolume, trades: b.trades,
  source: b.source, noSplitMinutes: b.noSplitMinutes, klineMinutes: b.klineMinutes,
})

/**
 * A write as bus messages: only the rows the API nodes' series keep (minutes of the minute window; for older
 * samples only the newest per hour, which is all the hourly grid holds), split into messages of bounded size.
 */
export function dataMessages(
  node: string,
  kinds: DataKind[],
  written: { minuteBars: readonly MinuteBar[]; hourBars: readonly MinuteBar[]; samples: readonly MarketSample[]; from?: Partial<Record<DataKind, number>> },
  minuteFloor: number,
): DataMessage[] {
  const minuteBars = written.minuteBars.filter((b) => b.ts >= minuteFloor).map(strip)
  const hourBars = written.hourBars.map(strip)
  const newestPerHour = new Map<string, MarketSample>()
  const samples: MarketSample[] = []
  for (const s of written.samples) {
    if (s.marketType !== 'perp') continue
    if (s.ts >= minuteFloor) samples.push(s)
    else {
      const k = `${s.exchange}:${s.coin}:${Math.floor(s.ts / 3_600_000)}`
      const had = newestPerHour.get(k)
      if (!had || had.ts < s.ts) newestPerHour.set(k, s)
    }
  }
  samples.push(...newestPerHour.values())
  const out: DataMessage[] = []
  const rows = [...minuteBars.map((r) => ['m', r] as const), ...hourBars.map((r) => ['h', r] as const), ...samples.map((r) => ['s', r] as const)]
  for (let i = 0; i < rows.length || (i === 0 && kinds.length); i += ROWS_PER_MESSAGE) {
    const msg: DataMessage = { node, kinds, ...(written.from ? { from: written.from } : {}), minuteBars: [], hourBars: [], samples: [] }
    for (const [kind, row] of rows.slice(i, i + ROWS_PER_MESSAGE)) {
      if (kind === 'm') msg.minuteBars.push(row as SeriesBar)
      else if (kind === 'h') msg.hourBars.push(row as SeriesBar)
      else msg.samples.push(row as MarketSample)
    }
    out.push(msg)
  }
  return out
}

/**
 * a received bar as the series take it; a bar from a node older than provenance carries none: it was folded from
 * trades, every field given (such nodes stored nothing else)
 */
export const toMinuteBar = (b: SeriesBar): MinuteBar => {
  const old: Partial<Pick<SeriesBar, 'source' | 'noSplitMinutes' | 'klineMinutes'>> = b
  return { ...b, source: old.source ?? 'trades', noSplitMinutes: old.noSplitMinutes ?? 0, klineMinutes: old.klineMinutes ?? 0, vap: new Map() }
}

/** a subject token from a coin symbol (NATS tokens cannot hold '.', '*', '>' or whitespace) */
export const subjectToken = (s: string) => s.replace(/[.*>\s]/g, '_')
