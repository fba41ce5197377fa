// The history backfill of a live venue, timed against the least time its documented limits allow: the service is
// started as a user starts it (bench/server.ts: MARKET_SOURCE=binance, BINANCE_REST_URL/BINANCE_WS_URL) against the
// Binance venue double on loopback, on a fresh embedded store; the pages it asked are read from the double's request
// log, and the least time is, per budget pool, the weight of those pages over the pool's documented rate (the
// slowest pool decides: pools fill side by side). The ratio measured / least says how close the backfill runs to the
// venue's limits (the budget itself keeps backfill to 70 % of 90 % of each limit, so a ratio near 1.6 is the best).
import type { ChildProcess } from 'node:child_process'
import { BINANCE_LIMITS } from '../src/sources/history/limits.js'
import { startVenueDouble } from '../test/helpers/venue-doubles/index.js'
import type { Row } from './report.js'

/** what one history page of each Binance endpoint draws, by pool (src/sources/history/binance.ts) */
const PAGE_DRAWS: Record<string, { pool: string; weight: number }> = {
  '/fapi/v1/klines': { pool: 'fapi', weight: 10 },
  '/api/v3/klines': { pool: 'spot', weight: 2 },
  '/futures/data/openInterestHist': { pool: 'futures_data', weight: 1 },
  '/futures/data/globalLongShortAccountRatio': { pool: 'futures_data', weight: 1 },
  '/futures/data/topLongShortPositionRatio': { pool: 'futures_data', weight: 1 },
  '/fapi/v1/fundingRate': { pool: 'fapi_funding', weight: 1 },
}

type Start = (env: Record<string, string>) => Promise<{ proc: ChildProcess; backfilled: Promise<number> }>

export async function benchHistory(start: Start, o: { days: number; coins: readonly string[]; dir: string }): Promise<Row[]> {
  const double = await startVenueDouble('binance', { coins: o.coins })
  try {
    const svc = await start({ MARKET_SOURCE: 'binance', ...double.env(), DATA_DIR: o.dir, BENCH_COINS: o.coins.join(','), BENCH_DAYS: String(o.days) })
    const ms = await svc.backfilled
    svc.proc.kill('SIGTERM')
    await new Promise<void>((r) => svc.proc.once('exit', r))
    // history pages: the paged calls with a start (the live polls ask for the newest rows, without one)
    const pages = double.requests.filter((r) => PAGE_DRAWS[r.path] && r.query.has('startTime') && r.query.get('startTime') !== '0')
    const used = new Map<string, number>()
    for (const r of pages) used.set(PAGE_DRAWS[r.path]!.pool, (used.get(PAGE_DRAWS[r.path]!.pool) ?? 0) + PAGE_DRAWS[r.path]!.weight)
    const least = Math.max(...[...used].map(([pool, w]) => {
      const p = BINANCE_LIMITS.pools.find((x) => x.name === pool)!
      return (w / p.limit) * p.windowMs
    }))
    const limited = double.requests.filter((r) => r.status === 429 || r.status === 418).length
    const byPool = [...used].map(([p, w]) => `${p} ${w}`).join(', ')
    return [
      {
        bench: `history backfill ${o.days} d × ${o.coins.length} coins from the Binance double (npm start's path, MARKET_SOURCE=binance), ${pages.length} pages`,
        measured: `${(ms / 1000).toFixed(1)} s, ${limited} answers 429/418`,
        baseline: `${(least / 1000).toFixed(1)} s least time from the documented limits (weight: ${byPool})`,
        ratio: ms / least,
        target: '≤ 3× the least time, no 429/418',
        pass: ms / least <= 3 && limited === 0,
      },
    ]
  } finally {
    await double.close()
  }
}
