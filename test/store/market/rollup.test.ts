import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { MinuteAggregator, foldBars, rollup, rollupHour } from '../../../src/ingest/aggregate/index.js'
import { type MinuteBar } from '../../../src/domain/minute-bars.js'
import { HOUR_MS, MINUTE_MS } from '../../../src/domain/time.js'
import { decodeVap, encodeVap } from '../../../src/domain/minute-vap.js'
import { type Vap } from '../../../src/domain/volume-at-price.js'
import type { TradeEvent } from '../../../src/domain/events.js'

const H0 = Date.UTC(2025, 0, 1, 12)

function trades(n: number, from: number, span: number, seed: number, coin = 'BTC'): TradeEvent[] {
  let s = seed >>> 0
  const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 4294967296)
  let price = 100
  const out: TradeEvent[] = []
  for (let i = 0; i < n; i++) {
    price *= 1 + (rnd() - 0.5) * 0.002
    out.push({
      type: 'trade',
      exchange: 'bybit',
      coin,
      marketType: 'perp',
      ts: from + Math.floor((i / n) * span),
      id: `${seed}-${i}`,
      price,
      size: 0.001 + rnd() * 3,
      side: rnd() < 0.5 ? 'buy' : 'sell',
    })
  }
  return out
}

function minuteBars(ts: TradeEvent[]): MinuteBar[] {
  const agg = new MinuteAggregator()
  agg.addMany(ts)
  return agg.drainAll()
}

function vapClose(a: Vap, b: Vap, rel = 1e-12) {
  expect([...a.keys()].sort()).toEqual([...b.keys()].sort())
  const near = (x: number, y: number) => Math.abs(x - y) <= rel * Math.max(1, Math.abs(x), Math.abs(y))
  for (const [k, [bu, se]] of a) {
    const o = b.get(k)!
    expect(near(bu, o[0])).toBe(true)
    expect(near(se, o[1])).toBe(true)
  }
}

describe('rollup', () => {
  it('60 minute bars roll up to the same hourly bar as folding all their trades at once', () => {
    const ts = trades(5000, H0, HOUR_MS, 7)
    const mins = minuteBars(ts)
    expect(mins).toHaveLength(60)
    const [hour, ...rest] = rollupHour(mins)
    expect(rest).toEqual([])
    // "fold all trades at once": an aggregator over the same trades with every ts mapped into one minute
    const direct = minuteBars(ts.map((t) => ({ ...t, ts: H0 + Math.floor(((t.ts - H0) / HOUR_MS) * MINUTE_MS) })))[0]!
    expect(hour!.ts).toBe(H0)
    expect(hour!.open).toBe(direct.open)
    expect(hour!.close).toBe(direct.close)
    expect(hour!.high).toBe(direct.high)
    expect(hour!.low).toBe(direct.low)
    expect(hour!.trades).toBe(5000)
    expect(hour!.volume).toBeCloseTo(direct.volume, 8)
    expect(hour!.buyVolume).toBeCloseTo(direct.buyVolume!, 8)
    expect(hour!.sellVolume).toBeCloseTo(direct.sellVolume!, 8)
    expect(hour!.quoteVolume).toBeCloseTo(direct.quoteVolume!, 6)
    vapClose(hour!.vap, direct.vap)
    // and the merged vap survives the store's encoding
    vapClose(decodeVap(encodeVap(hour!.vap)), hour!.vap, 1e-6)
  })

  it('groups by market and aligned bucket, sorted, without mutating the inputs', () => {
    const ts = [...trades(600, H0 - 30 * MINUTE_MS, 2 * HOUR_MS, 1), ...trades(300, H0, HOUR_MS, 2, 'ETH')]
    const mins = minuteBars(ts)
    const snapshot = mins.map((b) => ({ ...b, vap: new Map([...b.vap].map(([k, v]) => [k, [...v]])) }))
    const shuffled = [...mins].reverse()
    const hours = rollup(shuffled, HOUR_MS)
    expect(hours.map((b) => [b.coin, b.ts])).toEqual([
      ['BTC', H0 - HOUR_MS],
      ['BTC', H0],
      ['BTC', H0 + HOUR_MS],
      ['ETH', H0],
    ])
    expect(hours.reduce((s, b) => s + b.trades!, 0)).toBe(900)
    expect(mins).toEqual(snapshot)
    // the partial first hour: open is the first minute's open, regardless of input order
    const firstMinute = mins.filter((b) => b.coin === 'BTC').sort((a, b) => a.ts - b.ts)[0]!
    expect(hours[0]!.open).toBe(firstMinute.open)
  })

  it('foldBars rejects mixed markets and empty input', () => {
    const a = minuteBars(trades(10, H0, MINUTE_MS, 3))
    const b = minuteBars(trades(10, H0, MINUTE_MS, 4, 'ETH'))
    expect(() => foldBars([...a, ...b], H0)).toThrow(/different markets/)
    expect(() => foldBars([], H0)).toThrow()
  })

  it('property: rollup to any bucket equals aggregating the trades in that bucket directly', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2000 }),
        fc.constantFrom(5 * MINUTE_MS, 15 * MINUTE_MS, HOUR_MS, 4 * HOUR_MS),
        fc.integer({ min: 0, max: 2 ** 31 }),
        (n, bucket, seed) => {
          const ts = trades(n, H0, 3 * HOUR_MS, seed)
          const rolled = rollup(minuteBars(ts), bucket)
          const buckets = new Map<number, TradeEvent[]>()
          for (const t of ts) {
            const b = Math.floor(t.ts / bucket) * bucket
            if (!buckets.has(b)) buckets.set(b, [])
            buckets.get(b)!.push(t)
          }
          expect(rolled.map((b) => b.ts)).toEqual([...buckets.keys()])
          for (const bar of rolled) {
            const bt = buckets.get(bar.ts)!
            expect(bar.trades).toBe(bt.length)
            expect(bar.open).toBe(bt[0]!.price)
            expect(bar.close).toBe(bt[bt.length - 1]!.price)
            expect(bar.high).toBe(Math.max(...bt.map((t) => t.price)))
            expect(bar.low).toBe(Math.min(...bt.map((t) => t.price)))
            expect(bar.volume).toBeCloseTo(bt.reduce((s, t) => s + t.size, 0), 8)
          }
        },
      ),
      { numRuns: 100 },
    )
  })
})
