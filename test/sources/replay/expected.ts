// Figures derived by hand from the raw Bybit payloads, for every test that replays them. Not a test file.
import { fixture } from './helpers.js'

export const MINUTE = 60_000

export type BybitTrade = { T: number; S: 'Buy' | 'Sell'; v: string; p: string }
type Level = [string, string]
export type BybitBookFrame = { ts: number; type: 'snapshot' | 'delta'; data: { b: Level[]; a: Level[] } }

export interface ExpectedCandle {
  /** the venue's minute (recording time) */
  minute: number
  open: number
  high: number
  low: number
  close: number
  volume: number
  buy_volume: number
  sell_volume: number
  trades: number
}

export const bybitTrades = (): BybitTrade[] => fixture<Array<{ data: BybitTrade[] }>>('bybit/ws_public_trade.json').flatMap((f) => f.data)

/** 1-minute candles by the venue's rules: minute of T, open/close by (T, arrival), volumes in coins by taker side */
export function candlesOf(trades: readonly BybitTrade[]): ExpectedCandle[] {
  const byMinute = new Map<number, BybitTrade[]>()
  for (const t of trades) {
    const m = Math.floor(t.T / MINUTE) * MINUTE
    byMinute.set(m, [...(byMinute.get(m) ?? []), t])
  }
  return [...byMinute.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([minute, ts]) => {
      const ordered = [...ts].sort((a, b) => a.T - b.T)
      const vol = (f: (t: BybitTrade) => boolean) => ts.filter(f).reduce((a, t) => a + Number(t.v), 0)
      return {
        minute,
        open: Number(ordered[0]!.p),
        high: Math.max(...ts.map((t) => Number(t.p))),
        low: Math.min(...ts.map((t) => Number(t.p))),
        close: Number(ordered.at(-1)!.p),
        volume: vol(() => true),
        buy_volume: vol((t) => t.S === 'Buy'),
        sell_volume: vol((t) => t.S === 'Sell'),
        trades: ts.length,
      }
    })
}

export const bybitBookFrames = (): BybitBookFrame[] => fixture<BybitBookFrame[]>('bybit/ws_orderbook.json')

/** the book after frames[0..upTo]: snapshots replace, deltas set a level, size 0 deletes it; best first */
export function bookAfter(frames: readonly BybitBookFrame[], upTo: number) {
  const bids = new Map<number, number>()
  const asks = new Map<number, number>()
  for (const f of frames.slice(0, upTo + 1)) {
    if (f.type === 'snapshot') {
      bids.clear()
      asks.clear()
    }
    for (const [p, q] of f.data.b) Number(q) === 0 ? bids.delete(Number(p)) : bids.set(Number(p), Number(q))
    for (const [p, q] of f.data.a) Number(q) === 0 ? asks.delete(Number(p)) : asks.set(Number(p), Number(q))
  }
  const side = (m: Map<number, number>, dir: 1 | -1) => [...m].sort((a, b) => dir * (a[0] - b[0])).map(([price, size]) => ({ price, size }))
  return { bids: side(bids, -1), asks: side(asks, 1) }
}
