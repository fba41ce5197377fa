// The backfill's history from a worker thread emits what the simulator emits on the main thread, call for call and
// in the same order, whichever ranges were asked for ahead; a range the simulator refuses is refused alike; a thread
// that dies leaves the ranges to the main thread, still the same.
import type { Worker } from 'node:worker_threads'
import { afterEach, describe, expect, it } from 'vitest'
import { HOUR_MS, MINUTE_MS } from '../../../src/domain/time.js'
import type { MinuteBar } from '../../../src/domain/minute-bars.js'
import type { FeedStateEvent, MarketEvent } from '../../../src/domain/events.js'
import { MarketSimulator, ORIGIN_TS } from '../../../src/sources/simulator/index.js'
import { WorkerHistory } from '../../../src/sources/simulator/worker-history.js'

type Call = ['event', MarketEvent] | ['bar', MinuteBar] | ['feed', FeedStateEvent]

function recorder() {
  const calls: Call[] = []
  return { calls, sink: { emit: (e: MarketEvent) => void calls.push(['event', e]), emitBar: (b: MinuteBar) => void calls.push(['bar', b]), feed: (s: FeedStateEvent) => void calls.push(['feed', s]) } }
}

const H0 = Date.UTC(2026, 2, 9, 5)
const COINS = ['BTC', 'SOL']
const OPTIONS = { sampleEveryMs: 5 * MINUTE_MS, books: false } as const

function onMainThread(from: number, to: number, options: { sampleEveryMs?: number; books?: boolean } = OPTIONS): Call[] {
  const r = recorder()
  new MarketSimulator({ seed: 9, coins: COINS }).simulateRange(from, to, r.sink, options)
  return r.calls
}

describe('WorkerHistory', () => {
  let history: WorkerHistory | null = null
  afterEach(async () => {
    await history?.close()
    history = null
  })

  it('emits what the simulator emits, for ranges asked ahead and not, in any order', async () => {
    history = new WorkerHistory({ seed: 9, coins: COINS })
    const ranges: [number, number][] = [
      [H0, H0 + HOUR_MS],
      [H0 + HOUR_MS, H0 + 2 * HOUR_MS],
      [H0 + 2 * HOUR_MS + 7 * MINUTE_MS, H0 + 3 * HOUR_MS],
    ]
    history.prefetch(...ranges[0]!, OPTIONS)
    history.prefetch(...ranges[1]!, OPTIONS)
    // the second before the first, and the third never asked ahead
    for (const i of [1, 0, 2]) {
      const r = recorder()
      await history.simulateRange(...ranges[i]!, r.sink, OPTIONS)
      const expected = onMainThread(...ranges[i]!)
      expect(r.calls.length).toBeGreaterThan(1000)
      expect(r.calls).toEqual(expected)
      // the simulated liquidation feeds' span of the range comes across too (every venue publishing one)
      expect(r.calls.filter(([k]) => k === 'feed').map(([, f]) => (f as FeedStateEvent).exchange)).toEqual(['binance', 'bybit', 'okx', 'dydx'])
    }
    // with the simulator's own defaults (every minute sampled, book snapshots)
    const r = recorder()
    await history.simulateRange(H0, H0 + 20 * MINUTE_MS, r.sink)
    expect(r.calls.some(([, e]) => 'type' in e && e.type === 'book')).toBe(true)
    expect(r.calls).toEqual(onMainThread(H0, H0 + 20 * MINUTE_MS, {}))
  })

  it('refuses a range before the simulated origin as the simulator does, and goes on', async () => {
    history = new WorkerHistory({ seed: 9, coins: COINS })
    let local: unknown
    try {
      onMainThread(ORIGIN_TS - HOUR_MS, ORIGIN_TS)
    } catch (e) {
      local = e
    }
    expect(local).toBeInstanceOf(RangeError)
    await expect(history.simulateRange(ORIGIN_TS - HOUR_MS, ORIGIN_TS, recorder().sink, OPTIONS)).rejects.toThrow(new RangeError((local as Error).message))
    const r = recorder()
    await history.simulateRange(H0, H0 + 10 * MINUTE_MS, r.sink, OPTIONS)
    expect(r.calls).toEqual(onMainThread(H0, H0 + 10 * MINUTE_MS))
  })

  it('simulates on the main thread, alike, when the thread dies', async () => {
    const warnings: string[] = []
    const logger = { warn: (_o: unknown, m: string) => void warnings.push(m) }
    history = new WorkerHistory({ seed: 9, coins: COINS, logger: logger as never })
    history.prefetch(H0, H0 + HOUR_MS, OPTIONS)
    await history.simulateRange(H0, H0 + HOUR_MS, recorder().sink, OPTIONS)
    // the thread is killed with a range asked ahead and not taken
    history.prefetch(H0 + HOUR_MS, H0 + 2 * HOUR_MS, OPTIONS)
    await (history as unknown as { worker: Worker }).worker.terminate()
    for (const [from, to] of [[H0 + HOUR_MS, H0 + 2 * HOUR_MS], [H0 + 2 * HOUR_MS, H0 + 3 * HOUR_MS]] as const) {
      const r = recorder()
      await history.simulateRange(from, to, r.sink, OPTIONS)
      expect(r.calls).toEqual(onMainThread(from, to))
    }
    expect(warnings).toEqual(['history worker failed: simulating the rest of the backfill on the main thread'])
  })
})
