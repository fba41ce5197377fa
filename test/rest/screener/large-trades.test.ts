// GET /v1/flow/large-trades (3 credits): 20 minutes of the live simulator through the real ingest path; the answer
// equals the trades the simulator emitted at or above min_usd (recorded on the way in), newest first, and the stored
// rows; paging with the (ts, seq) cursor; the storage threshold refuses a smaller min_usd; errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { MarketEvent, TradeEvent } from '../../../src/domain/events.js'
import { Ingest } from '../../../src/ingest/ingest.js'
import { MarketSimulator } from '../../../src/sources/simulator/index.js'
import { TEST_NOW } from '../../helpers/market.js'
import { startTestService, type TestService } from '../../helpers/service.js'
import { MINUTE, callBad, callOk, sortedKeys, type Json } from '../markets/helpers.js'

let t: TestService
let acct: { apiKey: string; accountId: string }
const emitted: TradeEvent[] = []

beforeAll(async () => {
  t = await startTestService({ clock: () => TEST_NOW })
  const { db, market } = t.services
  const ingest = new Ingest({ db, market })
  const sink = { emit: (e: MarketEvent) => (e.type === 'trade' && emitted.push(e), ingest.emit(e)) }
  const sim = new MarketSimulator({ seed: 5, coins: ['BTC', 'ETH'] })
  sim.live(sink, { manual: true, fromTs: TEST_NOW - 20 * MINUTE })
  sim.pump(TEST_NOW)
  ingest.advance(TEST_NOW)
  await ingest.flush({ final: true })
  acct = await t.signup()
}, 180_000)
afterAll(() => t.close())

const key = (x: { exchange: string; coin: string; ts: number; trade_id?: string; id?: string }) => `${x.exchange}|${x.coin}|${x.ts}|${x.trade_id ?? x.id}`
const above = (usd: number) => emitted.filter((e) => e.price * e.size >= usd)

describe('GET /v1/flow/large-trades', () => {
  it('min_usd=100000: every emitted trade of at least 100k, newest first, equal to the stored rows in order', async () => {
    expect(above(100_000).length).toBeGreaterThan(5)
    const { data, meta } = await callOk(t, acct, '/v1/flow/large-trades?min_usd=100000&limit=5000', 3)
    expect(sortedKeys(data)).toEqual(['as_of', 'coverage', 'min_usd', 'retention_hours', 'stored_min_usd', 'trades'])
    expect(meta.next).toBeNull()
    expect([data.stored_min_usd, data.retention_hours]).toEqual([100_000, 168])
    expect(new Set(data.trades.map(key))).toEqual(new Set(above(100_000).map(key)))
    expect(data.trades).toHaveLength(above(100_000).length)
    const ts = data.trades.map((x: Json) => x.ts)
    expect(ts).toEqual([...ts].sort((a, b) => b - a))
    for (const x of data.trades) {
      expect(sortedKeys(x)).toEqual(['coin', 'exchange', 'market_type', 'notional_usd', 'price', 'side', 'size', 'trade_id', 'ts'])
      expect(x.notional_usd).toBeCloseTo(x.price * x.size, 6)
    }
    const stored = await t.services.db.sql.query<{ trade_id: string }>('SELECT trade_id FROM large_trade WHERE notional_usd >= 100000 ORDER BY ts DESC, seq DESC')
    expect(data.trades.map((x: Json) => x.trade_id)).toEqual(stored.map((r) => r.trade_id))
    // nothing below the storage threshold was kept
    const small = await t.services.db.sql.query<{ n: string }>('SELECT count(*) AS n FROM large_trade WHERE notional_usd < 100000')
    expect(Number(small[0]!.n)).toBe(0)
  })

  it('filters by coin, exchange and the default min_usd (1,000,000)', async () => {
    const { data } = await callOk(t, acct, '/v1/flow/large-trades?coin=eth&exchange=binance&min_usd=100000&limit=5000', 3)
    expect(data.trades.map(key).sort()).toEqual(above(100_000).filter((e) => e.coin === 'ETH' && e.exchange === 'binance').map(key).sort())
    const dflt = await callOk(t, acct, '/v1/flow/large-trades?limit=5000', 3)
    expect(dflt.data.min_usd).toBe(1_000_000)
    expect(dflt.data.trades.length).toBe(above(1_000_000).length)
  })

  it('pages newest first with limit and cursor; the pages join to the whole list; the cursor is bound to its parameters', async () => {
    const whole = (await callOk(t, acct, '/v1/flow/large-trades?min_usd=100000&limit=5000', 3)).data.trades.map(key)
    const seen: string[] = []
    let path = '/v1/flow/large-trades?min_usd=100000&limit=3'
    let pages = 0
    let cursor: string | null = null
    for (;;) {
      const { data, meta } = await callOk(t, acct, path, 3)
      pages++
      expect(data.trades.length).toBeLessThanOrEqual(3)
      seen.push(...data.trades.map(key))
      if (meta.next === null) break
      cursor ??= meta.next
      path = `/v1/flow/large-trades?min_usd=100000&limit=3&cursor=${meta.next}`
    }
    expect(seen).toEqual(whole)
    expect(pages).toBe(Math.max(1, Math.ceil(whole.length / 3)))
    await callBad(t, acct, `/v1/flow/large-trades?min_usd=200000&limit=3&cursor=${cursor}`, 'cursor')
  })

  it('min_usd under the storage threshold, or malformed, is 400 naming min_usd and its range; nothing charged', async () => {
    const p = await callBad(t, acct, '/v1/flow/large-trades?min_usd=50000', 'min_usd')
    expect(p.detail).toMatch(/100000/)
    for (const v of ['abc', '1e99', '-5', '2000000001']) await callBad(t, acct, `/v1/flow/large-trades?min_usd=${v}`, 'min_usd')
    await callBad(t, acct, '/v1/flow/large-trades?limit=0', 'limit')
    await callBad(t, acct, '/v1/flow/large-trades?cursor=zzz', 'cursor')
    await callBad(t, acct, '/v1/flow/large-trades?exchange=kraken', 'exchange')
  })
})
