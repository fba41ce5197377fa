// Each flush says from which time on it wrote each kind (Written.from), which is what keeps memoized reads of older
// rows alive (src/read/reader.ts): it must be the earliest row written, hour rollups included, or reads go stale.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MINUTE_MS } from '../../src/domain/time.js'
import { runBackfill } from '../../src/ingest/backfill.js'
import type { Written } from '../../src/ingest/ingest.js'
import { MarketSimulator } from '../../src/sources/simulator/index.js'
import { startTestService, type TestService } from '../helpers/service.js'

const NOW = Date.UTC(2026, 4, 3, 2, 30, 20)
let t: TestService
beforeAll(async () => {
  t = await startTestService({ clock: () => NOW })
})
afterAll(() => t.close())

describe('Written.from', () => {
  it('is the earliest minute, hour rollup or sample written in each flush', async () => {
    const writes: Written[] = []
    await runBackfill({ db: t.services.db, market: t.services.market, source: new MarketSimulator({ seed: 3, coins: ['BTC'] }), sourceName: 'sim', now: NOW, days: 0.1, onWritten: (w) => writes.push(w) })
    expect(writes.length).toBeGreaterThan(0)
    const earliest = (rows: { ts: number }[]) => Math.min(...rows.map((r) => r.ts))
    for (const w of writes) {
      if (w.kinds.includes('candles')) {
        expect(w.from.candles).toBe(earliest([...w.minuteBars, ...w.hourBars]))
        // an hour's rollup is stamped at its hour: the flush reaches back to it
        if (w.hourBars.length) expect(w.from.candles! % (60 * MINUTE_MS)).toBe(0)
      } else expect(w.from.candles).toBeUndefined()
      if (w.kinds.includes('samples')) expect(w.from.samples).toBe(earliest(w.samples))
    }
    expect(writes.some((w) => w.hourBars.length > 0)).toBe(true)
  })
})
