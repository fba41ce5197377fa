// Each GET /v1 endpoint's most demanding call, every parameter at its extreme: the longest window (366 days, ending a
// day ahead of now) at the smallest interval, the largest limit, bins and range, every coin and venue; and the
// GraphQL operation graphql-armor lets through with the most work in it. Shared by the event-loop bound test
// (test/reliability/event-loop-bound.test.ts) and the bench (bench/event-loop.ts).
import { MAX_CELLS } from '../../src/endpoints/liquidation-heatmap.js'

const DAY = 86_400_000

/** path → query string of its most demanding call at `now` */
export function largestCalls(now: number): Record<string, string> {
  // the latest end_time accepted (a day ahead), on a whole minute, and the longest window before it
  const end = Math.floor((now + DAY) / 60_000) * 60_000 - 60_000
  const window = `start_time=${end - 366 * DAY}&end_time=${end}&limit=5000`
  return {
    '/v1/markets/ohlc': 'coin=BTC&interval=1m&lookback=30d&limit=5000',
    '/v1/structure/volume-profile': 'coin=BTC&lookback=30d&bins=200',
    // far below the price: the cascade runs every phase it may
    '/v1/signals/liquidation-cascade': 'coin=BTC&trigger_price=1',
    '/v1/markets/exchanges': '',
    '/v1/markets/coins': '',
    '/v1/signals/snapshot': '',
    '/v1/signals/divergence': '',
    '/v1/structure/spread': '',
    '/v1/funding/weighted': '',
    '/v1/flow/imbalance': '',
    '/v1/markets/ticker': '',
    '/v1/oi/changes': '',
    '/v1/flow/cvd': `coin=BTC&interval=1m&${window}`,
    '/v1/flow/taker-volume': `coin=BTC&interval=1m&${window}`,
    '/v1/oi/history': `coin=BTC&interval=1m&${window}`,
    '/v1/funding/history': `coin=BTC&interval=1m&${window}`,
    '/v1/structure/basis': `coin=BTC&interval=1m&${window}`,
    '/v1/markets/overview': 'sort=liquidations_24h_usd',
    '/v1/funding/arbitrage': 'holding_hours=8760',
    '/v1/signals/regime': `coin=BTC&interval=1h&${window}`,
    '/v1/flow/large-trades': 'min_usd=100000&limit=5000',
    '/v1/liquidations/history': `coin=BTC&interval=1m&${window}`,
    '/v1/liquidations/orders': `min_usd=0&${window}`,
    '/v1/positioning/long-short': `coin=BTC&interval=1m&${window}`,
    // the most buckets a page of 200 bins may hold
    '/v1/liquidations/heatmap': `coin=BTC&interval=1h&bins=200&range_pct=50&${window.replace('limit=5000', `limit=${MAX_CELLS / 200}`)}`,
    '/v1/signals/backtest': 'coin=BTC&lookback=90d',
  }
}

/** 20 aliases (graphql-armor's most) of OI history over the longest window at 1m, no two alike (no shared cache) */
export function largestGraphql(now: number, coins: readonly string[] = ['BTC', 'ETH', 'SOL']): string {
  const end = Math.floor((now + DAY) / 60_000) * 60_000 - 60_000
  const exchanges = ['', 'BINANCE', 'BYBIT', 'OKX', 'HYPERLIQUID', 'DYDX']
  const aliases = Array.from({ length: 20 }, (_, i) => {
    const exchange = exchanges[Math.floor(i / coins.length) % exchanges.length]
    const interval = Math.floor(i / (coins.length * exchanges.length)) ? 'M5' : 'M1'
    return `a${i}: oiHistory(coin: "${coins[i % coins.length]}"${exchange ? `, exchange: ${exchange}` : ''}, interval: ${interval}, startTime: ${end - 366 * DAY}, endTime: ${end}, limit: 5000) { next }`
  })
  return `{ ${aliases.join(' ')} }`
}
