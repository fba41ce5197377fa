// Every parameter of the four screener endpoints fuzzed (random, hostile and near-boundary values, alone and mixed):
// never a 5xx, and nothing charged on any answer that is not 2xx (the balance moves by the cost exactly on 200).
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_NOW, seedMarket } from '../../helpers/market.js'
import { startTestService, type TestService } from '../../helpers/service.js'
import { balance } from '../markets/helpers.js'

let t: TestService
let acct: { apiKey: string; accountId: string }

beforeAll(async () => {
  t = await startTestService({ clock: () => TEST_NOW })
  await seedMarket(t, { hours: 2, coins: ['BTC'] })
  acct = await t.signup()
  await t.setCredits(acct.accountId, 1_000_000)
}, 120_000)
afterAll(() => t.close())

const ENDPOINTS: { path: string; cost: number; params: string[]; valid: Record<string, string[]> }[] = [
  { path: '/v1/markets/overview', cost: 3, params: ['sort', 'order'], valid: { sort: ['price', 'funding_8h', 'COIN'], order: ['asc', 'DESC'] } },
  { path: '/v1/funding/arbitrage', cost: 5, params: ['coin', 'holding_hours'], valid: { coin: ['btc', 'ETH'], holding_hours: ['1', '8760', '24'] } },
  { path: '/v1/flow/large-trades', cost: 3, params: ['coin', 'exchange', 'min_usd', 'limit', 'cursor'], valid: { coin: ['BTC'], exchange: ['okx'], min_usd: ['100000', '2000000000'], limit: ['1', '5000'], cursor: [] } },
  { path: '/v1/signals/regime', cost: 3, params: ['coin', 'interval', 'lookback', 'start_time', 'end_time', 'limit', 'cursor'], valid: { coin: ['BTC'], interval: ['1h', '4h', '1d'], lookback: ['24h', '30d'], start_time: [String(TEST_NOW - 86_400_000)], end_time: [String(TEST_NOW)], limit: ['1', '5000'], cursor: [] } },
]

const NASTY = ['', ' ', '-1', '0', '1e3', '1.5', 'NaN', 'Infinity', '0x10', '9'.repeat(30), '2147483648', '%00', '<script>', "' OR 1=1 --", '[]', '{}', 'null', 'ü', '\u0000', 'a'.repeat(300), 'eyJhIjoxfQ', 'WzEsMiwzLCJrIl0']
const value = (valid: string[]) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...NASTY) },
    { weight: 2, arbitrary: fc.string({ maxLength: 20 }) },
    { weight: 1, arbitrary: fc.integer({ min: -1e9, max: 3e12 }).map(String) },
    { weight: valid.length ? 3 : 0, arbitrary: valid.length ? fc.constantFrom(...valid) : fc.constant('x') },
  )

describe('screener endpoints: parameter fuzz', () => {
  for (const e of ENDPOINTS)
    it(`${e.path}: no 5xx, charged only on 200`, async () => {
      const query = fc.array(fc.tuple(fc.constantFrom(...e.params, 'bogus'), fc.string({ maxLength: 1 })).chain(([name]) => value(e.valid[name] ?? []).map((v) => [name, v] as const)), { maxLength: 4 })
      await fc.assert(
        fc.asyncProperty(query, async (pairs) => {
          const qs = pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')
          const before = await balance(t, acct.accountId)
          const res = await t.get(`${e.path}${qs ? `?${qs}` : ''}`, acct.apiKey)
          await res.arrayBuffer()
          expect(res.status, `${e.path}?${qs}`).toBeLessThan(500)
          const spent = before - (await balance(t, acct.accountId))
          expect(spent, `${e.path}?${qs} (${res.status})`).toBe(res.status === 200 ? e.cost : 0)
          if (res.status !== 200) expect(res.headers.get('x-credits-charged')).toBe('0')
        }),
        { numRuns: 60 },
      )
    }, 120_000)
})
