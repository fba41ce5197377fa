// The live path end to end, offline: the service (in process) with MARKET_SOURCE naming the venues and the
// <VENUE>_REST_URL / <VENUE>_WS_URL overrides pointing at the venue doubles (loopback HTTP + WebSocket servers).
// The connectors load the doubles' market lists, poll their tickers, open interest and funding, and follow their
// trade and book streams; what reaches the endpoints is what the doubles served. A venue that refuses the service
// (451) is reported on /v1/markets/exchanges while the others keep running.
import '../helpers/no-network.js'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { EXCHANGE_IDS } from '../../src/domain/exchanges.js'
import { startMarketRuntime, type MarketRuntime } from '../../src/sources/runtime.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { startVenueDouble, type VenueDouble } from '../helpers/venue-doubles/index.js'

const VENUES = EXCHANGE_IDS

// one clock for the doubles, the service and the connectors, running 20 times faster than the wall clock, so
// minutes close within seconds and the service's minutes can be compared with the doubles' own
const SPEED = 20

describe('live connectors against the venue doubles', () => {
  const doubles = new Map<string, VenueDouble>()
  let t: TestService
  let runtime: MarketRuntime
  let key: string
  let fake = Date.now()
  const clock = () => fake
  const ticker = setInterval(() => (fake += 50 * SPEED), 50)
  let startedAt = 0

  beforeAll(async () => {
    for (const v of VENUES) doubles.set(v, await startVenueDouble(v, { pushMs: 50, now: clock }))
    // no history backfill here (test/sources/history/ covers it): the live feed alone
    const env = Object.assign({ MARKET_SOURCE: VENUES.join(','), BACKFILL_DAYS: '0' }, ...[...doubles.values()].map((d) => d.env()))
    t = await startTestService({ env, clock })
    startedAt = clock()
    runtime = await startMarketRuntime(t.services, { liveConnectorOptions: { pollIntervalMs: 250, now: clock, backoff: { baseMs: 100, maxMs: 400 } } })
    key = (await t.signup()).apiKey
  })
  afterAll(async () => {
    clearInterval(ticker)
    await runtime?.stop()
    await t?.close()
    for (const d of doubles.values()) await d.close()
  })

  const json = async (path: string) => {
    const res = await t.get(path, key)
    expect(res.status, path).toBe(200)
    return (await res.json()) as any
  }

  // generous waits: five doubles and the service share the machine with the rest of the suite
  it('every venue loads its markets from its double and its tickers reach /v1/markets/ticker', { timeout: 240_000 }, async () => {
    await vi.waitFor(
      async () => {
        const body = await json('/v1/markets/ticker?coin=BTC')
        for (const v of VENUES) {
          const row = body.data.find((r: any) => r.exchange === v)
          // dYdX publishes no mark (its ticker row's mark is null): its oracle is the index
          expect(row?.mark_price ?? row?.index_price, v).toBeGreaterThan(0)
        }
      },
      { timeout: 90_000, interval: 250 },
    )
    const binance = doubles.get('binance')!
    // the market lists, the polls and the book snapshots the streams start from were all asked of the double
    await vi.waitFor(() => {
      const paths = new Set(binance.requests.map((r) => r.path))
      for (const p of ['/fapi/v1/exchangeInfo', '/api/v3/exchangeInfo', '/fapi/v1/premiumIndex', '/fapi/v1/openInterest', '/fapi/v1/fundingRate', '/fapi/v1/depth', '/api/v3/depth']) expect(paths, p).toContain(p)
    }, { timeout: 90_000, interval: 250 })
    // the mark served is the double's price path at the poll
    const row = (await json('/v1/markets/ticker?coin=BTC')).data.find((r: any) => r.exchange === 'binance')
    const served = binance.requests.filter((r) => r.path === '/fapi/v1/premiumIndex').map((r) => binance.history.price('BTC', 'perp', r.at))
    expect(served).toContain(row.mark_price)
    // books (through each venue's stream protocol: Binance's U/u/pu, OKX's seqId and CRC32) and open interest arrive
    await vi.waitFor(() => {
      for (const v of VENUES) {
        const book = t.services.market.live.bookList().find((b) => b.exchange === v && b.coin === 'BTC' && b.marketType === 'perp')
        expect(book?.bids.length, `${v} book`).toBeGreaterThan(0)
        const mid = (book!.bids[0]!.price + book!.asks[0]!.price) / 2
        const d = doubles.get(v)!
        expect(Math.abs(mid / d.history.price('BTC', 'perp', clock()) - 1), `${v} mid`).toBeLessThan(0.01)
        expect(t.services.market.live.openInterest.size, 'open interest').toBeGreaterThan(0)
      }
    }, { timeout: 90_000, interval: 250 })
    // every call the connectors made is one the doubles know, answered 200
    for (const d of doubles.values()) expect(d.requests.filter((r) => r.status !== 200).map((r) => `${r.path} ${r.status}`), d.venue).toEqual([])
  })

  it('trades from the streams become the minutes of /v1/markets/ohlc, equal to the double\'s own minutes', { timeout: 180_000 }, async () => {
    const binance = doubles.get('binance')!
    // a minute that began after the streams were up holds every trade of that minute
    let candle: any
    await vi.waitFor(
      async () => {
        const body = await json('/v1/markets/ohlc?coin=BTC&exchange=binance&interval=1m&lookback=1h')
        candle = body.data.candles.find((c: any) => c.ts >= startedAt + 2 * 60_000)
        expect(candle).toBeDefined()
      },
      { timeout: 90_000, interval: 250 },
    )
    const trades = binance.history.trades('BTC', 'perp', candle.ts, candle.ts + 60_000)
    const sum = (xs: typeof trades) => xs.reduce((a, x) => a + x.size, 0)
    expect(candle.open).toBe(trades[0]!.price)
    expect(candle.close).toBe(trades.at(-1)!.price)
    expect(candle.high).toBe(Math.max(...trades.map((x) => x.price)))
    expect(candle.low).toBe(Math.min(...trades.map((x) => x.price)))
    expect(candle.volume).toBeCloseTo(sum(trades), 6)
    expect(candle.buy_volume).toBeCloseTo(sum(trades.filter((x) => x.buy)), 6)
    expect(candle.trades).toBe(trades.length)
  })

  it('a venue refusing the service (451) is reported on /v1/markets/exchanges while the others keep running', { timeout: 240_000 }, async () => {
    const bybit = doubles.get('bybit')!
    const binance = doubles.get('binance')!
    bybit.fault({ kind: 'refuse', status: 451 })
    const exchanges = async () => (await json('/v1/markets/exchanges')).data as Array<{ id: string; status: string; status_reason: string | null }>
    await vi.waitFor(
      async () => {
        const by = (await exchanges()).find((e) => e.id === 'bybit')!
        expect(by.status).not.toBe('operational')
        expect(by.status_reason).toMatch(/^bybit refuses this service: HTTP 451/)
        expect(by.status_reason).toMatch(/BYBIT_REST_URL\/BYBIT_WS_URL or HTTPS_PROXY/)
      },
      { timeout: 90_000, interval: 250 },
    )
    expect(t.services.market.refusal('binance')).toBeNull()
    // Binance goes on: fresh polls answered, its feed operational
    const before = binance.requests.length
    await vi.waitFor(async () => {
      expect(binance.requests.length).toBeGreaterThan(before + 5)
      expect((await exchanges()).find((e) => e.id === 'binance')!.status).toBe('operational')
    }, { timeout: 90_000, interval: 250 })
    // the block lifted: the refusal clears once the refused loops succeed again
    bybit.fault(null)
    await vi.waitFor(() => expect(t.services.market.refusal('bybit')).toBeNull(), { timeout: 90_000, interval: 250 })
  })
})
