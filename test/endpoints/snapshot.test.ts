// /v1/signals/snapshot computed ahead (issue 32, item 3): after a data tick the snapshot is computed before anyone
// asks, with the other all-coins views, so a caller after the tick is served it without a computation of its own;
// what it is served equals a direct computation at the same moment.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import type * as analytics from '../../src/analytics/snapshot.js'
import type { computeSnapshot as ComputeSnapshot } from '../../src/endpoints/snapshot.js'
import { TEST_NOW } from '../helpers/market.js'
import type { TestService } from '../helpers/service.js'
import { callOk, type Json } from '../rest/markets/helpers.js'
import { snakeDeep } from '../rest/signals/helpers.js'

// every computation of the snapshot ends in one buildSnapshot: counted, the computation itself unchanged
vi.mock('../../src/analytics/snapshot.js', async (original) => {
  const m = await original<typeof analytics>()
  return { ...m, buildSnapshot: vi.fn(m.buildSnapshot) }
})
let buildSnapshot: typeof analytics.buildSnapshot
let computeSnapshot: typeof ComputeSnapshot
const computations = () => vi.mocked(buildSnapshot).mock.calls.length

let now = TEST_NOW
let t: TestService
let acct: { apiKey: string; accountId: string }

beforeAll(async () => {
  // the suite's files share their worker's modules (isolate: false): an earlier file may have loaded the service
  // without the mock, so this file loads its own copy of the module graph, through the mock
  vi.resetModules()
  ;({ buildSnapshot } = await import('../../src/analytics/snapshot.js'))
  ;({ computeSnapshot } = await import('../../src/endpoints/snapshot.js'))
  const { startTestService } = await import('../helpers/service.js')
  const { seedMarket } = await import('../helpers/market.js')
  t = await startTestService({ clock: () => now })
  await seedMarket(t, { hours: 6, coins: ['BTC', 'ETH'] })
  // the seeded live values are a version now (else the service's first tick would make them one in the middle of the test)
  t.services.market.live.tick()
  acct = await t.signup()
  await t.setCredits(acct.accountId, 10_000)
}, 120_000)
afterAll(() => t?.close())

describe('snapshot computed ahead on the data tick', () => {
  it('after a tick the new snapshot is computed before the call; the call computes nothing and gets what a direct computation gives', async () => {
    const first = (await callOk(t, acct, '/v1/signals/snapshot', 10)).data
    expect(computations()).toBe(1)
    expect((await callOk(t, acct, '/v1/signals/snapshot', 10)).data.computed_at, 'no data moved: the same one').toBe(first.computed_at)
    expect(computations()).toBe(1)

    // a data tick: one open-interest sample applied to the hot series (one change, as a flush makes), 1 s later (within
    // the refresh period, so only the data moving starts a computation, not the clock at the service's own next tick)
    now = first.computed_at + 1_000
    const market = t.services.market
    const oi = market.live.openInterest.get('binance:BTC:perp')!
    market.series.apply({ samples: [{ exchange: 'binance', coin: 'BTC', marketType: 'perp', ts: now - 500, markPrice: null, indexPrice: null, lastPrice: null, fundingRate: null, fundingIntervalHours: null, nextFundingTime: null, openInterest: oi.openInterest * 1.02 }] }, now)
    // computed ahead, nobody asking
    await vi.waitFor(() => expect(computations()).toBe(2), { timeout: 5000, interval: 5 })

    const served = (await callOk(t, acct, '/v1/signals/snapshot', 10)).data
    expect(computations(), 'the call after the tick computed nothing').toBe(2)
    expect(served.computed_at).toBe(now)
    expect(served.as_of).toBe(now)
    const direct = await computeSnapshot(t.services, now)
    // (the service's own tick may have started another precomputation meanwhile: nothing to do with the call)
    expect(computations()).toBeGreaterThanOrEqual(3)
    expect(direct.version, 'the direct computation reads the same data').toBe(t.services.market.series.version)
    // every value served, as computed directly (the REST names of the same fields)
    expect(snakeDeep(JSON.parse(JSON.stringify(direct))) as Json).toMatchObject(served)
    expect(served.coins.length).toBeGreaterThan(0)
  })
})
