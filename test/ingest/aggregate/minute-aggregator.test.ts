import { describe, expect, it, vi } from 'vitest'
import fc from 'fast-check'
import { MinuteAggregator } from '../../../src/ingest/aggregate/index.js'
import { type MarketKey, type MinuteBar } from '../../../src/domain/minute-bars.js'
import { MINUTE_MS } from '../../../src/domain/time.js'
import { vapLevel } from '../../../src/domain/volume-at-price.js'
import type { TradeEvent } from '../../../src/domain/events.js'

const T0 = Date.UTC(2025, 0, 1, 12, 0) // 12:00:00.000
const BTC: MarketKey = { exchange: 'binance', coin: 'BTC', marketType: 'perp' }
const ETH: MarketKey = { exchange: 'binance', coin: 'ETH', marketType: 'perp' }

let nextId = 0
function trade(ts: number, price: number, size: number, side: 'buy' | 'sell', id?: string, market: MarketKey = BTC): TradeEvent {
  return { type: 'trade', ...market, ts, id: id ?? `t${nextId++}`, price, size, side }
}

const byTs = (bars: MinuteBar[]) => [...bars].sort((a, b) => a.ts - b.ts)

describe('MinuteAggregator: one candle', () => {
  it('equals the hand-computed fold of its trades', () => {
    const agg = new MinuteAggregator()
    agg.add(trade(T0 + 1_000, 100, 1, 'buy'))
    agg.add(trade(T0 + 2_000, 102, 2, 'sell'))
    agg.add(trade(T0 + 3_000, 99, 0.5, 'sell'))
    agg.add(trade(T0 + 59_999, 101, 1.5, 'buy'))
    const [bar, ...rest] = agg.drainAll()
    expect(rest).toEqual([])
    expect(bar).toMatchObject({
      ...BTC,
      ts: T0,
      open: 100,
      high: 102,
      low: 99,
      close: 101,
      volume: 5,
      buyVolume: 2.5,
      sellVolume: 2.5,
      quoteVolume: 100 + 204 + 49.5 + 151.5,
      trades: 4,
    })
    // volume at price: 100, 102, 99, 101 are distinct 1 bp levels
    expect(bar!.vap.size).toBe(4)
    expect(bar!.vap.get(vapLevel(100))).toEqual([1, 0])
    expect(bar!.vap.get(vapLevel(102))).toEqual([0, 2])
    expect(bar!.vap.get(vapLevel(99))).toEqual([0, 0.5])
    expect(bar!.vap.get(vapLevel(101))).toEqual([1.5, 0])
  })

  it('puts a trade at exactly hh:mm:00.000 into the later minute', () => {
    const agg = new MinuteAggregator()
    agg.add(trade(T0 - 1, 50, 1, 'sell'))
    agg.add(trade(T0, 75, 1, 'sell'))
    agg.add(trade(T0 + 59_999, 100, 1, 'buy'))
    agg.add(trade(T0 + 60_000, 200, 1, 'buy'))
    const bars = byTs(agg.drainAll())
    expect(bars.map((b) => [b.ts, b.open, b.trades])).toEqual([
      [T0 - MINUTE_MS, 50, 1],
      [T0, 75, 2],
      [T0 + MINUTE_MS, 200, 1],
    ])
  })

  it('keeps markets apart (and trade ids are only unique per market)', () => {
    const agg = new MinuteAggregator()
    agg.add(trade(T0 + 1, 100, 1, 'buy', 'x'))
    agg.add(trade(T0 + 2, 3000, 2, 'buy', 'x', ETH))
    agg.add(trade(T0 + 3, 101, 1, 'buy', 'x', { ...BTC, marketType: 'spot' }))
    agg.add(trade(T0 + 4, 102, 1, 'buy', 'x', { ...BTC, exchange: 'okx' }))
    const bars = agg.drainAll()
    expect(bars).toHaveLength(4)
    expect(agg.stats).toMatchObject({ accepted: 4, duplicates: 0, markets: 4 })
    expect(new Set(bars.map((b) => `${b.exchange}:${b.coin}:${b.marketType}`)).size).toBe(4)
  })

  it('rejects invalid trades and counts them', () => {
    const agg = new MinuteAggregator()
    expect(agg.add(trade(T0, NaN, 1, 'buy'))).toBe('invalid')
    expect(agg.add(trade(T0, 100, 0, 'buy'))).toBe('invalid')
    expect(agg.add(trade(T0, -1, 1, 'buy'))).toBe('invalid')
    expect(agg.add(trade(NaN, 100, 1, 'buy'))).toBe('invalid')
    expect(agg.add(trade(T0, 100, Infinity, 'buy'))).toBe('invalid')
    expect(agg.stats.invalid).toBe(5)
    expect(agg.drainAll()).toEqual([])
  })
})

describe('MinuteAggregator: order, duplicates, lateness', () => {
  it('folds out-of-order trades by timestamp, ties by arrival', () => {
    const agg = new MinuteAggregator()
    agg.add(trade(T0 + 30_000, 105, 1, 'buy'))
    agg.add(trade(T0 + 50_000, 110, 1, 'buy'))
    agg.add(trade(T0 + 10_000, 95, 1, 'sell')) // late arrival, earliest ts: the open
    agg.add(trade(T0 + 50_000, 111, 1, 'buy')) // same ts as the current close, arrives later: the close
    agg.add(trade(T0 + 10_000, 96, 1, 'buy')) // same ts as the open, arrives later: not the open
    agg.add(trade(T0 + 40_000, 90, 1, 'sell'))
    const [bar] = agg.drainAll()
    expect(bar).toMatchObject({ open: 95, close: 111, high: 111, low: 90, trades: 6, volume: 6 })
  })

  it('never double-counts a duplicate trade id', () => {
    const agg = new MinuteAggregator()
    expect(agg.add(trade(T0 + 1_000, 100, 1, 'buy', 'a'))).toBe('accepted')
    expect(agg.add(trade(T0 + 1_000, 100, 1, 'buy', 'a'))).toBe('duplicate')
    expect(agg.add(trade(T0 + 2_000, 101, 1, 'buy', 'b'))).toBe('accepted')
    expect(agg.add(trade(T0 + 1_000, 100, 1, 'buy', 'a'))).toBe('duplicate')
    const [bar] = agg.drainAll()
    expect(bar).toMatchObject({ volume: 2, trades: 2 })
    expect(agg.stats).toMatchObject({ accepted: 2, duplicates: 2 })
  })

  it('closes a minute only when the watermark passes its end + grace', () => {
    const agg = new MinuteAggregator({ graceMs: 2000 })
    agg.add(trade(T0 + 5_000, 100, 1, 'buy'))
    agg.add(trade(T0 + 61_999, 101, 1, 'buy')) // 1.999 s into the next minute: still within the grace
    expect(agg.drainClosed()).toEqual([])
    expect(agg.add(trade(T0 + 59_000, 99, 1, 'sell'))).toBe('accepted') // late but in time
    agg.add(trade(T0 + 62_000, 102, 1, 'buy')) // watermark = end + grace: minute T0 closes
    const closed = agg.drainClosed()
    expect(closed.map((b) => [b.ts, b.trades, b.close])).toEqual([[T0, 2, 99]])
    expect(agg.drainClosed()).toEqual([]) // drained bars are forgotten
    expect(agg.stats).toMatchObject({ closedBars: 1, openBars: 1, pendingBars: 0 })
  })

  it('counts a trade for an already finalized minute as late_dropped, never silently', () => {
    const onLateDrop = vi.fn()
    const agg = new MinuteAggregator({ onLateDrop, dedupeRetentionMs: 0 })
    agg.add(trade(T0 + 5_000, 100, 1, 'buy', 'a'))
    agg.add(trade(T0 + 70_000, 101, 1, 'buy', 'b'))
    expect(agg.drainClosed()).toHaveLength(1)
    const late = trade(T0 + 30_000, 100, 1, 'buy', 'c')
    expect(agg.add(late)).toBe('late_dropped')
    expect(onLateDrop).toHaveBeenCalledWith(late)
    // with no id retention a replayed id for a finalized minute is a late drop too
    expect(agg.add(trade(T0 + 5_000, 100, 1, 'buy', 'a'))).toBe('late_dropped')
    expect(agg.stats).toMatchObject({ lateDropped: 2, accepted: 2 })
  })

  it('recognizes replayed ids of recently closed minutes as duplicates, then forgets them (bounded memory)', () => {
    const agg = new MinuteAggregator({ graceMs: 2000, dedupeRetentionMs: 60_000 })
    agg.add(trade(T0 + 5_000, 100, 1, 'buy', 'a'))
    agg.add(trade(T0 + 62_000, 101, 1, 'buy', 'b')) // closes T0
    expect(agg.drainClosed()).toHaveLength(1)
    expect(agg.add(trade(T0 + 5_000, 100, 1, 'buy', 'a'))).toBe('duplicate')
    expect(agg.add(trade(T0 + 6_000, 100, 1, 'buy', 'new'))).toBe('late_dropped')
    // T0 closed at watermark T0+62s; its ids are kept until T0 + 62 s + 60 s
    agg.add(trade(T0 + 122_001, 102, 1, 'buy', 'c'))
    expect(agg.add(trade(T0 + 5_000, 100, 1, 'buy', 'a'))).toBe('late_dropped')
    expect(agg.stats).toMatchObject({ duplicates: 1, lateDropped: 2 })
  })

  it('advance(now) closes minutes without new trades, per market or for all', () => {
    const agg = new MinuteAggregator()
    agg.add(trade(T0 + 1_000, 100, 1, 'buy'))
    agg.add(trade(T0 + 1_000, 3000, 1, 'buy', undefined, ETH))
    agg.advance(T0 + 61_999)
    expect(agg.drainClosed()).toEqual([])
    agg.advance(T0 + 62_000, ETH)
    expect(agg.drainClosed().map((b) => b.coin)).toEqual(['ETH'])
    agg.advance(T0 + 62_000)
    expect(agg.drainClosed().map((b) => b.coin)).toEqual(['BTC'])
    expect(agg.watermark(BTC)).toBe(T0 + 62_000)
    // the watermark never moves back
    agg.advance(T0)
    expect(agg.watermark(BTC)).toBe(T0 + 62_000)
    expect(agg.add(trade(T0 + 2_000, 100, 1, 'buy'))).toBe('late_dropped')
  })

  it('drainAll returns closed and open partial minutes, and finalizes them', () => {
    const agg = new MinuteAggregator()
    agg.add(trade(T0 + 1_000, 100, 1, 'buy'))
    agg.add(trade(T0 + 65_000, 101, 1, 'buy')) // closes T0
    agg.add(trade(T0 + 70_000, 102, 1, 'buy'))
    const all = byTs(agg.drainAll())
    expect(all.map((b) => [b.ts, b.trades])).toEqual([
      [T0, 1],
      [T0 + MINUTE_MS, 2],
    ])
    expect(agg.stats).toMatchObject({ openBars: 0, pendingBars: 0, closedBars: 2 })
    expect(agg.add(trade(T0 + 80_000, 103, 1, 'buy'))).toBe('late_dropped')
    expect(agg.add(trade(T0 + 120_000, 104, 1, 'buy'))).toBe('accepted')
  })

  it('resume cursor: trades at or before the last stored minute are skipped', () => {
    const agg = new MinuteAggregator()
    agg.setResumeCursor(BTC, T0)
    expect(agg.add(trade(T0 - 30_000, 100, 1, 'buy'))).toBe('resume_skipped')
    expect(agg.add(trade(T0 + 59_999, 100, 1, 'buy'))).toBe('resume_skipped')
    expect(agg.add(trade(T0 + 60_000, 101, 1, 'buy'))).toBe('accepted')
    expect(agg.add(trade(T0 + 1_000, 100, 1, 'buy', undefined, ETH))).toBe('accepted') // other markets unaffected
    const bars = agg.drainAll()
    expect(bars.filter((b) => b.coin === 'BTC').map((b) => b.ts)).toEqual([T0 + MINUTE_MS])
    expect(agg.stats.resumeSkipped).toBe(2)
  })

  it('resume cursor set after trades discards open minutes at or before it', () => {
    const agg = new MinuteAggregator()
    agg.add(trade(T0 + 1_000, 100, 1, 'buy'))
    agg.add(trade(T0 + 61_000, 101, 1, 'buy'))
    agg.setResumeCursor(BTC, T0)
    expect(agg.drainAll().map((b) => b.ts)).toEqual([T0 + MINUTE_MS])
    expect(agg.stats.openBars).toBe(0)
  })

  it('a restart replaying history with the resume cursor gives the same bars without duplicates', () => {
    const trades: TradeEvent[] = []
    for (let i = 0; i < 600; i++) trades.push(trade(T0 + i * 1_000 + (i % 7), 100 + Math.sin(i / 10), 1 + (i % 3), i % 2 ? 'buy' : 'sell', `r${i}`))
    const once = new MinuteAggregator()
    once.addMany(trades)
    const expected = byTs(once.drainAll())

    // first run stops after 4.5 minutes; the store keeps only finalized minutes
    const first = new MinuteAggregator()
    first.addMany(trades.slice(0, 270))
    const stored = first.drainClosed()
    const last = Math.max(...stored.map((b) => b.ts))
    // restart: replay everything from the start
    const second = new MinuteAggregator()
    second.setResumeCursor(BTC, last)
    second.addMany(trades)
    const got = byTs([...stored, ...second.drainAll()])
    expect(got).toEqual(expected)
  })
})

// ---- property: every bar is the fold of exactly the trades the aggregator accepted ----------------------------------

interface RefBar {
  ts: number
  open: number
  openTs: number
  close: number
  closeTs: number
  high: number
  low: number
  volume: number
  buy: number
  sell: number
  quote: number
  trades: number
}

function referenceFold(trades: TradeEvent[]): Map<string, RefBar> {
  const out = new Map<string, RefBar>()
  for (const t of trades) {
    const m = Math.floor(t.ts / MINUTE_MS) * MINUTE_MS
    const k = `${t.exchange}:${t.coin}:${t.marketType}:${m}`
    const b = out.get(k)
    if (!b) {
      out.set(k, {
        ts: m,
        open: t.price,
        openTs: t.ts,
        close: t.price,
        closeTs: t.ts,
        high: t.price,
        low: t.price,
        volume: t.size,
        buy: t.side === 'buy' ? t.size : 0,
        sell: t.side === 'sell' ? t.size : 0,
        quote: t.price * t.size,
        trades: 1,
      })
      continue
    }
    if (t.ts < b.openTs) ((b.openTs = t.ts), (b.open = t.price))
    if (t.ts >= b.closeTs) ((b.closeTs = t.ts), (b.close = t.price))
    b.high = Math.max(b.high, t.price)
    b.low = Math.min(b.low, t.price)
    b.volume += t.size
    if (t.side === 'buy') b.buy += t.size
    else b.sell += t.size
    b.quote += t.price * t.size
    b.trades++
  }
  return out
}

const close = (a: number, b: number, rel = 1e-9) => Math.abs(a - b) <= rel * Math.max(1, Math.abs(a), Math.abs(b))
// Σ vap is accumulated per level, so it may differ from the bar's sums in the last float bits; the store keeps
// vap as float32, so that is the tolerance that matters
const closeF32 = (a: number, b: number) => Math.abs(a - b) <= 1e-6 * Math.max(1, Math.abs(a), Math.abs(b))

const markets: MarketKey[] = [BTC, ETH, { ...BTC, marketType: 'spot' }]
const tradeArb = fc.record({
  market: fc.integer({ min: 0, max: markets.length - 1 }),
  // a few minutes, with a bias toward minute boundaries
  ts: fc.oneof(
    fc.integer({ min: 0, max: 5 * MINUTE_MS - 1 }),
    fc.integer({ min: 1, max: 5 }).chain((m) => fc.constantFrom(m * MINUTE_MS - 1, m * MINUTE_MS, m * MINUTE_MS + 1)),
  ),
  price: fc.double({ min: 0.01, max: 1e5, noNaN: true }),
  size: fc.double({ min: 1e-6, max: 1e3, noNaN: true }),
  side: fc.constantFrom('buy' as const, 'sell' as const),
  /** >= 0: replay (duplicate) of the earlier trade with this index (mod count); -1: a new trade */
  replay: fc.oneof({ weight: 4, arbitrary: fc.constant(-1) }, { weight: 1, arbitrary: fc.nat() }),
})

type Raw = { market: number; ts: number; price: number; size: number; side: 'buy' | 'sell'; replay: number }

/** the stream: new trades with unique ids, and exact replays (same id, ts, price...) of earlier ones */
function stream(raw: Raw[]): TradeEvent[] {
  const out: TradeEvent[] = []
  raw.forEach((r, i) => {
    if (r.replay >= 0 && out.length > 0) out.push({ ...out[r.replay % out.length]! })
    else out.push(trade(T0 + r.ts, r.price, r.size, r.side, `id${i}`, markets[r.market]))
  })
  return out
}

function checkBars(bars: MinuteBar[], accepted: TradeEvent[]) {
  const ref = referenceFold(accepted)
  expect(bars.length).toBe(ref.size)
  for (const bar of bars) {
    const r = ref.get(`${bar.exchange}:${bar.coin}:${bar.marketType}:${bar.ts}`)
    expect(r).toBeDefined()
    expect(bar.open).toBe(r!.open)
    expect(bar.close).toBe(r!.close)
    expect(bar.high).toBe(r!.high)
    expect(bar.low).toBe(r!.low)
    expect(bar.trades).toBe(r!.trades)
    expect(close(bar.volume, r!.volume)).toBe(true)
    expect(close(bar.buyVolume!, r!.buy)).toBe(true)
    expect(close(bar.sellVolume!, r!.sell)).toBe(true)
    expect(close(bar.buyVolume! + bar.sellVolume!, bar.volume)).toBe(true)
    expect(close(bar.quoteVolume!, r!.quote)).toBe(true)
    let vb = 0
    let vs = 0
    for (const [, [b, s]] of bar.vap) ((vb += b), (vs += s))
    expect(closeF32(vb, bar.buyVolume!)).toBe(true)
    expect(closeF32(vs, bar.sellVolume!)).toBe(true)
  }
}

describe('MinuteAggregator: properties', () => {
  it('with a grace covering the disorder, every bar = fold of its trades (dupes counted once)', () => {
    fc.assert(
      fc.property(fc.array(tradeArb, { maxLength: 300 }), (raw) => {
        const agg = new MinuteAggregator({ graceMs: 10 * MINUTE_MS })
        const trades = stream(raw)
        const firstById = new Map<string, TradeEvent>()
        for (const t of trades) {
          const k = `${t.exchange}:${t.coin}:${t.marketType}:${t.id}`
          const res = agg.add(t)
          expect(res).toBe(firstById.has(k) ? 'duplicate' : 'accepted')
          if (!firstById.has(k)) firstById.set(k, t)
        }
        checkBars(agg.drainAll(), [...firstById.values()])
        const st = agg.stats
        expect(st.accepted + st.duplicates).toBe(trades.length)
      }),
      { numRuns: 300 },
    )
  })

  it('with the default grace and random drains, bars = fold of exactly the accepted trades; nothing lost silently', () => {
    fc.assert(
      fc.property(fc.array(tradeArb, { maxLength: 300 }), fc.array(fc.boolean(), { maxLength: 300 }), (raw, drains) => {
        const agg = new MinuteAggregator()
        const accepted: TradeEvent[] = []
        const bars: MinuteBar[] = []
        stream(raw).forEach((t, i) => {
          if (agg.add(t) === 'accepted') accepted.push(t)
          if (drains[i]) bars.push(...agg.drainClosed())
        })
        bars.push(...agg.drainAll())
        checkBars(bars, accepted)
        const st = agg.stats
        expect(st.accepted + st.duplicates + st.lateDropped).toBe(raw.length)
        // every (market, minute) appears at most once
        expect(new Set(bars.map((b) => `${b.exchange}:${b.coin}:${b.marketType}:${b.ts}`)).size).toBe(bars.length)
      }),
      { numRuns: 300 },
    )
  })

  it('in-order streams with unique ids lose nothing', () => {
    fc.assert(
      fc.property(fc.array(tradeArb, { maxLength: 300 }), (raw) => {
        const agg = new MinuteAggregator()
        const trades = raw.map((r, i) => trade(T0 + r.ts, r.price, r.size, r.side, `u${i}`, markets[r.market])).sort((a, b) => a.ts - b.ts)
        for (const t of trades) expect(agg.add(t)).toBe('accepted')
        checkBars(agg.drainAll(), trades)
      }),
      { numRuns: 200 },
    )
  })
})
