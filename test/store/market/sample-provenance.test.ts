// Provenance of samples (src/store/market/samples.ts, liquidations.ts): open interest, settled funding and
// positioning ratios keep where they came from — the venue's live feed or poll, or its REST history endpoint fetched
// afterwards — and a history value never replaces a live one of the same slot, while a live one replaces history.
// The same cases on the embedded store and on PostgreSQL (skipped where no server answers; REQUIRE_POSTGRES=1 fails),
// and once through the ingest pipeline from events.
import { afterAll, beforeAll, describe, expect, it as itAll } from 'vitest'
import { MINUTE_MS } from '../../../src/domain/time.js'
import { mergeSamples, readFunding, readSamples, writeFunding, writeSamples, type FundingRow, type MarketSample } from '../../../src/store/market/samples.js'
import { readPositioning, writePositioning, type PositioningRow } from '../../../src/store/market/liquidations.js'
import { Ingest } from '../../../src/ingest/ingest.js'
import type { SampleSource } from '../../../src/domain/events.js'
import { openDatabase, type Database } from '../../../src/store/database.js'
import { openTestStore } from '../../helpers/store.js'
import { freshSchema, requirePostgresInCi } from '../../helpers/postgres.js'
import { startTestService } from '../../helpers/service.js'

const T = Date.UTC(2026, 3, 3, 8)
const HOUR = 60 * MINUTE_MS

const sample = (slot: number, oi: number | null, oiSource: SampleSource, mark: number | null = null): MarketSample => ({
  exchange: 'binance', coin: 'BTC', marketType: 'perp', ts: T + slot * MINUTE_MS, markPrice: mark, indexPrice: null, lastPrice: null,
  fundingRate: null, fundingIntervalHours: null, nextFundingTime: null, openInterest: oi, oiSource,
})
const funding = (rate: number, source: SampleSource): FundingRow => ({ exchange: 'okx', coin: 'BTC', ts: T, rate, intervalHours: 8, source })
const positioning = (ratio: number, source: SampleSource): PositioningRow => ({
  exchange: 'bybit', coin: 'BTC', kind: 'account', ts: T, longShare: ratio / (1 + ratio), shortShare: 1 / (1 + ratio), ratio, periodMs: 5 * MINUTE_MS, source,
})

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
  const samples = () => readSamples(db.sql, { coins: ['BTC'], marketType: 'perp', start: T - MINUTE_MS, end: T + 10 * MINUTE_MS })
  const reset = () => db.sql.query('TRUNCATE market_sample, funding_rate, positioning_sample')

  it('open interest from the history endpoint does not replace a stored live one; the live row keeps its ticker fields', async () => {
    await reset()
    await writeSamples(db.sql, [sample(0, 100, 'live', 65_000)])
    await writeSamples(db.sql, [sample(0, 101, 'venue_history')])
    expect((await samples()).map((s) => [s.openInterest, s.oiSource, s.markPrice])).toEqual([[100, 'live', 65_000]])
  })

  it('a live open interest replaces one from the history endpoint; history fills a slot that had none', async () => {
    await reset()
    await writeSamples(db.sql, [sample(0, 101, 'venue_history'), sample(1, 50, 'venue_history')])
    await writeSamples(db.sql, [sample(0, 100, 'live'), sample(1, null, 'live', 64_000)])
    await writeSamples(db.sql, [sample(2, null, 'live', 63_000)])
    await writeSamples(db.sql, [sample(2, 7, 'venue_history')])
    expect((await samples()).map((s) => [s.openInterest, s.oiSource, s.markPrice])).toEqual([[100, 'live', null], [50, 'venue_history', 64_000], [7, 'venue_history', 63_000]])
  })

  it('COPY (fresh history) stores the source as the upsert does', async () => {
    await reset()
    await writeSamples(db.sql, [sample(0, 3, 'venue_history'), sample(1, 4, 'live')], { fresh: true })
    expect((await samples()).map((s) => [s.openInterest, s.oiSource])).toEqual([[3, 'venue_history'], [4, 'live']])
  })

  it('a settled funding rate from the history endpoint does not replace a live one, a live one replaces it, in one batch or two', async () => {
    await reset()
    const read = () => readFunding(db.sql, { coins: ['BTC'], start: T, end: T + 1 })
    await writeFunding(db.sql, [funding(0.0001, 'live')])
    await writeFunding(db.sql, [funding(0.0002, 'venue_history')])
    expect((await read()).map((r) => [r.rate, r.source])).toEqual([[0.0001, 'live']])
    await reset()
    await writeFunding(db.sql, [funding(0.0002, 'venue_history')])
    await writeFunding(db.sql, [funding(0.0001, 'live')])
    expect((await read()).map((r) => [r.rate, r.source])).toEqual([[0.0001, 'live']])
    await reset()
    await writeFunding(db.sql, [funding(0.0001, 'live'), funding(0.0002, 'venue_history')])
    expect((await read()).map((r) => [r.rate, r.source])).toEqual([[0.0001, 'live']])
  })

  it('a positioning ratio from the history endpoint does not replace a live one, a live one replaces it', async () => {
    await reset()
    const read = () => readPositioning(db.sql, { coins: ['BTC'], start: T, end: T + 1 })
    await writePositioning(db.sql, [positioning(1.5, 'live')])
    await writePositioning(db.sql, [positioning(2, 'venue_history')])
    expect((await read()).map((r) => [r.ratio, r.source])).toEqual([[1.5, 'live']])
    await writePositioning(db.sql, [positioning(2, 'venue_history'), positioning(1.25, 'live')])
    expect((await read()).map((r) => [r.ratio, r.source])).toEqual([[1.25, 'live']])
    await reset()
    await writePositioning(db.sql, [positioning(2, 'venue_history')])
    await writePositioning(db.sql, [positioning(1.5, 'live')])
    expect((await read()).map((r) => [r.ratio, r.source])).toEqual([[1.5, 'live']])
  })
}

describe('sample provenance on the embedded store', () => {
  cases(() => openTestStore())

  itAll('rows of one slot merged in memory: a history open interest does not take a live one\'s place', () => {
    expect(mergeSamples([sample(0, 100, 'live', 1), sample(0, 101, 'venue_history', 2)]).map((s) => [s.openInterest, s.oiSource, s.markPrice])).toEqual([[100, 'live', 2]])
    expect(mergeSamples([sample(0, 101, 'venue_history'), sample(0, 100, 'live')]).map((s) => [s.openInterest, s.oiSource])).toEqual([[100, 'live']])
  })

  itAll('the ingest pipeline stores each event\'s source, live when the event names none', async () => {
    const t = await startTestService({ clock: () => T + HOUR })
    try {
      const ingest = new Ingest({ db: t.services.db, market: t.services.market, trackLive: false })
      const base = { exchange: 'bybit', coin: 'ETH', marketType: 'perp' } as const
      ingest.emit({ ...base, type: 'open_interest', ts: T + 10_000, openInterest: 5, source: 'venue_history' })
      ingest.emit({ ...base, type: 'open_interest', ts: T + 70_000, openInterest: 6 })
      ingest.emit({ ...base, type: 'funding', ts: T, rate: 0.0003, intervalHours: 8, source: 'venue_history' })
      ingest.emit({ ...base, type: 'funding', ts: T + 8 * HOUR, rate: 0.0004, intervalHours: 8 })
      ingest.emit({ ...base, type: 'positioning', kind: 'account', ts: T, longShare: 0.6, shortShare: 0.4, ratio: 1.5, periodMs: 300_000, source: 'venue_history' })
      ingest.emit({ ...base, type: 'positioning', kind: 'account', ts: T + 300_000, longShare: 0.5, shortShare: 0.5, ratio: 1, periodMs: 300_000 })
      ingest.advance(T + 10 * MINUTE_MS)
      await ingest.flush({ final: true })
      const sql = t.services.db.sql
      const oi = await readSamples(sql, { coins: ['ETH'], marketType: 'perp', start: T, end: T + HOUR })
      expect(oi.filter((s) => s.openInterest !== null).map((s) => [s.ts, s.openInterest, s.oiSource])).toEqual([[T, 5, 'venue_history'], [T + MINUTE_MS, 6, 'live']])
      expect((await readFunding(sql, { coins: ['ETH'], start: T, end: T + 9 * HOUR })).map((r) => [r.ts, r.source])).toEqual([[T, 'venue_history'], [T + 8 * HOUR, 'live']])
      expect((await readPositioning(sql, { coins: ['ETH'], start: T, end: T + HOUR })).map((r) => [r.ts, r.source])).toEqual([[T, 'venue_history'], [T + 300_000, 'live']])
    } finally {
      await t.close()
    }
  }, 60_000)
})

describe('sample provenance on PostgreSQL', () => {
  let schema: Awaited<ReturnType<typeof freshSchema>> | undefined
  let up = false
  beforeAll(async () => {
    up = await requirePostgresInCi()
    if (up) schema = await freshSchema('sample_provenance')
  })
  afterAll(async () => {
    await schema?.drop()
  })
  cases(async () => (up ? openDatabase({ kind: 'postgres', url: schema!.url }, { migrate: true }) : null))
})
