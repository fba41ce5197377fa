// The README's examples, run (issue 29, item 14): every `curl` of "Using it" and the GraphQL example, read from
// README.md itself, against the service in process on the simulator's data (a day and more of history and its live
// first half-minute, as a fresh `npm start` has), each answering 200 with data in it and charging the credits the
// README's table says.
import fs from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_NOW, seedMarket } from './helpers/market.js'
import { startTestService, type TestService } from './helpers/service.js'

type Json = any // eslint-disable-line @typescript-eslint/no-explicit-any

const README = fs.readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8')

/** the table's rows: | credits | `curl -H "$H" "$U/v1/…"` — … | */
const CALLS = [...README.matchAll(/^\| (\d+) \| `curl -H "\$H" "\$U(\/v1\/[^"]+)"`/gm)].map((m) => ({ credits: Number(m[1]), path: m[2]! }))
/** the GraphQL example's body: curl … $U/graphql -d '{…}' */
const GRAPHQL = /\$U\/graphql -d '([^']+)'/.exec(README)?.[1]

/** the list each payload is about: empty means the example shows nothing */
const LISTS = ['candles', 'levels', 'trades', 'orders', 'opportunities', 'coins', 'history', 'aggregate', 'phases', 'weighted', 'exchanges', 'markets']

/** the payload's lists that say whether it shows data (top level, and one object down: CVD's legs) */
function listsOf(data: Json): { name: string; items: unknown[] }[] {
  if (Array.isArray(data)) return [{ name: 'data', items: data }]
  const out: { name: string; items: unknown[] }[] = []
  for (const [k, v] of Object.entries(data ?? {})) {
    if (LISTS.includes(k) && Array.isArray(v)) out.push({ name: k, items: v })
    // what an answer says about its data (coverage, the cascade's calibration: which venues were scaled) is no data itself
    else if (v && typeof v === 'object' && !Array.isArray(v) && k !== 'coverage' && k !== 'calibration' && k !== 'liquidation_coverage')
      for (const [k2, v2] of Object.entries(v)) if (LISTS.includes(k2) && Array.isArray(v2)) out.push({ name: `${k}.${k2}`, items: v2 })
  }
  return out
}

describe('README examples', () => {
  let t: TestService
  let key: string
  beforeAll(async () => {
    t = await startTestService({ clock: () => TEST_NOW })
    // the coins the examples name; 30 h, so the regime (24 complete hours) has a history
    await seedMarket(t, { hours: 30, coins: ['BTC', 'ETH', 'SOL'], sampleEveryMs: 5 * 60_000 })
    const { accountId, apiKey } = await t.signup()
    await t.setCredits(accountId, 100_000)
    key = apiKey
  }, 180_000)
  afterAll(() => t?.close())

  it('the README has the examples this test reads', () => {
    expect(CALLS.length).toBeGreaterThanOrEqual(20)
    expect(GRAPHQL).toBeDefined()
  })

  it.each(CALLS.map((c) => [c.path, c] as const))('%s answers data, for the credits the README says', async (path, c) => {
    const res = await t.get(path, key)
    const body = (await res.json()) as Json
    expect(res.status, JSON.stringify(body).slice(0, 300)).toBe(200)
    expect(body.meta.credits_charged).toBe(c.credits)
    const lists = listsOf(body.data)
    expect(lists.length, `${path}: no list to tell data by`).toBeGreaterThan(0)
    for (const l of lists) expect(l.items.length, `${path}: ${l.name} is empty`).toBeGreaterThan(0)
  })

  it('the GraphQL example answers its candles and spread without errors', async () => {
    const res = await t.fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: GRAPHQL! })
    const body = (await res.json()) as Json
    expect(body.errors).toBeUndefined()
    expect(body.data.btc.candles.length).toBeGreaterThan(0)
    expect(typeof body.data.spread[0].spreadBps).toBe('number')
  })
})
