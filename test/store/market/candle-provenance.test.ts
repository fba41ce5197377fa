// Provenance in candle_1m / candle_1h (src/store/market/candles.ts): a venue kline never replaces a stored minute
// folded from trades, a minute from trades replaces a kline, nulls (what a venue does not give) survive both write
// paths, and an hour of mixed minutes keeps its taker split over the minutes that have one and says how many do not.
// The same cases on the embedded store and on PostgreSQL (skipped where no server answers; REQUIRE_POSTGRES=1 fails).
import { afterAll, beforeAll, describe, expect, it as itAll } from 'vitest'
import { klineMinuteBar, type MarketKey, type MinuteBar, type TradeMinuteBar } from '../../../src/domain/minute-bars.js'
import { HOUR_MS, MINUTE_MS } from '../../../src/domain/time.js'
import { readCandles, writeMinuteBars, type HourCache } from '../../../src/store/market/candles.js'
import { vapAdd } from '../../../src/domain/minute-vap.js'
import { openDatabase, type Database } from '../../../src/store/database.js'
import { openTestStore } from '../../helpers/store.js'
import { freshSchema, requirePostgresInCi } from '../../helpers/postgres.js'

const H = Date.UTC(2026, 3, 2, 10)
const KEY: MarketKey = { exchange: 'bybit', coin: 'BTC', marketType: 'perp' }

/** a minute folded from trades: every field known, with volume at price */
function traded(minute: number, buy: number, sell: number, price = 100 + minute): TradeMinuteBar {
  const vap = new Map()
  vapAdd(vap, price, buy, 'buy')
  vapAdd(vap, price, sell, 'sell')
  return {
    ...KEY, ts: H + minute * MINUTE_MS, open: price, high: price + 1, low: price - 1, close: price + 0.5, volume: buy + sell, buyVolume: buy, sellVolume: sell,
    quoteVolume: price * (buy + sell), trades: 3, source: 'trades', noSplitMinutes: 0, klineMinutes: 0, vap,
  }
}

/** the venue's kline of a minute: Bybit's, without a taker split or trade count */
const kline = (minute: number, volume: number, price = 200 + minute) =>
  klineMinuteBar(KEY, { ts: H + minute * MINUTE_MS, open: price, high: price + 2, low: price - 2, close: price + 1, volume, quoteVolume: price * volume })

const noVap = ({ vap: _v, ...b }: MinuteBar) => b

function cases(open: () => Promise<Database | null>) {
  let db: Database
  let ready = false
  const it = (name: string, fn: () => Promise<void>) => itAll(name, async (ctx) => (ready ? fn() : ctx.skip()))
  beforeAll(async () => {
    const opened = await open()
    if (!opened) return
    db = opened
    ready = true
  }, 120_000)
  afterAll(async () => {
    await db?.close()
  })
  const q = { coins: ['BTC'], marketType: 'perp' as const, start: H - HOUR_MS, end: H + 2 * HOUR_MS, withVap: true }
  const minutes = () => readCandles(db.sql, 'candle_1m', q)
  const hours = () => readCandles(db.sql, 'candle_1h', q)
  const reset = () => db.sql.query('TRUNCATE candle_1m, candle_1h')

  it('a venue kline does not replace a stored minute from trades; the write says it stored nothing', async () => {
    await reset()
    const t = traded(5, 2, 1)
    await writeMinuteBars(db.sql, [t])
    const before = { m: await minutes(), h: await hours() }
    const written = await writeMinuteBars(db.sql, [kline(5, 9)])
    expect(written.minuteBars).toEqual([])
    expect(await minutes()).toEqual(before.m)
    expect(await hours()).toEqual(before.h)
    expect((await minutes()).map(noVap)).toEqual([noVap(t)])
  })

  it('a minute from trades replaces a stored kline, and its hour is rolled up from it', async () => {
    await reset()
    await writeMinuteBars(db.sql, [kline(7, 4)])
    const t = traded(7, 0.5, 1.5)
    const written = await writeMinuteBars(db.sql, [t])
    expect(written.minuteBars).toEqual([t])
    expect((await minutes()).map(noVap)).toEqual([noVap(t)])
    const [h] = await hours()
    expect(noVap(h!)).toEqual({ ...noVap(t), ts: H })
  })

  it('a later kline replaces a stored kline (re-fetched history is idempotent)', async () => {
    await reset()
    await writeMinuteBars(db.sql, [kline(1, 4)])
    await writeMinuteBars(db.sql, [kline(1, 6)])
    expect((await minutes()).map(noVap)).toEqual([noVap(kline(1, 6))])
  })

  it('a batch of klines stores those over empty or kline minutes and none over a minute from trades', async () => {
    await reset()
    const t = traded(2, 1, 1)
    await writeMinuteBars(db.sql, [t, kline(3, 1)])
    const written = await writeMinuteBars(db.sql, [kline(2, 5), kline(3, 2), kline(4, 3)])
    expect(written.minuteBars.map((b) => b.ts)).toEqual([H + 3 * MINUTE_MS, H + 4 * MINUTE_MS])
    expect((await minutes()).map(noVap)).toEqual([noVap(t), noVap(kline(3, 2)), noVap(kline(4, 3))])
  })

  it('an hour of mixed minutes: the split over the minutes with one and their count, the trade count null (klines lack it), source venue_kline', async () => {
    await reset()
    const a = traded(0, 2, 1, 100)
    const b = traded(1, 0.25, 4, 101)
    const k1 = kline(2, 7)
    const k2 = kline(3, 5)
    await writeMinuteBars(db.sql, [a, k1, b, k2])
    const [h] = await hours()
    expect(noVap(h!)).toEqual({
      ...KEY, ts: H, open: a.open, close: k2.close, high: Math.max(a.high, b.high, k1.high, k2.high), low: Math.min(a.low, b.low, k1.low, k2.low),
      // summed in minute order, as the rollup folds them; every minute here has a quote volume (Bybit's turnover)
      volume: 3 + 4.25 + 7 + 5, buyVolume: 2 + 0.25, sellVolume: 1 + 4, quoteVolume: 100 * 3 + 101 * 4.25 + 202 * 7 + 203 * 5, trades: null,
      source: 'venue_kline', noSplitMinutes: 2, klineMinutes: 2,
    })
    // volume at price only from the minutes from trades
    expect([...h!.vap.keys()].length).toBe(2)
    // the minutes kept their nulls
    const stored = await minutes()
    expect(stored.filter((m) => m.source === 'venue_kline').map((m) => [m.buyVolume, m.sellVolume, m.trades])).toEqual([[null, null, null], [null, null, null]])
  })

  it('an hour of klines only has no split at all (null), never a zero', async () => {
    await reset()
    await writeMinuteBars(db.sql, [kline(10, 1), kline(11, 2)])
    const [h] = await hours()
    expect([h!.buyVolume, h!.sellVolume, h!.noSplitMinutes, h!.klineMinutes, h!.quoteVolume]).toEqual([null, null, 2, 2, 210 * 1 + 211 * 2])
  })

  it('stores the same rows, nulls included, through COPY (fresh history) as through the upsert', async () => {
    await reset()
    const input = [traded(0, 1, 2), kline(1, 3), traded(61, 4, 0), kline(62, 1)]
    const viaCopy = await writeMinuteBars(db.sql, input, { fresh: true, freshHours: true })
    const copied = { m: await minutes(), h: await hours() }
    await reset()
    const viaUpsert = await writeMinuteBars(db.sql, input)
    expect({ m: await minutes(), h: await hours() }).toEqual(copied)
    expect(viaCopy.hourBars.map(noVap)).toEqual(viaUpsert.hourBars.map(noVap))
    expect(copied.m.map((b) => b.source)).toEqual(['trades', 'venue_kline', 'trades', 'venue_kline'])
  })

  it('a live writer holding the hour in memory keeps its minute from trades when a kline of it comes', async () => {
    await reset()
    const cache: HourCache = new Map()
    const t = traded(20, 3, 1)
    const first = await writeMinuteBars(db.sql, [t, traded(21, 1, 1)], { hourCache: cache })
    const after = await writeMinuteBars(db.sql, [kline(20, 50), kline(22, 2)], { hourCache: cache })
    expect(after.minuteBars.map((b) => b.ts)).toEqual([H + 22 * MINUTE_MS])
    // the rollup handed back (to the in-memory series) and the stored one: minute 20 from trades, 22 a kline
    expect(noVap(after.hourBars[0]!)).toEqual(noVap((await hours())[0]!))
    expect(after.hourBars[0]!.volume).toBe(first.hourBars[0]!.volume + 2)
    expect([after.hourBars[0]!.buyVolume, after.hourBars[0]!.noSplitMinutes]).toEqual([4, 1])
  })
}

describe('candle provenance on the embedded store', () => {
  cases(() => openTestStore())
})

describe('candle provenance on PostgreSQL', () => {
  let schema: Awaited<ReturnType<typeof freshSchema>> | undefined
  let up = false
  beforeAll(async () => {
    up = await requirePostgresInCi()
    if (up) schema = await freshSchema('candle_provenance')
  })
  afterAll(async () => {
    await schema?.drop()
  })
  cases(async () => (up ? openDatabase({ kind: 'postgres', url: schema!.url }, { migrate: true }) : null))
})
