// Throughput of the 1-minute aggregator: folds pre-built TradeEvents (so only the fold is timed), against a bare
// loop over the same trades. Part of `npm run bench`; alone: npx tsx bench/aggregate-fold.ts [trades] [perMinute]
import { MinuteAggregator } from '../src/ingest/aggregate/minute-aggregator.js'
import { DEFAULT_COINS } from '../src/domain/coins.js'
import { EXCHANGES } from '../src/domain/exchanges.js'
import type { TradeEvent } from '../src/domain/events.js'

const direct = import.meta.url === `file://${process.argv[1]}`
const N = Number((direct && process.argv[2]) || 2_000_000)
const PER_MIN = Number((direct && process.argv[3]) || 8)

const markets = DEFAULT_COINS.flatMap((coin, ci) =>
  EXCHANGES.flatMap((e) => e.marketTypes.map((marketType) => ({ exchange: e.id, coin, marketType, price: 100 * (ci + 1) }))),
)

// history-like order: minute by minute, market by market, each market's trades in ts order
function build(n: number, t0: number): TradeEvent[] {
  const out: TradeEvent[] = []
  let s = 12345
  const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296)
  for (let m = 0; out.length < n; m++) {
    const minute = t0 + m * 60_000
    for (const mk of markets) {
      for (let j = 0; j < PER_MIN && out.length < n; j++) {
        mk.price *= 1 + (rnd() - 0.5) * 0.001
        out.push({
          type: 'trade',
          exchange: mk.exchange,
          coin: mk.coin,
          marketType: mk.marketType,
          ts: minute + Math.floor(((j + rnd()) / PER_MIN) * 60_000),
          id: `${minute / 60_000}-${j}`,
          price: mk.price,
          size: 0.01 + rnd() * 2,
          side: rnd() < 0.5 ? 'buy' : 'sell',
        })
      }
    }
  }
  return out
}

function run(trades: TradeEvent[]): { secs: number; bars: number } {
  const agg = new MinuteAggregator()
  let bars = 0
  const t = process.hrtime.bigint()
  for (let i = 0; i < trades.length; i++) {
    agg.add(trades[i]!)
    if ((i & 0xffff) === 0) bars += agg.drainClosed().length
  }
  bars += agg.drainAll().length
  const secs = Number(process.hrtime.bigint() - t) / 1e9
  const st = agg.stats
  if (st.accepted !== trades.length) throw new Error(`accepted ${st.accepted} of ${trades.length}`)
  return { secs, bars }
}

/** the least any fold must do: touch every trade once and add its size into its market's running total */
function bareLoop(trades: TradeEvent[]): number {
  const totals = new Map<string, number>()
  const t = process.hrtime.bigint()
  for (let i = 0; i < trades.length; i++) {
    const tr = trades[i]!
    const k = tr.coin
    totals.set(k, (totals.get(k) ?? 0) + tr.size)
  }
  return Number(process.hrtime.bigint() - t) / 1e9
}

/** best of three runs of the fold and of the bare loop over the same trades */
export function benchAggregator(n = N): { tradesPerSecond: number; bareLoopPerSecond: number } {
  const trades = build(n, Date.UTC(2025, 0, 1))
  run(trades.slice(0, 200_000)) // warm up the JIT
  let best = Infinity
  let bare = Infinity
  for (let r = 0; r < 3; r++) {
    best = Math.min(best, run(trades).secs)
    bare = Math.min(bare, bareLoop(trades))
  }
  return { tradesPerSecond: n / best, bareLoopPerSecond: n / bare }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const r = benchAggregator()
  console.log(`fold: ${Math.round(r.tradesPerSecond).toLocaleString()} trades/s; bare loop ${Math.round(r.bareLoopPerSecond).toLocaleString()} trades/s`)
}
