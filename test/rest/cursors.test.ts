// Paging cursors under attack: the adversarial run's scripts (issue 31, item 1, and the liquidation orders' negative
// field). A cursor whose window was rewritten to years, one made up in the old unsigned form with its parameters'
// fingerprint copied, one taken to another endpoint, one holding a negative position: each is a 400 problem naming
// `cursor`, charged nothing, refused at once (the event loop is not held, /healthz answers meanwhile).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sealCursor } from '../../src/domain/cursor.js'
import { loopHeld } from '../helpers/event-loop.js'
import { TEST_NOW, seedMarket } from '../helpers/market.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { callBad, callOk, type Json } from './markets/helpers.js'

let t: TestService
let acct: { apiKey: string; accountId: string }

beforeAll(async () => {
  t = await startTestService({ clock: () => TEST_NOW })
  await seedMarket(t, { hours: 6, coins: ['BTC', 'ETH'] })
  acct = await t.signup()
  await t.setCredits(acct.accountId, 100_000)
})
afterAll(() => t.close())

const YEAR = 365 * 86_400_000
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url')
/** the parameters' fingerprint the unsigned cursors carried, as the adversary copied it: every parameter but limit and cursor, sorted, null when absent */
const fingerprint = (values: Record<string, unknown>) => JSON.stringify(Object.keys(values).sort().map((k) => [k, values[k] ?? null]))
const SERIES = { coin: 'BTC', end_time: null, exchange: null, interval: '1m', lookback: '24h', start_time: null }

/** a refused cursor: 400 on `cursor`, nothing charged, and the loop free (CPU held well under the bound of docs/operations.md) */
async function refusedAtOnce(path: string): Promise<Json> {
  const health = loopHeld(async () => (await t.fetch('/healthz')).status)
  const held = await loopHeld(() => callBad(t, acct, path, 'cursor'))
  expect((await health).result).toBe(200)
  expect(held.cpuMs, `${path} held the event loop ${held.cpuMs.toFixed(0)} ms of CPU`).toBeLessThan(100)
  return held.result
}

describe('a tampered cursor (issue 31, item 1)', () => {
  it('funding history: a real cursor\'s window rewritten to 1, 4 and 20 years, in the old unsigned form or with the real code kept, is refused at once', async () => {
    const base = '/v1/funding/history?coin=BTC&interval=1m&lookback=24h&limit=1'
    const { meta } = await callOk(t, acct, base, 3)
    const real = meta.next as string
    expect(typeof real).toBe('string')
    const [, tag] = real.split('.')
    for (const years of [1, 4, 20]) {
      const s = TEST_NOW - years * YEAR
      // the adversarial run's script: [start, end, next, fingerprint] in base64 JSON
      await refusedAtOnce(`${base}&cursor=${b64([s, TEST_NOW, s, fingerprint(SERIES)])}`)
      // the same window in the sealed form, the real cursor's code kept
      await refusedAtOnce(`${base}&cursor=${b64([s, TEST_NOW, s])}.${tag}`)
    }
    // the real cursor still pages
    const page2 = await callOk(t, acct, `${base}&cursor=${real}`, 3)
    expect(page2.data.start).toBe(TEST_NOW - 86_400_000)
  })

  it('the liquidation heatmap: a window rewritten to 20 years is refused at once', async () => {
    const base = '/v1/liquidations/heatmap?coin=BTC&lookback=24h&bins=10&limit=1'
    const { meta } = await callOk(t, acct, base, 10)
    const [, tag] = (meta.next as string).split('.')
    const s = TEST_NOW - 20 * YEAR
    const values = { bins: 10, coin: 'BTC', end_time: null, exchange: null, interval: '1h', lookback: '24h', range_pct: 20, start_time: null }
    await refusedAtOnce(`${base}&cursor=${b64([s, TEST_NOW, s, fingerprint(values)])}`)
    await refusedAtOnce(`${base}&cursor=${b64([s, TEST_NOW, s])}.${tag}`)
  })

  it('a cursor from one endpoint is refused by the five others taking the same parameters; the same endpoint takes it over GraphQL', async () => {
    const query = 'coin=BTC&interval=1m&lookback=24h&limit=1'
    const { meta } = await callOk(t, acct, `/v1/funding/history?${query}`, 3)
    for (const other of ['/v1/flow/cvd', '/v1/oi/history', '/v1/structure/basis', '/v1/liquidations/history', '/v1/positioning/long-short'])
      await refusedAtOnce(`${other}?${query}&cursor=${meta.next}`)
    const rest = await callOk(t, acct, `/v1/funding/history?${query}&cursor=${meta.next}`, 3)
    const gql = await t.graphql('query ($c: String) { fundingHistory(coin: "BTC", interval: M1, lookback: H24, limit: 1, cursor: $c) { start end next } }', { c: meta.next }, acct.apiKey)
    expect(gql.errors).toBeUndefined()
    expect(gql.data.fundingHistory).toEqual({ start: rest.data.start, end: rest.data.end, next: rest.meta.next })
  })

  it('GraphQL: a tampered cursor is invalid_parameter on cursor, nothing charged', async () => {
    const before = (await t.services.db.sql.query<{ credits: number }>('SELECT credits FROM account WHERE id = $1', [acct.accountId]))[0]!.credits
    const s = TEST_NOW - 20 * YEAR
    const res = await t.graphql('query ($c: String) { fundingHistory(coin: "BTC", interval: M1, lookback: H24, limit: 1, cursor: $c) { next } }', { c: b64([s, TEST_NOW, s, fingerprint(SERIES)]) }, acct.apiKey)
    expect(res.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_parameter', parameter: 'cursor' })
    const after = (await t.services.db.sql.query<{ credits: number }>('SELECT credits FROM account WHERE id = $1', [acct.accountId]))[0]!.credits
    expect(after).toBe(before)
  })
})

describe('large trades: the cursor holds the retention window and a row\'s seq', () => {
  it('a sealed cursor past the 7-day retention, ahead of now or with a negative seq is refused; a real one pages', async () => {
    const base = '/v1/flow/large-trades?min_usd=100000&limit=1'
    const { meta } = await callOk(t, acct, base, 3)
    expect(typeof meta.next).toBe('string')
    await callOk(t, acct, `${base}&cursor=${meta.next}`, 3)
    const scope = { mac: t.services.cursorMac, endpoint: 'largeTrades' }
    const parsed = { min_usd: 100_000 }
    const week = 7 * 86_400_000
    // the form is right: the retention window as of now, from the newest row on, pages
    await callOk(t, acct, `${base}&cursor=${sealCursor({ s: TEST_NOW - week, e: TEST_NOW, f: 2 ** 40 }, scope, parsed)}`, 3)
    for (const c of [{ s: TEST_NOW - 20 * YEAR, e: TEST_NOW, f: 1 }, { s: TEST_NOW - week - 2, e: TEST_NOW, f: 1 }, { s: TEST_NOW, e: TEST_NOW + 2 * 86_400_000, f: 1 }, { s: TEST_NOW - week, e: TEST_NOW, f: -1 }])
      await refusedAtOnce(`${base}&cursor=${sealCursor(c, scope, parsed)}`)
  })
})

describe('a liquidation orders cursor with a negative field (issue 31, LOW)', () => {
  const base = `/v1/liquidations/orders?coin=BTC&lookback=24h&limit=1`
  const values = { coin: 'BTC', end_time: null, exchange: null, lookback: '24h', min_usd: null, side: null, start_time: null }

  it('in the old unsigned form: 400 on cursor, not 500', async () => {
    const { meta } = await callOk(t, acct, base, 2)
    expect(meta.next).not.toBeNull()
    const [s, e] = [TEST_NOW - 86_400_000, TEST_NOW]
    for (const c of [[s, e, -1], [s, e, -4096 * 5], [-1, e, 0], [s, -1, 0]]) await refusedAtOnce(`${base}&cursor=${b64([...c, fingerprint(values)])}`)
  })

  it('sealed with the service\'s own key (as a leaked key could): the span rules still refuse it', async () => {
    const scope = { mac: t.services.cursorMac, endpoint: 'liquidationOrders' }
    const parsed = { coin: 'BTC', lookback: '24h' }
    const [s, e] = [TEST_NOW - 86_400_000, TEST_NOW]
    // the form is right: a position inside the window pages
    await callOk(t, acct, `${base}&cursor=${sealCursor({ s, e, f: (e - 3_600_000) * 4096 }, scope, parsed)}`, 2)
    for (const c of [{ s, e, f: -1 }, { s, e, f: (e + 1) * 4096 }, { s: -86_400_000, e: 0, f: 0 }, { s: e - 20 * YEAR, e, f: e * 4096 - 1 }])
      await refusedAtOnce(`${base}&cursor=${sealCursor(c, scope, parsed)}`)
  })
})
