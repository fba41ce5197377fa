// The REST cost model (src/sources/connectors/poll-cost.ts) against the real connectors: each poll loop of each venue
// runs alone on an offline CCXT instance (every REST call answered 500, so each poll fails once and backs off for an
// hour), and the requests its first poll makes are counted, for one coin and for three. Spot markets are left out
// (perps only): their ticker call is one bulk call per poll on each CEX.
import type { Exchange } from 'ccxt'
import ccxt from 'ccxt'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createConnector } from '../../../src/sources/connectors/index.js'
import type { ExchangeConnector } from '../../../src/sources/connectors/connector.js'
import { DEFAULT_POLL_INTERVALS, type PollIntervals } from '../../../src/sources/connectors/connector-options.js'
import { maxCoins, plannedIntervals, requestsPerMinute, restUse, VENUE_COSTS, LIVE_POLL_SHARE } from '../../../src/sources/connectors/poll-cost.js'
import { EXCHANGE_IDS, type ExchangeId } from '../../../src/domain/exchanges.js'
import { listed } from '../universe/lists.js'
import { offlineHttp, offlineWs, RecordingSink, waitFor, type RecordedRequest } from './offline.js'
import type { MarketInterface } from 'ccxt'

const CLASSES: Record<ExchangeId, () => Exchange> = {
  binance: () => new ccxt.pro.binanceusdm(),
  bybit: () => new ccxt.pro.bybit(),
  okx: () => new ccxt.pro.okx(),
  hyperliquid: () => new ccxt.pro.hyperliquid(),
  dydx: () => new ccxt.pro.dydx(),
}
const STREAM: Record<keyof PollIntervals, string> = { tickerMs: 'tickers', openInterestMs: 'openInterest', fundingMs: 'funding', wideBookMs: 'books', positioningMs: 'positioning' }
const HOUR = 3_600_000

let lists: Record<ExchangeId, MarketInterface[]>
beforeAll(async () => {
  lists = await listed()
})
const running: ExchangeConnector[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map((c) => c.stop()))
})

/** the REST requests of one poll of `loop` with these coins (fundingInfo, Binance's 10-minute list, aside) */
async function onePoll(venue: ExchangeId, loop: keyof PollIntervals, coins: string[]): Promise<RecordedRequest[]> {
  const ex = CLASSES[venue]()
  ex.setMarkets(lists[venue])
  const requests = offlineHttp(ex, [[() => true, '{"error":"offline"}']])
  ;(ex as any).fetchImplementation = ((inner) => async (url: string, params: object) => {
    await inner(url, params)
    return new Response('{"error":"offline"}', { status: 500, headers: { 'content-type': 'application/json' } })
  })((ex as any).fetchImplementation)
  offlineWs(ex)
  const streams = Object.fromEntries(['trades', 'books', 'tickers', 'openInterest', 'funding', 'liquidations', 'positioning'].map((s) => [s, s === STREAM[loop]]))
  const c = createConnector(venue, { coins, sink: new RecordingSink(), ccxtExchange: ex, marketTypes: ['perp'], streams, backoff: { baseMs: HOUR, maxMs: HOUR, jitter: 0 } })
  running.push(c)
  await c.start()
  await waitFor(() => c.health().errors >= 1, 5_000, `${venue} ${loop}: one failed poll`)
  return requests.filter((r) => !r.url.includes('/fapi/v1/fundingInfo'))
}

/** what the model says one poll of `loop` asks, for `coins` perps (no spot market) */
const modelled = (venue: ExchangeId, loop: keyof PollIntervals, coins: number) =>
  VENUE_COSTS[venue].calls.filter((c) => c.loop === loop && !c.spot).reduce((a, c) => a + (c.per === 'perp' ? c.count * coins : c.count), 0)

const LOOPS: [ExchangeId, keyof PollIntervals][] = EXCHANGE_IDS.flatMap((v) =>
  [...new Set(VENUE_COSTS[v].calls.map((c) => c.loop))].filter((l): l is keyof PollIntervals => l in DEFAULT_POLL_INTERVALS).map((l) => [v, l] as [ExchangeId, keyof PollIntervals]),
)

describe('what each poll of the real connectors asks the venue', () => {
  it.each(LOOPS)('%s %s: the requests of one poll, for 1 and 3 coins, are what the model counts', async (venue, loop) => {
    const one = await onePoll(venue, loop, ['BTC'])
    const three = await onePoll(venue, loop, ['BTC', 'ETH', 'SOL'])
    expect([one.length, three.length]).toEqual([modelled(venue, loop, 1), modelled(venue, loop, 3)])
  })
})

describe('the cost per coin and the poll plan', () => {
  it('Hyperliquid: 12 coins take 808 of its 1 200 weight a minute; each coin 44 more; 15 fit in the live share', () => {
    // by hand from its documented weights: metaAndAssetCtxs 20 × (12 + 2) a minute, fundingHistory 20 per coin a
    // minute, l2Book 3 × 2 per coin every 15 s, meta 20 an hour
    const [info] = restUse('hyperliquid', 12)
    expect(info!.fixed).toBeCloseTo(20 * 12 + 20 * 2 + 20 / 60, 6)
    expect(info!.perCoins).toBeCloseTo(12 * (20 + 3 * 2 * 4), 6)
    expect(maxCoins('hyperliquid')).toBe(Math.floor((LIVE_POLL_SHARE * 1200 - (280 + 1 / 3)) / 44))
    expect(requestsPerMinute('hyperliquid', 13) - requestsPerMinute('hyperliquid', 12)).toBeCloseTo(1 + 12, 6)
  })

  it('the default 12 coins change no interval on any venue; a universe of 200 slows only the per-market polls, to fit', () => {
    for (const v of EXCHANGE_IDS) expect(plannedIntervals(v, 12)).toEqual(DEFAULT_POLL_INTERVALS)
    for (const v of EXCHANGE_IDS) {
      const plan = plannedIntervals(v, 200)
      expect(plan.tickerMs).toBe(DEFAULT_POLL_INTERVALS.tickerMs)
      for (const g of restUse(v, 200, plan)) expect(g.fixed + g.perCoins, `${v} ${g.group}`).toBeLessThanOrEqual(LIVE_POLL_SHARE * g.limit + 1e-6)
    }
    // Hyperliquid at 200 coins: funding history and the wide books slowed by the same factor
    const hl = plannedIntervals('hyperliquid', 200)
    expect(hl.fundingMs / 60_000).toBeCloseTo(hl.wideBookMs / 15_000, 2)
    expect(plannedIntervals('bybit', 200)).toEqual(DEFAULT_POLL_INTERVALS)
  })
})
