// What every venue file needs beside its own wording: the options a double is built with, streaming state for trades
// and books, the synthetic liquidations, and small parsing helpers.
import type { WebSocket } from 'ws'
import type { MarketType } from '../../../src/domain/exchanges.js'
import { bookAt, sideDiff, type Book, type Level } from './books.js'
import { hashString, MINUTE, noise, roundTo, type HistoryData, type Trade } from './history.js'

export interface VenueOptions {
  /** the double's clock (default Date.now): what "now" is for history, retention, limits and stamps */
  now: () => number
  seed: number
  /** perp coins to list (default: the coins of the venue's recorded market list); unknown ones are cloned from BTC's entry */
  coins?: readonly string[]
  /** listing time per coin (default: the recorded one, or 400 days before the double started) */
  listedAt?: Record<string, number>
  /** funding interval per coin, hours (default: the venue's) */
  fundingIntervalHours?: Record<string, number>
  /** Binance: requests after a 429 in the same window before the IP is banned (418); default 3 */
  banAfter?: number
  /** Binance: the first ban's length, ms (default 2 min; each further ban doubles it, up to 3 days) */
  banMs?: number
  /** the holes injected for a path (server.holes) */
  holes(path: string): Array<{ from: number; to: number }>
}

export const inHole = (holes: Array<{ from: number; to: number }>, ts: number) => holes.some((h) => ts >= h.from && ts < h.to)

export function send(ws: WebSocket, frame: unknown): void {
  if (ws.readyState === ws.OPEN) ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame))
}

/** a decimal string with exactly `d` decimals (venues send fixed decimals) */
export const fixed = (x: number, d: number) => x.toFixed(d)

/** an integer query parameter: undefined when absent, NaN when malformed */
export function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name)
  if (v === null || v === '') return undefined
  return /^-?\d{1,20}$/.test(v) ? Number(v) : NaN
}

export interface Liquidation {
  ts: number
  /** the side of the position closed */
  side: 'long' | 'short'
  price: number
  size: number
}

/** about one liquidation every three minutes per perp, at a price near the path, deterministic */
export function liquidations(h: HistoryData, coin: string, from: number, to: number): Liquidation[] {
  const spec = h.spec(coin, 'perp')
  if (!spec) return []
  const c = hashString(coin)
  const out: Liquidation[] = []
  const end = Math.min(to, h.now() + 1)
  for (let m = Math.floor(Math.max(from, spec.listedAt) / MINUTE) * MINUTE; m < end; m += MINUTE) {
    const k = m / MINUTE
    if (noise(h.seed, c, 70, k) > 0.33) continue
    const ts = m + Math.floor(noise(h.seed, c, 71, k) * MINUTE)
    if (ts < from || ts >= end) continue
    const side = noise(h.seed, c, 72, k) < 0.5 ? 'long' : 'short'
    const p = h.price(coin, 'perp', ts) * (side === 'long' ? 0.999 : 1.001)
    out.push({ ts, side, price: roundTo(p, spec.tick), size: Math.max(spec.lot, roundTo((20_000 / p) * (0.2 + 3 * noise(h.seed, c, 73, k)), spec.lot)) })
  }
  return out
}

/** per subscription: the trades or liquidations not yet sent (from the moment it subscribed) */
export class StreamCursor {
  private readonly last = new Map<string, number>()
  /** the window (since, t] to send for `key`, advancing it to t */
  window(key: string, t: number): { from: number; to: number } {
    const since = this.last.get(key) ?? t
    this.last.set(key, t)
    return { from: since + 1, to: t + 1 }
  }
  start(key: string, t: number): void {
    if (!this.last.has(key)) this.last.set(key, t)
  }
  stop(key: string): void {
    this.last.delete(key)
  }
}

/** new trades of a market since the last call for this key */
export function freshTrades(h: HistoryData, cursor: StreamCursor, key: string, coin: string, marketType: MarketType, t: number): Trade[] {
  const w = cursor.window(key, t)
  return w.to > w.from ? h.trades(coin, marketType, w.from, w.to) : []
}

/**
 * One market's live book as a venue streams it: the current levels and an update id; advance() moves it to the
 * book at t and returns the changed levels (none when nothing changed).
 */
export class LiveBook {
  book: Book
  updateId: number
  constructor(
    private readonly h: HistoryData,
    private readonly coin: string,
    private readonly marketType: MarketType,
    private readonly depth: number,
    t: number,
  ) {
    this.book = bookAt(h, coin, marketType, t, depth)
    this.updateId = 1_000 + Math.floor(t / 100)
  }
  advance(t: number): { prevId: number; bids: Level[]; asks: Level[] } | null {
    const next = bookAt(this.h, this.coin, this.marketType, t, this.depth)
    const bids = sideDiff(this.book.bids, next.bids)
    const asks = sideDiff(this.book.asks, next.asks)
    if (bids.length === 0 && asks.length === 0) return null
    const prevId = this.updateId
    this.book = next
    this.updateId++
    return { prevId, bids, asks }
  }
}
