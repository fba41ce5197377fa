// Throughput of the 1-minute aggregator: folds pre-built TradeEvents (so only the fold is timed) and prints trades/s.
//   npx tsx bench/aggregate-fold.ts [trades=2000000] [tradesPerMinutePerMarket=8]
import { MinuteAggregator } from '../src/market/aggregate/minute-aggregator.js'
import { DEFAULT_COINS } from '../src/market/coins.js'
import { EXCHANGES } from '../src/market/exchanges.js'
import type { TradeEvent } from '../src/market/events.js'

const N = Number(process.argv[2] ?? 2_000_000)
const PER_MIN = Number(process.argv[3] ?? 8)

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

const trades = build(N, Date.UTC(2025, 0, 1))
run(trades.slice(0, 200_000)) // warm up the JIT
for (let r = 0; r < 3; r++) {
  const { secs, bars } = run(trades)
  console.log(
    `fold: ${N.toLocaleString()} trades (${PER_MIN}/min/market, ${markets.length} markets) -> ${bars.toLocaleString()} bars in ${secs.toFixed(3)} s = ${Math.round(N / secs).toLocaleString()} trades/s`,
  )
}
