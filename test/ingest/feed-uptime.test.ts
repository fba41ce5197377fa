// feed_uptime (src/ingest/feed-uptime.ts, store/feed-uptime.ts): the sources' feed states through the ingest pipeline
// become spans of uptime, extended on every flush while the stream stays up, closed where it went down, merged where
// they touch; the simulator's history reports its own feed over every range it simulates.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { Ingest } from '../../src/ingest/ingest.js'
import { MarketSimulator } from '../../src/sources/simulator/index.js'
import { MarketState } from '../../src/read/state.js'
import { readFeedSpans, writeFeedSpans } from '../../src/store/market/feed-uptime.js'
import type { Database } from '../../src/store/database.js'
import { openTestStore } from '../helpers/store.js'

const MIN = 60_000
const H = 60 * MIN
const T0 = Date.UTC(2026, 2, 2, 6)

let db: Database
let market: MarketState
beforeEach(async () => {
  db = await openTestStore()
  market = new MarketState(db, () => T0)
})
afterEach(() => db.close())

const rows = async () =>
  (await db.sql.query<Record<string, unknown>>('SELECT exchange, coins, from_ts, to_ts FROM feed_uptime ORDER BY exchange, from_ts')).map((r) => [r['exchange'], r['coins'], Number(r['from_ts']), Number(r['to_ts'])])

describe('feed uptime through the ingest pipeline', () => {
  it('a stream up is extended to the pipeline clock on each flush, ends where it went down, and a new span starts when it is back', async () => {
    const ingest = new Ingest({ db, market })
    const up = (ts: number, on: boolean, coins = ['ETH', 'BTC']) => ingest.feed({ exchange: 'bybit', stream: 'liquidations', coins, ts, up: on })
    up(T0, true)
    ingest.advance(T0 + MIN)
    await ingest.flush()
    expect(await rows()).toEqual([['bybit', ['BTC', 'ETH'], T0, T0 + MIN]])
    const v = market.reader.version('feeds')
    // still up: the same span, longer
    up(T0 + 90_000, true)
    ingest.advance(T0 + 2 * MIN)
    await ingest.flush()
    expect(await rows()).toEqual([['bybit', ['BTC', 'ETH'], T0, T0 + 2 * MIN]])
    expect(market.reader.version('feeds')).toBeGreaterThan(v)
    // down at 3 min: the span ends there, whatever the clock does after
    up(T0 + 3 * MIN, false)
    ingest.advance(T0 + 5 * MIN)
    await ingest.flush()
    expect(await rows()).toEqual([['bybit', ['BTC', 'ETH'], T0, T0 + 3 * MIN]])
    // back at 10 min: a second span, the outage between them stays
    up(T0 + 10 * MIN, true)
    ingest.advance(T0 + 11 * MIN)
    await ingest.flush()
    // the stream now carries another coin set: a new span from then on
    up(T0 + 12 * MIN, true, ['BTC'])
    ingest.advance(T0 + 13 * MIN)
    await ingest.flush({ final: true })
    expect(await rows()).toEqual([
      ['bybit', ['BTC', 'ETH'], T0, T0 + 3 * MIN],
      ['bybit', ['BTC', 'ETH'], T0 + 10 * MIN, T0 + 12 * MIN],
      ['bybit', ['BTC'], T0 + 12 * MIN, T0 + 13 * MIN],
    ])
    // read per coin: the ETH stream only where a span carried ETH
    expect((await readFeedSpans(db.sql, { stream: 'liquidations', from: T0, to: T0 + H, coin: 'ETH' })).map((s) => [s.from, s.to])).toEqual([
      [T0, T0 + 3 * MIN],
      [T0 + 10 * MIN, T0 + 12 * MIN],
    ])
  })

  it('spans that touch or overlap merge into one row; one that does not stays apart', async () => {
    const span = (from: number, to: number) => ({ exchange: 'okx' as const, stream: 'liquidations' as const, coins: ['BTC'], from, to })
    await writeFeedSpans(db.sql, [span(T0 + H, T0 + 2 * H), span(T0, T0 + H), span(T0 + 90 * MIN, T0 + 3 * H), span(T0 + 4 * H, T0 + 5 * H)])
    expect(await rows()).toEqual([
      ['okx', ['BTC'], T0, T0 + 3 * H],
      ['okx', ['BTC'], T0 + 4 * H, T0 + 5 * H],
    ])
  })

  it('the simulator reports its liquidation feed over each range of history: one span per venue publishing one, none for Hyperliquid', async () => {
    const sim = new MarketSimulator({ seed: 3, coins: ['BTC', 'SOL'] })
    // newest hour first, as the backfill writes
    for (const h of [2, 1, 0]) {
      const ingest = new Ingest({ db, market, trackLive: false })
      sim.simulateRange(T0 + h * H, T0 + (h + 1) * H, ingest)
      ingest.advance(T0 + (h + 1) * H)
      await ingest.flush({ final: true })
    }
    expect(await rows()).toEqual(['binance', 'bybit', 'dydx', 'okx'].map((e) => [e, ['BTC', 'SOL'], T0, T0 + 3 * H]))
    // live: up from where it starts, extended by the pipeline to its clock
    const live = new Ingest({ db, market })
    new MarketSimulator({ seed: 3, coins: ['BTC', 'SOL'] }).live(live, { manual: true, fromTs: T0 + 3 * H })
    live.advance(T0 + 3 * H + 5 * MIN)
    await live.flush()
    expect((await rows()).map((r) => r.slice(2))).toEqual(Array(4).fill([T0, T0 + 3 * H + 5 * MIN]))
  })
})
