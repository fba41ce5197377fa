import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MINUTE_MS } from '../../src/domain/time.js'
import type { OpenInterestEvent, TickerEvent } from '../../src/domain/events.js'
import { Ingest } from '../../src/ingest/ingest.js'
import { FIXTURES_DIR } from '../sources/connectors/offline.js'
import { startTestService, type TestService } from '../helpers/service.js'

// Bybit's GET /v5/market/open-interest stamps each value with the start of its 5-minute bucket, and answers minutes
// later: the recorded response (bybit/open_interest.json) carries timestamp 1739725200000 and was served at `time`
// 1739725954780, 12.6 minutes on. Sample slots are one minute, so the value is older than the open slot when it
// arrives; it must still reach the stored history (its own slot and every later slot that carried an older value).
const body = JSON.parse(readFileSync(`${FIXTURES_DIR}bybit/open_interest.json`, 'utf8')) as {
  result: { list: { openInterest: string; timestamp: string }[] }
  time: number
}
const OI = Number(body.result.list[0]!.openInterest)
const OI_TS = Number(body.result.list[0]!.timestamp)
const ANSWERED = body.time

describe('ingest: events older than the open sample slot', () => {
  let t: TestService
  beforeAll(async () => {
    t = await startTestService({ clock: () => ANSWERED + MINUTE_MS })
  })
  afterAll(async () => t.close())

  it('keeps a late open-interest value in its own slot and in the later slots that carried an older one', async () => {
    const { db, market } = t.services
    const ingest = new Ingest({ db, market })
    const ticker = (ts: number): TickerEvent => ({
      type: 'ticker', exchange: 'bybit', coin: 'BTC', marketType: 'perp', ts,
      markPrice: 96_000, indexPrice: 96_010, lastPrice: 96_001, fundingRate: 0.0001, fundingIntervalHours: 8, nextFundingTime: null,
    })
    const oi = (ts: number, openInterest: number): OpenInterestEvent => ({ type: 'open_interest', exchange: 'bybit', coin: 'BTC', marketType: 'perp', ts, openInterest })
    const first = OI_TS - 10 * MINUTE_MS
    // the previous bucket's value, then tickers every 5 s until the response arrives
    ingest.emit(oi(first, OI - 500))
    for (let ts = first; ts <= ANSWERED; ts += 5_000) ingest.emit(ticker(ts))
    ingest.emit(oi(OI_TS, OI))
    // a stale repeat of the older bucket changes nothing
    ingest.emit(oi(first, OI - 500))
    ingest.emit(ticker(ANSWERED + 5_000))
    await ingest.flush({ final: true })

    const rows = await db.sql.query<{ ts: string | number; open_interest: number | null; mark_price: number | null }>(
      `SELECT ts, open_interest, mark_price FROM market_sample WHERE exchange = 'bybit' AND coin = 'BTC' ORDER BY ts`,
    )
    const byTs = new Map(rows.map((r) => [Number(r.ts), r]))
    for (let slot = first; slot <= ANSWERED; slot += MINUTE_MS) {
      const s = Math.floor(slot / MINUTE_MS) * MINUTE_MS
      const row = byTs.get(s)
      expect(row, `slot ${s}`).toBeDefined()
      expect(row!.open_interest, `slot ${new Date(s).toISOString()}`).toBe(s < OI_TS ? OI - 500 : OI)
      expect(row!.mark_price).toBe(96_000) // a late OI merges into the row, it does not erase the ticker fields
    }
    // the in-memory series mirrors the store
    const mirrored = market.series.minutes.perpSamples('BTC', OI_TS, ANSWERED).filter((c) => c.exchange === 'bybit')
    expect(mirrored.length).toBeGreaterThan(0)
    for (const c of mirrored) expect(c.oi).toBe(OI)
  })

  it('writes a quiet market\'s last slot once the clock has left it, without a final flush; a later value in that slot rewrites it', async () => {
    const { db } = t.services
    const ingest = new Ingest({ db, market: t.services.market })
    const slot = Math.floor(ANSWERED / MINUTE_MS) * MINUTE_MS + 100 * MINUTE_MS
    const oi = (ts: number, openInterest: number): OpenInterestEvent => ({ type: 'open_interest', exchange: 'okx', coin: 'BTC', marketType: 'perp', ts, openInterest })
    const stored = async () =>
      (await db.sql.query<{ open_interest: number }>(`SELECT open_interest FROM market_sample WHERE exchange = 'okx' AND coin = 'BTC' AND ts = $1`, [slot])).map((r) => Number(r.open_interest))
    ingest.emit(oi(slot + 10_000, 26_000))
    // inside the slot and its grace: nothing is written yet
    ingest.advance(slot + MINUTE_MS + 1_000)
    await ingest.flush()
    expect(await stored()).toEqual([])
    // the clock has left it: written, though no later event of the market came (the feed went quiet)
    ingest.advance(slot + MINUTE_MS + ingest.aggregator.graceMs)
    await ingest.flush()
    expect(await stored()).toEqual([26_000])
    // a newer value stamped inside the written slot rewrites it; an older one does not
    ingest.emit(oi(slot + 50_000, 26_500))
    ingest.emit(oi(slot + 20_000, 25_000))
    await ingest.flush({ final: true })
    expect(await stored()).toEqual([26_500])
  })
})
