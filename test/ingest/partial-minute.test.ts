// A shutdown inside a minute (issue 15, item 7): the minute is stored with what it had and marked partial, never
// as complete; a restart whose source replays the rest of it continues the stored minute and completes it, and a
// restart that cannot replay leaves the mark. The event source is this test's own, deterministic: every trade
// of every minute is known, so the whole minute is folded here by hand and compared with what the store holds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MINUTE_MS } from '../../src/domain/time.js'
import { runBackfill } from '../../src/ingest/backfill.js'
import type { MinuteBar } from '../../src/domain/minute-bars.js'
import type { EventSink, TradeEvent } from '../../src/domain/events.js'
import { Ingest } from '../../src/ingest/ingest.js'
import { startTestService, type TestService } from '../helpers/service.js'

const T0 = Date.UTC(2026, 3, 7, 10, 0, 0)
const M = T0 + 5 * MINUTE_MS // the minute the shutdown falls in
const STOP = M + 25_500 // shutdown time
const MARKET = { exchange: 'okx', coin: 'BTC', marketType: 'perp' } as const

/** 30 trades a minute, 2 s apart from :00.7, prices and sizes varying by position */
function tradesOf(minute: number): TradeEvent[] {
  return Array.from({ length: 30 }, (_, i) => ({
    type: 'trade' as const,
    ...MARKET,
    ts: minute + 700 + 2000 * i,
    id: `${minute}-${i}`,
    price: 60_000 + ((i * 37) % 11) * 5 + (minute - T0) / MINUTE_MS,
    size: 0.01 * (1 + (i % 4)),
    side: i % 3 === 0 ? ('sell' as const) : ('buy' as const),
  }))
}

/** every trade with from <= ts < to, in order */
function emitRange(sink: EventSink, from: number, to: number): void {
  for (let m = Math.floor(from / MINUTE_MS) * MINUTE_MS; m < to; m += MINUTE_MS) for (const t of tradesOf(m)) if (t.ts >= from && t.ts < to) sink.emit(t)
}

/** the minute folded by hand: first and last trade by time, extremes, sums */
function wholeMinute(minute: number) {
  const ts = tradesOf(minute)
  const sum = (f: (t: TradeEvent) => number) => ts.reduce((s, t) => s + f(t), 0)
  return {
    trades: ts.length,
    open: ts[0]!.price,
    close: ts.at(-1)!.price,
    high: Math.max(...ts.map((t) => t.price)),
    low: Math.min(...ts.map((t) => t.price)),
    volume: sum((t) => t.size),
    buy: sum((t) => (t.side === 'buy' ? t.size : 0)),
    quote: sum((t) => t.price * t.size),
  }
}

interface Row {
  ts: number
  trades: number
  open: number
  close: number
  high: number
  low: number
  volume: number
  buy_volume: number
  quote_volume: number
}

describe('a minute cut by a shutdown', () => {
  let t: TestService
  beforeAll(async () => {
    t = await startTestService({ clock: () => T0 + 20 * MINUTE_MS })
  })
  afterAll(() => t?.close())

  const reset = async () => {
    for (const table of ['candle_1m', 'candle_1h', 'minute_partial']) await t.services.db.sql.query(`DELETE FROM ${table}`)
  }
  const stored = async (minute: number) =>
    (await t.services.db.sql.query<Row>(
      `SELECT ts, trades, open, close, high, low, volume, buy_volume, quote_volume FROM candle_1m WHERE exchange = $1 AND coin = $2 AND market_type = $3 AND ts = $4`,
      [MARKET.exchange, MARKET.coin, MARKET.marketType, minute],
    ))[0]
  const marks = () => t.services.db.sql.query<{ ts: number; covered_to: number }>('SELECT ts::float8 AS ts, covered_to::float8 AS covered_to FROM minute_partial ORDER BY ts')
  const expectWhole = (row: Row | undefined, minute: number) => {
    const w = wholeMinute(minute)
    expect(row, `minute ${minute}`).toBeDefined()
    expect([row!.trades, row!.open, row!.close, row!.high, row!.low]).toEqual([w.trades, w.open, w.close, w.high, w.low])
    expect(row!.volume).toBeCloseTo(w.volume, 9)
    expect(row!.buy_volume).toBeCloseTo(w.buy, 9)
    expect(row!.quote_volume).toBeCloseTo(w.quote, 6)
  }

  /** the first run: trades up to the shutdown, then the final flush SIGTERM does (its source delivers every trade from T0) */
  const firstRun = async () => {
    const ingest = new Ingest({ db: t.services.db, market: t.services.market, cacheHours: true })
    await ingest.resume({ replayFrom: T0 })
    emitRange(ingest, T0, STOP)
    ingest.advance(STOP)
    await ingest.flush({ final: true })
  }
  // the newest trade before the shutdown: trade 12 of the minute (:24.7)
  const COVERED = M + 700 + 2000 * 12

  it('the shutdown stores the minute short and marks it partial; the minutes before it are whole and unmarked', async () => {
    await reset()
    await firstRun()
    const row = await stored(M)
    expect(row!.trades).toBe(13)
    expect(await marks()).toEqual([{ ts: M, covered_to: COVERED }])
    expectWhole(await stored(M - MINUTE_MS), M - MINUTE_MS)
  })

  it('a restart whose source replays the minute continues the stored bar: the minute comes out whole and the mark goes', async () => {
    await reset()
    await firstRun()
    const ingest = new Ingest({ db: t.services.db, market: t.services.market, cacheHours: true })
    // the source replays from the minute's start (a venue's REST history, the simulator's catch-up)
    await ingest.resume({ replayFrom: M })
    emitRange(ingest, M, M + 3 * MINUTE_MS)
    ingest.advance(M + 3 * MINUTE_MS)
    await ingest.flush({ final: true })
    expect(ingest.aggregator.stats.resumeSkipped).toBe(13) // the trades already in the stored bar were not counted twice
    expectWhole(await stored(M), M)
    expectWhole(await stored(M + MINUTE_MS), M + MINUTE_MS)
    expect(await marks()).toEqual([])
    // the hourly rollup holds the whole minute too
    const [h] = await t.services.db.sql.query<{ trades: number }>(`SELECT trades FROM candle_1h WHERE exchange = 'okx' AND coin = 'BTC' AND ts = $1`, [T0])
    expect(h!.trades).toBe(30 * 8)
  })

  it('a restart that cannot replay the gap (a live venue, or a replay starting after the newest stored trade) keeps the mark', async () => {
    for (const replay of [null, { replayFrom: STOP + 10_000 }]) {
      await reset()
      await firstRun()
      const ingest = new Ingest({ db: t.services.db, market: t.services.market, cacheHours: true })
      await ingest.resume(replay)
      emitRange(ingest, STOP + 10_000, M + 3 * MINUTE_MS)
      ingest.advance(M + 3 * MINUTE_MS)
      await ingest.flush({ final: true })
      expect((await stored(M))!.trades, JSON.stringify(replay)).toBe(13)
      expect(await marks()).toEqual([{ ts: M, covered_to: COVERED }])
      expectWhole(await stored(M + MINUTE_MS), M + MINUTE_MS)
    }
  })

  it('a second shutdown inside the reopened minute moves the mark on instead of storing the minute as complete', async () => {
    await reset()
    await firstRun()
    const ingest = new Ingest({ db: t.services.db, market: t.services.market, cacheHours: true })
    await ingest.resume({ replayFrom: COVERED + 1 })
    emitRange(ingest, COVERED + 1, M + 40_000)
    ingest.advance(M + 40_000)
    await ingest.flush({ final: true })
    expect((await stored(M))!.trades).toBe(20) // trades 0..19 (:38.7)
    expect(await marks()).toEqual([{ ts: M, covered_to: M + 700 + 2000 * 19 }])
  })

  it('the backfill on the next start completes a partial minute inside its window', async () => {
    await reset()
    await firstRun()
    const history = { simulateRange: (from: number, to: number, sink: EventSink) => emitRange(sink, from, to) }
    const now = M + 10 * MINUTE_MS + 30_000
    await runBackfill({ db: t.services.db, market: t.services.market, source: history, sourceName: 'partial-test', now, days: 0.01 })
    expectWhole(await stored(M), M)
    expect(await marks()).toEqual([])
  })

  it('a backfill whose source hands in whole minutes (the simulator\'s history) replaces the partial minute with its bar', async () => {
    await reset()
    await firstRun()
    const bar = (minute: number): MinuteBar => {
      const w = wholeMinute(minute)
      return { ...MARKET, ts: minute, open: w.open, high: w.high, low: w.low, close: w.close, volume: w.volume, buyVolume: w.buy, sellVolume: w.volume - w.buy, quoteVolume: w.quote, trades: w.trades, source: 'trades', noSplitMinutes: 0, klineMinutes: 0, vap: new Map() }
    }
    const history = {
      simulateRange: (from: number, to: number, sink: { emitBar(b: MinuteBar): void }) => {
        for (let m = Math.ceil(from / MINUTE_MS) * MINUTE_MS; m < to; m += MINUTE_MS) sink.emitBar(bar(m))
      },
    }
    const now = M + 10 * MINUTE_MS + 30_000
    await runBackfill({ db: t.services.db, market: t.services.market, source: history as never, sourceName: 'partial-bars', now, days: 0.01 })
    expectWhole(await stored(M), M)
    expect(await marks()).toEqual([])
  })

  it('a backfill whose chunk spans several hours completes a partial minute in its last hour', async () => {
    await reset()
    await firstRun()
    const history = { simulateRange: (from: number, to: number, sink: EventSink) => emitRange(sink, from, to) }
    // 0.2 days back from 10:15: today's chunk runs 05:15 to 10:15, an hour at a time (issue 31: the first hour's final
    // flush stored the reopened minute short again, and its trades came too late for it)
    const now = M + 10 * MINUTE_MS + 30_000
    await runBackfill({ db: t.services.db, market: t.services.market, source: history, sourceName: 'partial-hours', now, days: 0.2 })
    expectWhole(await stored(M), M)
    expect(await marks()).toEqual([])
  })

  it('a backfill that starts after the live feed wrote its first minutes still completes the partial minute and fills the gap before them', async () => {
    await reset()
    await firstRun()
    // the restart's live feed starts at M + 8 and writes its first minute before the backfill (its lease, its turn) starts
    const live = new Ingest({ db: t.services.db, market: t.services.market, cacheHours: true })
    const liveFrom = M + 8 * MINUTE_MS
    await live.resume({ replayFrom: liveFrom })
    emitRange(live, liveFrom, liveFrom + MINUTE_MS + 3000)
    live.advance(liveFrom + MINUTE_MS + 3000)
    await live.flush()
    expectWhole(await stored(liveFrom), liveFrom)
    const history = { simulateRange: (from: number, to: number, sink: EventSink) => emitRange(sink, from, to) }
    await runBackfill({ db: t.services.db, market: t.services.market, source: history, sourceName: 'partial-late', now: liveFrom, days: 0.01 })
    for (let m = M; m < liveFrom; m += MINUTE_MS) expectWhole(await stored(m), m)
    expect(await marks()).toEqual([])
  })

  it('a source that cannot replay and comes up inside a minute stores that minute marked short at its start', async () => {
    await reset()
    await firstRun()
    const ingest = new Ingest({ db: t.services.db, market: t.services.market, cacheHours: true })
    await ingest.resume(null)
    const next = M + MINUTE_MS
    const up = next + 16_000 // the restart: the venue's first ticker comes at :16, its trades from :16.7
    // open interest stamped with the start of the venue's own bucket arrives first: it does not say the feed was up then
    ingest.emit({ type: 'open_interest', ...MARKET, ts: next, openInterest: 1000 })
    ingest.emit({ type: 'ticker', ...MARKET, ts: up, markPrice: 60_000, indexPrice: 60_000, lastPrice: 60_000, fundingRate: 0.0001, fundingIntervalHours: 8, nextFundingTime: T0 + 8 * 60 * MINUTE_MS })
    emitRange(ingest, up, M + 3 * MINUTE_MS)
    ingest.advance(M + 3 * MINUTE_MS)
    await ingest.flush({ final: true })
    // trades 8..29 of the minute (from :16.7) are in it, and the mark says it holds them from :16 only
    expect((await stored(next))!.trades).toBe(22)
    expect(await t.services.db.sql.query('SELECT ts::float8 AS ts, covered_from::float8 AS covered_from, covered_to FROM minute_partial ORDER BY ts')).toEqual([
      { ts: M, covered_from: null, covered_to: COVERED },
      { ts: next, covered_from: up, covered_to: null },
    ])
    expectWhole(await stored(next + MINUTE_MS), next + MINUTE_MS)
  })

  it('the candles\' coverage says which venue\'s minutes hold only part of their trades, and what they hold', async () => {
    await reset()
    await firstRun()
    const ingest = new Ingest({ db: t.services.db, market: t.services.market, cacheHours: true })
    await ingest.resume(null)
    const up = M + MINUTE_MS + 16_000
    emitRange(ingest, up, M + 3 * MINUTE_MS)
    ingest.advance(M + 3 * MINUTE_MS)
    await ingest.flush({ final: true })
    const { apiKey } = await t.signup()
    const iso = (ms: number) => new Date(ms).toISOString()
    const reason = `2 minutes hold only part of their trades (cut by a restart the feed could not replay): ${iso(M)} (trades up to ${iso(COVERED)} only), ${iso(M + MINUTE_MS)} (trades from ${iso(M + MINUTE_MS + 16_700)} only)`
    const end = T0 + 20 * MINUTE_MS
    for (const path of [
      `/v1/markets/ohlc?coin=BTC&exchange=okx&interval=1m&lookback=1h&end=${end}`,
      `/v1/markets/ohlc?coin=BTC&interval=5m&lookback=1h&end=${end}`,
      `/v1/flow/taker-volume?coin=BTC&exchange=okx&interval=1m&start_time=${T0}&end_time=${end}`,
      `/v1/structure/volume-profile?coin=BTC&exchange=okx&lookback=1h&end=${end}`,
    ]) {
      const res = await t.get(path, apiKey)
      expect(res.status, path).toBe(200)
      const body = (await res.json()) as { data: { coverage?: Coverage; perp?: { coverage: Coverage } } }
      const coverage = body.data.coverage ?? body.data.perp!.coverage
      expect(coverage.partial, path).toBe(true)
      expect(coverage.missing.find((g) => g.exchange === 'okx'), path).toEqual({ exchange: 'okx', status: 'truncated', reason })
    }
    // a window ending before the cut minutes says nothing of them
    const before = (await (await t.get(`/v1/markets/ohlc?coin=BTC&exchange=okx&interval=1m&lookback=1h&end=${M}`, apiKey)).json()) as { data: { coverage: Coverage } }
    expect(before.data.coverage.missing.filter((g) => g.reason.includes('restart'))).toEqual([])
  })
})

interface Coverage {
  partial: boolean
  missing: { exchange: string; status: string; reason: string }[]
}
