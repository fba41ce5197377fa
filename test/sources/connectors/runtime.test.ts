// The shared connector runtime: backoff, retries, throttling, health, stop, no unhandled rejections.
import ccxt, { type Exchange, type MarketInterface } from 'ccxt'
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { backoffDelay, DEFAULT_BACKOFF, sleep } from '../../../src/sources/connectors/backoff.js'
import { BybitConnector } from '../../../src/sources/connectors/bybit.js'
import { findByBase } from '../../../src/sources/connectors/ccxt-access.js'
import { ExchangeConnector } from '../../../src/sources/connectors/connector.js'
import type { ConnectorOptions } from '../../../src/sources/connectors/connector-options.js'
import type { OpenInterestEvent, TickerEvent } from '../../../src/domain/events.js'
import type { MarketType } from '../../../src/domain/exchanges.js'
import { fixture, fixtureText, offlineHttp, offlineWs, RecordingSink, waitFor } from './offline.js'

describe('backoffDelay', () => {
  it('doubles from the base up to the cap; jitter scales into [1 - jitter, 1] of it', () => {
    const opts = { baseMs: 1_000, factor: 2, maxMs: 30_000, jitter: 0.5 }
    expect([0, 1, 2, 3, 4, 5, 6].map((a) => backoffDelay(a, opts, () => 0.999999))).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000])
    expect([0, 1, 2, 5].map((a) => backoffDelay(a, opts, () => 0))).toEqual([500, 1_000, 2_000, 15_000])
    expect(backoffDelay(3, opts, () => 0.5)).toBe(6_000)
  })

  it('defaults: 1 s base, x2, 60 s cap, 50 % jitter', () => {
    expect(DEFAULT_BACKOFF).toEqual({ baseMs: 1_000, factor: 2, maxMs: 60_000, jitter: 0.5 })
    expect(backoffDelay(100, {}, () => 0.999999)).toBe(60_000)
  })

  it('no jitter is deterministic; negative or huge attempts stay in range', () => {
    expect(backoffDelay(2, { jitter: 0 }, () => 0.3)).toBe(4_000)
    expect(backoffDelay(-3, { jitter: 0 })).toBe(1_000)
    expect(backoffDelay(1e9, { jitter: 0 })).toBe(60_000)
  })

  it('property: always within [max(0, 1-jitter) x capped, capped]', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 200 }), fc.double({ min: 0, max: 0.999999, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true }), (attempt, r, jitter) => {
        const capped = Math.min(60_000, 1_000 * 2 ** Math.min(attempt, 64))
        const d = backoffDelay(attempt, { jitter }, () => r)
        return d >= Math.floor(capped * (1 - jitter)) && d <= capped
      }),
    )
  })
})

describe('sleep', () => {
  it('resolves false at once when aborted', async () => {
    const c = new AbortController()
    const p = sleep(60_000, c.signal)
    c.abort()
    await expect(p).resolves.toBe(false)
    await expect(sleep(1, c.signal)).resolves.toBe(false)
    await expect(sleep(1)).resolves.toBe(true)
  })
})

// ---- a venue-less connector over a scripted exchange stub ------------------------------------------------------

const MARKET = { symbol: 'BTC/USDT:USDT', id: 'BTCUSDT', base: 'BTC', quote: 'USDT', settle: 'USDT', baseId: 'BTC', swap: true, linear: true, spot: false, contractSize: 1, active: true } as unknown as MarketInterface

interface Script {
  loadFailures?: number
  watchTrades?: () => Promise<unknown[]>
  watchOrderBook?: () => Promise<unknown>
  close?: () => Promise<void>
}

function stubExchange(script: Script) {
  let loads = 0
  const pending: Array<(e: Error) => void> = []
  const never = <T>() =>
    new Promise<T>((_, reject) => {
      pending.push(reject)
    })
  const ex = {
    id: 'stub',
    has: { watchTrades: true, watchOrderBook: true } as Record<string, boolean>,
    options: {},
    markets: undefined as Record<string, MarketInterface> | undefined,
    loadMarkets: vi.fn(async () => {
      loads++
      if (loads <= (script.loadFailures ?? 0)) throw new Error(`load ${loads} failed`)
      ex.markets = { [MARKET.symbol]: MARKET }
      return ex.markets
    }),
    watchTrades: vi.fn(script.watchTrades ?? (() => never<unknown[]>())),
    watchOrderBook: vi.fn(script.watchOrderBook ?? (() => never<unknown>())),
    // like ccxt.pro close(): pending watches reject
    close: vi.fn(async () => {
      for (const reject of pending.splice(0)) reject(new Error('closed by user'))
      await script.close?.()
    }),
  }
  return ex
}

class ScriptedConnector extends ExchangeConnector {
  readonly exchange = 'binance' as const
  constructor(
    opts: ConnectorOptions,
    private readonly ex: ReturnType<typeof stubExchange>,
  ) {
    super(opts)
  }
  exchangeFor(t: MarketType): Exchange | undefined {
    return t === 'perp' ? (this.ex as unknown as Exchange) : undefined
  }
  protected override findMarket(ex: Exchange, coin: string): MarketInterface | undefined {
    return findByBase(ex, coin, (m) => m.swap === true)
  }
  protected async pollTickers(): Promise<TickerEvent[]> {
    return []
  }
  protected async pollOpenInterest(): Promise<OpenInterestEvent[]> {
    return []
  }
}

/** fake only the clocks the backoff uses; the stream loops' event-loop yield stays real */
const fakeTimers = () => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
const TRADE = { id: '1', price: 100, amount: 2, timestamp: 1_700_000_000_000, side: 'buy' }
const quiet = { tickers: false, openInterest: false, funding: false } as const

describe('connector runtime', () => {
  let unhandled: unknown[]
  const onUnhandled = (e: unknown) => unhandled.push(e)
  beforeEach(() => {
    unhandled = []
    process.on('unhandledRejection', onUnhandled)
  })
  afterEach(() => {
    process.off('unhandledRejection', onUnhandled)
    vi.useRealTimers()
  })

  it('retries market loading with capped exponential backoff + injected jitter, then starts the loops', async () => {
    fakeTimers()
    const ex = stubExchange({ loadFailures: 3 })
    const sink = new RecordingSink()
    const c = new ScriptedConnector({ coins: ['BTC'], sink, streams: quiet, random: () => 0, backoff: { baseMs: 1_000, factor: 2, maxMs: 3_000, jitter: 0.5 } }, ex)
    await c.start() // resolves after the first (failed) attempt
    expect(ex.loadMarkets).toHaveBeenCalledTimes(1)
    expect(c.health()).toMatchObject({ connected: false, errors: 1 })
    // delays with random() = 0: 500, 1000, 1500 (2000 capped at 3000, x0.5)
    await vi.advanceTimersByTimeAsync(499)
    expect(ex.loadMarkets).toHaveBeenCalledTimes(1)
    await vi.advanceTimersByTimeAsync(1)
    expect(ex.loadMarkets).toHaveBeenCalledTimes(2)
    await vi.advanceTimersByTimeAsync(999)
    expect(ex.loadMarkets).toHaveBeenCalledTimes(2)
    await vi.advanceTimersByTimeAsync(1)
    expect(ex.loadMarkets).toHaveBeenCalledTimes(3)
    await vi.advanceTimersByTimeAsync(1_500)
    expect(ex.loadMarkets).toHaveBeenCalledTimes(4)
    expect(c.health()).toMatchObject({ connected: true, errors: 3 })
    expect(ex.watchTrades).toHaveBeenCalledWith('BTC/USDT:USDT')
    expect(ex.watchOrderBook).toHaveBeenCalledTimes(1)
    await c.stop()
  })

  it('a failing watch loop backs off, resets after a success, and reports not-connected while failing', async () => {
    fakeTimers()
    let call = 0
    const results: Array<'fail' | 'ok'> = ['fail', 'fail', 'ok', 'fail']
    const ex = stubExchange({
      watchTrades: async () => {
        const r = results[call++]
        if (r === undefined) return new Promise<unknown[]>(() => {})
        if (r === 'fail') throw new Error('socket closed')
        return [{ ...TRADE, id: String(call) }]
      },
    })
    const sink = new RecordingSink()
    let clock = 1_000
    const c = new ScriptedConnector({ coins: ['BTC'], sink, streams: { ...quiet, books: false }, random: () => 0.999999, now: () => clock, backoff: { baseMs: 100, factor: 10, maxMs: 50_000, jitter: 0.5 } }, ex)
    await c.start()
    await vi.advanceTimersByTimeAsync(0)
    expect(call).toBe(1)
    expect(c.health()).toMatchObject({ connected: false, errors: 1 })
    await vi.advanceTimersByTimeAsync(100) // attempt 0 -> 100 ms
    expect(call).toBe(2)
    await vi.advanceTimersByTimeAsync(999)
    expect(call).toBe(2) // attempt 1 -> 1000 ms
    clock = 5_000
    await vi.advanceTimersByTimeAsync(1)
    expect(call).toBe(4) // the success, then straight on to the next watch, which fails
    expect(sink.of('trade')).toHaveLength(1)
    expect(c.health().lastEventAt).toBe(5_000)
    expect(c.health()).toMatchObject({ connected: false, errors: 3 })
    await vi.advanceTimersByTimeAsync(100) // reset by the success: back to 100 ms
    expect(call).toBe(5)
    // the 5th watch is pending: the loop stays marked failing until a watch succeeds again
    expect(c.health()).toMatchObject({ connected: false, errors: 3 })
    await c.stop()
  })

  it('throttles book snapshots to one per bookIntervalMs per market (injected clock)', async () => {
    let clock = 0
    let n = 0
    const ex = stubExchange({
      watchOrderBook: async () => {
        await new Promise((r) => setImmediate(r))
        clock += 250
        n++
        return { bids: [[99, 1]], asks: [[101, 1]], timestamp: clock }
      },
    })
    const sink = new RecordingSink()
    const c = new ScriptedConnector({ coins: ['BTC'], sink, streams: { ...quiet, trades: false }, now: () => clock }, ex)
    await c.start()
    await waitFor(() => n >= 41)
    await c.stop()
    const ts = sink.of('book').map((b) => b.ts)
    // the clock moves 250 ms per update: every 4th update is published
    expect(ts.length).toBeGreaterThanOrEqual(Math.floor(n / 4) - 1)
    expect(ts.length).toBeLessThanOrEqual(Math.ceil(n / 4) + 1)
    for (let i = 1; i < ts.length; i++) expect(ts[i]! - ts[i - 1]!).toBe(1_000)
  })

  it('stop() ends pending watch loops, closes the exchange, and emits nothing afterwards', async () => {
    const ex = stubExchange({})
    const sink = new RecordingSink()
    const c = new ScriptedConnector({ coins: ['BTC'], sink, streams: quiet }, ex)
    await c.start()
    expect(c.health().connected).toBe(true)
    const run = (c as any).run
    expect(run.size).toBeGreaterThanOrEqual(2) // trades + book loops (+ the bootstrap task settling)
    const t0 = Date.now()
    await c.stop()
    expect(Date.now() - t0).toBeLessThan(1_000)
    expect(ex.close).toHaveBeenCalledTimes(1)
    expect(run.size).toBe(0)
    expect(c.health().connected).toBe(false)
    await c.stop() // idempotent
    expect(ex.close).toHaveBeenCalledTimes(1)
    // restartable
    await c.start()
    expect(c.health().connected).toBe(true)
    await c.stop()
    expect(unhandled).toEqual([])
  })

  it('stop() during market-load backoff ends at once; late failures never become unhandled rejections', async () => {
    const ex = stubExchange({ loadFailures: 1_000, close: async () => Promise.reject(new Error('close failed')) })
    const c = new ScriptedConnector({ coins: ['BTC'], sink: new RecordingSink(), backoff: { baseMs: 60_000 } }, ex)
    await c.start()
    const t0 = Date.now()
    await c.stop()
    expect(Date.now() - t0).toBeLessThan(1_000)
    // a rejection nobody handles is reported once the microtasks have run: one event-loop turn
    await new Promise((r) => setImmediate(r))
    expect(unhandled).toEqual([])
  })

  it('a sink that throws is counted, not fatal', async () => {
    const ex = stubExchange({ watchTrades: async () => [TRADE] })
    let calls = 0
    const sink = {
      emit() {
        calls++
        throw new Error('sink full')
      },
    }
    const c = new ScriptedConnector({ coins: ['BTC'], sink, streams: { ...quiet, books: false } }, ex)
    await c.start()
    await waitFor(() => calls >= 3)
    await c.stop()
    expect(c.health().errors).toBeGreaterThanOrEqual(3)
    expect(c.health().lastEventAt).toBeNull()
  })

  it('a real ccxt.pro instance: stop() closes its websocket clients and ends the watch loops', async () => {
    const ex = new ccxt.pro.bybit()
    ex.setMarkets(fixture('bybit/ccxt_markets.json'))
    offlineHttp(ex, [['/v5/market/tickers', fixtureText('bybit/tickers.json')]])
    const ws = offlineWs(ex)
    const sink = new RecordingSink()
    const c = new BybitConnector({ coins: ['BTC', 'ETH'], sink, ccxtExchange: ex, streams: { openInterest: false, funding: false } })
    await c.start()
    await waitFor(() => ws.sent.length >= 8 && sink.of('ticker').length > 0, 3_000, 'subscriptions')
    expect(ws.urls().length).toBeGreaterThan(0)
    const run = (c as any).run
    await c.stop()
    expect(Object.keys((ex as any).clients)).toEqual([])
    expect(run.size).toBe(0)
    const n = sink.events.length
    ws.push(fixture<any[]>('bybit/ws_public_trade.json')[0])
    // a frame is handled within the turn it arrives in: one event-loop turn later nothing reached the sink
    await new Promise((r) => setImmediate(r))
    expect(sink.events.length).toBe(n)
    expect(unhandled).toEqual([])
  })
})
