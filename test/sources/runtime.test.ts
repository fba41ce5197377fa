// The market runtime's `backfill` promise is the whole background backfill from the moment the runtime is started:
// read at once (before the turn of the event loop the backfill waits for, so the server can listen first), it
// resolves only when the history is written, and a runtime stopped in that very turn starts none.
import { afterEach, describe, expect, it } from 'vitest'
import { startMarketRuntime, type MarketRuntime } from '../../src/sources/runtime.js'
import { startTestService, type TestService } from '../helpers/service.js'

describe('market runtime backfill', () => {
  let t: TestService | null = null
  let runtime: MarketRuntime | null = null
  afterEach(async () => {
    await runtime?.stop()
    await t?.close()
    runtime = t = null
  })

  const count = async (s: TestService) => {
    const [r] = await s.services.db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM candle_1m WHERE coin = 'BTC' AND exchange = 'binance' AND market_type = 'perp'`)
    return r!.n
  }

  it('resolves, read right after the start, only when the history is written', async () => {
    t = await startTestService({ env: { SIM_COINS: 'BTC', BACKFILL_DAYS: '0.05' } })
    runtime = await startMarketRuntime(t.services)
    await runtime.backfill
    expect(t.services.market.backfill?.done).toBe(true)
    // 0.05 days = 72 minutes, all of them (bar the live feed's own) in the store
    expect(await count(t)).toBeGreaterThanOrEqual(71)
  })

  it('starts none when stopped in the turn before it', async () => {
    t = await startTestService({ env: { SIM_COINS: 'BTC', BACKFILL_DAYS: '0.05' } })
    runtime = await startMarketRuntime(t.services)
    const stopped = runtime.stop()
    await runtime.backfill
    await stopped
    runtime = null
    expect(t.services.market.backfill).toBeFalsy()
    expect(await count(t)).toBeLessThan(5)
  })
})
