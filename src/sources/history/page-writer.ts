// One page of venue history into the store, through the same ingest pipeline as live data (bars as whole minutes,
// open interest as sample slots, funding and positioning as their events), never over what is already stored: a
// kline never replaces a minute built from trades (a minute marked partial is completed from the kline, see
// docs/connectors.md#history), an open-interest slot or ratio period already stored keeps its value. Also what the
// page leaves missing: the holes the venue cannot serve.
import type { Database } from '../../store/database.js'
import { MINUTE_MS, floorTo } from '../../domain/time.js'
import type { ExchangeId } from '../../domain/exchanges.js'
import type { MarketState } from '../../read/state.js'
import type { MarketEvent, PositioningKind } from '../../domain/events.js'
import { publishedPositioningKinds } from '../connectors/positioning.js'
import { Ingest, type Written } from '../../ingest/ingest.js'
import { storedOiStamps, storedPositioningStamps, storedWholeMinutes } from '../../store/market/history.js'
import { kindMarketType, type HistoryKind, type HistoryPage } from '../../domain/venue-history.js'

/** the venue's own period of the kinds whose every step has a value (minutes; 5-minute statistics) */
export const STEP_MS: Partial<Record<HistoryKind, number>> = { candles_perp: MINUTE_MS, candles_spot: MINUTE_MS, open_interest: 5 * MINUTE_MS, long_short: 5 * MINUTE_MS }

/** open-interest history is stored on 5-minute slots (the venues' own period) */
const HISTORY_SAMPLE_MS = 5 * MINUTE_MS

export interface Series {
  exchange: ExchangeId
  coin: string
  kind: HistoryKind
}

/** what a span of a series already holds: per step, and per event of a page */
export interface StoredView {
  step(stepStart: number): boolean
  event(e: MarketEvent): boolean
}

const NOTHING: StoredView = { step: () => false, event: () => false }

export async function storedView(db: Database, s: Series, from: number, to: number): Promise<StoredView> {
  const q = { exchange: s.exchange, coin: s.coin, from, to }
  switch (s.kind) {
    case 'candles_perp':
    case 'candles_spot': {
      const minutes = await storedWholeMinutes(db.sql, { ...q, marketType: kindMarketType(s.kind) })
      return { step: (t) => minutes.has(t), event: () => false }
    }
    case 'open_interest': {
      const slots = new Set((await storedOiStamps(db.sql, q)).map((t) => floorTo(t, HISTORY_SAMPLE_MS)))
      return { step: (t) => slots.has(t), event: (e) => slots.has(floorTo(e.ts, HISTORY_SAMPLE_MS)) }
    }
    case 'long_short': {
      const byKind = await storedPositioningStamps(db.sql, q)
      const step = STEP_MS.long_short!
      const sets = new Map([...byKind].map(([k, ts]) => [k, new Set(ts.map((t) => floorTo(t, step)))]))
      const has = (kind: string, t: number) => sets.get(kind)?.has(floorTo(t, step)) ?? false
      // a period is stored once every figure the venue publishes is (Binance two, Bybit and OKX one)
      const kinds = publishedPositioningKinds(s.exchange)
      return { step: (t) => kinds.every((k) => has(k, t)), event: (e) => e.type === 'positioning' && has(e.kind, e.ts) }
    }
    default:
      return NOTHING
  }
}

/** write a page's bars and events that are not stored yet; returns how many of each went in */
export async function writePage(opts: { db: Database; market: MarketState; page: HistoryPage; stored: StoredView; onWritten?: (w: Written) => void }): Promise<{ bars: number; events: number }> {
  const { page, stored } = opts
  const bars = page.bars.filter((b) => !stored.step(b.ts)).sort((a, b) => a.ts - b.ts)
  const events = page.events.filter((e) => !stored.event(e)).sort((a, b) => a.ts - b.ts)
  if (!bars.length && !events.length) return { bars: 0, events: 0 }
  // its own pipeline, as the simulator's backfill: history never interleaves with the live aggregator's minutes
  const ingest = new Ingest({ db: opts.db, market: opts.market, sampleEveryMs: HISTORY_SAMPLE_MS, trackLive: false, onWritten: opts.onWritten })
  for (const b of bars) ingest.emitBar(b)
  for (const e of events) ingest.emit(e)
  ingest.advance(Math.max(page.to, ...bars.map((b) => b.ts + MINUTE_MS), ...events.map((e) => e.ts + 1)) + ingest.aggregator.graceMs + 1)
  await ingest.flush({ final: true })
  return { bars: bars.length, events: events.length }
}

/** the steps of [from, to) in neither the store nor the page: spans the venue could not serve */
export function pageHoles(kind: HistoryKind, from: number, to: number, page: HistoryPage, stored: StoredView, positioning: readonly PositioningKind[] = ['account', 'top_position']): { from: number; to: number }[] {
  const step = STEP_MS[kind]
  if (!step || !(to > from)) return []
  const have = new Set<number>()
  for (const b of page.bars) have.add(floorTo(b.ts, step))
  const perKind = new Map<string, Set<number>>()
  for (const e of page.events) {
    const key = e.type === 'positioning' ? e.kind : e.type
    if (!perKind.has(key)) perKind.set(key, new Set())
    perKind.get(key)!.add(floorTo(e.ts, step))
  }
  const inPage = (t: number) =>
    kind === 'long_short' ? positioning.every((k) => !!perKind.get(k)?.has(t)) : kind === 'open_interest' ? !!perKind.get('open_interest')?.has(t) : have.has(t)
  const out: { from: number; to: number }[] = []
  for (let t = Math.ceil(from / step) * step; t + step <= to; t += step) {
    if (stored.step(t) || inPage(t)) continue
    const last = out.at(-1)
    if (last && last.to === t) last.to = t + step
    else out.push({ from: t, to: t + step })
  }
  return out
}
