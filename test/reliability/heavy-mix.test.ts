// The adversarial run's mix (issue 31, item 4): one key fires 20 heavy calls at once — the 90-day backtest, the
// liquidation heatmap over 365 days, the 1-minute funding history over a year — while another key polls the ticker.
// Before, every other caller's ticker went from p99 158 ms to 10.2 s. Now heavy calls queue per key and per node,
// store reads take turns with the event loop and the liquidation maps run on worker threads: the longest stretch the
// event loop is held during the whole mix stays under the documented 200 ms of CPU (CPU time, so a loaded machine does
// not fail it; the ticker's wall latencies against its idle baseline of the same run are printed), every ticker call is
// answered 200, and a burst past the key's depth is refused 429 with Retry-After, uncharged.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DATA_TICK_MS } from '../../src/read/state.js'
import { loopHeld } from '../helpers/event-loop.js'
import { TEST_NOW, seedMarket } from '../helpers/market.js'
import { startTestService, type TestService } from '../helpers/service.js'

/** docs/operations.md#the-event-loop */
const BOUND_MS = 200
const DAY = 86_400_000

let t: TestService
let now = TEST_NOW
let heavyKey: { apiKey: string; accountId: string }
let tickerKey: string

beforeAll(async () => {
  t = await startTestService({ clock: () => now })
  await seedMarket(t, { hours: 24 })
  heavyKey = await t.signup()
  await t.setCredits(heavyKey.accountId, 1_000_000)
  const ticker = await t.signup()
  // the ticker is polled one call after another for as long as the mix runs: a fast machine makes hundreds of calls,
  // more than a new account's credits cover (a 402 there would not be what this test is about)
  await t.setCredits(ticker.accountId, 1_000_000)
  tickerKey = ticker.apiKey
  // the code each call runs is loaded and compiled before anything is measured
  for (const p of mix(1)) await t.get(p, heavyKey.apiKey)
}, 600_000)
afterAll(() => t?.close())

/** n heavy calls in the proportions, no two alike (nothing served from another's cache) */
function mix(n: number): string[] {
  const end = Math.floor((now + DAY) / 60_000) * 60_000 - 60_000
  const calls = [
    (i: number) => `/v1/signals/backtest?coin=${['BTC', 'ETH', 'SOL'][i % 3]}&lookback=90d`,
    (i: number) => `/v1/liquidations/heatmap?coin=BTC&interval=1h&bins=${50 + i}&start_time=${end - 365 * DAY}&end_time=${end}`,
    (i: number) => `/v1/funding/history?coin=${['BTC', 'ETH', 'SOL'][i % 3]}&interval=1m&start_time=${end - 366 * DAY + i * 60_000}&end_time=${end}&limit=${1000 + i}`,
  ]
  return Array.from({ length: n }, (_, i) => calls[i % calls.length]!(i))
}

const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.max(0, Math.ceil(xs.length * 0.99) - 1)]!

/** the ticker polled one call after another by the other key until `until` settles; each call's wall time and status */
async function pollTicker(until: Promise<unknown>): Promise<{ ms: number[]; statuses: number[] }> {
  let done = false
  // settled either way (a .finally chain would carry `until`'s rejection on, where nothing handles it)
  const stop = () => void (done = true)
  void until.then(stop, stop)
  const ms: number[] = []
  const statuses: number[] = []
  while (!done) {
    const t0 = performance.now()
    const res = await t.get('/v1/markets/ticker', tickerKey)
    await res.arrayBuffer()
    ms.push(performance.now() - t0)
    statuses.push(res.status)
  }
  return { ms, statuses }
}

const charges = async (accountId: string) =>
  (await t.services.db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM credit_ledger WHERE account_id = $1 AND kind = 'charge'`, [accountId]))[0]!.n

describe('one key\'s heavy mix against another key\'s ticker', () => {
  it(`20 parallel heavy calls: the event loop is never held ${BOUND_MS} ms, the other key's ticker always answers`, async () => {
    // the ticker's idle baseline in this very run
    const idle = await pollTicker(new Promise((r) => setTimeout(r, 1500)))
    t.services.market.reader.bump('samples')
    now += 2 * DATA_TICK_MS + 1
    const held = await loopHeld(async () => {
      const heavy = Promise.all(mix(20).map(async (p) => {
        const res = await t.get(p, heavyKey.apiKey)
        await res.arrayBuffer()
        return res.status
      }))
      const [statuses, ticker] = await Promise.all([heavy, pollTicker(heavy)])
      return { statuses, ticker }
    })
    const { statuses, ticker } = held.result
    console.log(
      `heavy mix: event loop held at most ${held.cpuMs.toFixed(0)} ms of CPU (${held.wallMs.toFixed(0)} ms wall); ticker p99 ${p99(ticker.ms).toFixed(0)} ms over ${ticker.ms.length} calls ` +
        `during the mix against ${p99(idle.ms).toFixed(0)} ms idle (${(p99(ticker.ms) / Math.max(1, p99(idle.ms))).toFixed(1)}×)`,
    )
    // the 20 are within the key's depth (4 admitted + 16 waiting): all answered
    expect(statuses).toEqual(statuses.map(() => 200))
    expect(ticker.statuses.every((s) => s === 200)).toBe(true)
    expect(ticker.ms.length).toBeGreaterThan(5)
    expect(held.cpuMs, `the event loop was held ${held.cpuMs.toFixed(0)} ms of CPU in one stretch`).toBeLessThan(BOUND_MS)
  })

  it('past the key\'s depth: 429 with Retry-After, nothing charged; the other key\'s ticker answers meanwhile', async () => {
    now += 2 * DATA_TICK_MS + 1
    const before = await charges(heavyKey.accountId)
    const answers = await Promise.all(mix(30).map(async (p) => {
      const res = await t.get(p, heavyKey.apiKey)
      const body = (await res.json()) as { code?: string; scope?: string }
      return { status: res.status, retryAfter: res.headers.get('retry-after'), charged: res.headers.get('x-credits-charged'), body }
    }).concat([t.get('/v1/markets/ticker', tickerKey).then((r) => ({ status: r.status, retryAfter: null, charged: r.headers.get('x-credits-charged'), body: {} }))]))
    const ticker = answers.pop()!
    expect(ticker.status).toBe(200)
    const refused = answers.filter((a) => a.status === 429)
    expect(answers.every((a) => a.status === 200 || a.status === 429)).toBe(true)
    // 30 at once: at most 20 (4 admitted, 16 waiting) are taken while none has finished
    expect(refused.length).toBeGreaterThan(0)
    for (const r of refused) {
      expect(r.body).toMatchObject({ code: 'rate_limited', scope: 'key' })
      expect(r.retryAfter).toMatch(/^[1-9]\d*$/)
      expect(r.charged).toBe('0')
    }
    expect(await charges(heavyKey.accountId)).toBe(before + answers.length - refused.length)
  })
})
