// Kept answers (src/rest/shim.ts, Endpoint.answerVersion): a REST call with the same query at the same data version,
// within ANSWER_MAX_AGE_MS of the service's clock, is answered with the data written for an earlier call; each call
// is still authenticated and charged, and its envelope is its own. A new data version or the age bound ends it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ANSWER_MAX_AGE_MS } from '../../src/rest/shim.js'
import { TEST_NOW, seedMarket } from '../helpers/market.js'
import { startTestService, type TestService } from '../helpers/service.js'
import { balance, type Json } from './markets/helpers.js'

let now = TEST_NOW
let t: TestService
let acct: { apiKey: string; accountId: string }

beforeAll(async () => {
  t = await startTestService({ clock: () => now })
  await seedMarket(t, { hours: 1, coins: ['BTC', 'ETH'] })
  t.services.market.live.tick()
  acct = await t.signup()
  await t.setCredits(acct.accountId, 1_000)
}, 120_000)
afterAll(() => t?.close())

const ticker = async (query: string): Promise<{ body: Json; headers: Headers }> => {
  const res = await t.get(`/v1/markets/ticker${query}`, acct.apiKey)
  expect(res.status).toBe(200)
  return { body: (await res.json()) as Json, headers: res.headers }
}
const binanceMark = (body: Json, coin: string) => body.data.find((r: Json) => r.exchange === 'binance' && r.coin === coin)?.mark_price as number

/** a new Binance BTC perp mark in the live map, as a venue's ticker would bring it (not yet a new tick) */
function newMark(price: number): void {
  const live = t.services.market.live
  const id = 'binance:BTC:perp'
  const prev = live.tickers.get(id)!
  live.onTicker({ ...prev, ts: prev.ts + 1, markPrice: price })
}

describe('kept REST answers', () => {
  it('serves the written data again at the same data version, charging each call and giving each its own envelope', async () => {
    const first = await ticker('?coin=BTC')
    const before = await balance(t, acct.accountId)
    newMark(12_345.5)
    const second = await ticker('?coin=BTC')
    // the same data, written for the first call: the new mark arrived after the data version it was computed at
    expect(second.body.data).toEqual(first.body.data)
    expect(binanceMark(second.body, 'BTC')).not.toBe(12_345.5)
    // charged and enveloped as any call
    expect(second.headers.get('x-credits-charged')).toBe('1')
    expect(second.body.meta.credits_charged).toBe(1)
    expect(second.body.meta.request_id).not.toBe(first.body.meta.request_id)
    expect(await balance(t, acct.accountId)).toBe(before - 1)
    expect(second.body.meta.credits_remaining).toBe(before - 1)

    // another query is another answer
    expect((await ticker('?coin=ETH')).body.data.every((r: Json) => r.coin === 'ETH')).toBe(true)

    // the data tick makes the new mark a new version: computed again
    t.services.market.live.tick()
    expect(binanceMark((await ticker('?coin=BTC')).body, 'BTC')).toBe(12_345.5)
  })

  it('keeps an answer no longer than ANSWER_MAX_AGE_MS of the service clock, even when no tick came', async () => {
    const kept = await ticker('?coin=BTC')
    newMark(23_456.25)
    now += ANSWER_MAX_AGE_MS - 1
    expect((await ticker('?coin=BTC')).body.data).toEqual(kept.body.data)
    now += 2
    expect(binanceMark((await ticker('?coin=BTC')).body, 'BTC')).toBe(23_456.25)
  })

  it('keeps nothing for a failed call: a refused one is charged nothing and the next call is computed', async () => {
    await t.setCredits(acct.accountId, 0)
    const refused = await t.get('/v1/markets/ticker?coin=BTC', acct.apiKey)
    expect(refused.status).toBe(402)
    await t.setCredits(acct.accountId, 10)
    expect((await ticker('?coin=BTC')).body.meta.credits_remaining).toBe(9)
  })
})
