// Shared checks for the series endpoints (docs/contract.md#series): refused parameters, a fuzz of every parameter,
// paging through a window. Not a test file: the *.test.ts files in this folder import it.
import { expect } from 'vitest'
import type { TestService } from '../helpers/service.js'
import { balance, callBad, callOk, type Json } from '../rest/markets/helpers.js'

export { balance, callBad, callOk, type Json }
export type Account = { apiKey: string; accountId: string }

/** the refusals every series endpoint shares: each names its parameter and charges nothing */
export async function commonRefusals(t: TestService, acct: Account, path: string, now: number): Promise<void> {
  const q = (s: string) => `${path}?${s}`
  await callBad(t, acct, q('exchange=okx'), 'coin')
  await callBad(t, acct, q('coin=NOPE'), 'coin')
  await callBad(t, acct, q('coin=BTC&exchange=kraken'), 'exchange')
  await callBad(t, acct, q('coin=BTC&interval=2h'), 'interval')
  await callBad(t, acct, q('coin=BTC&lookback=3d'), 'lookback')
  await callBad(t, acct, q('coin=BTC&interval=1d&lookback=4h'), 'interval')
  await callBad(t, acct, q('coin=BTC&limit=0'), 'limit')
  await callBad(t, acct, q('coin=BTC&limit=5001'), 'limit')
  await callBad(t, acct, q('coin=BTC&limit=1.5'), 'limit')
  await callBad(t, acct, q('coin=BTC&start_time=yesterday'), 'start_time')
  await callBad(t, acct, q(`coin=BTC&lookback=4h&start_time=${now - 3_600_000}`), 'lookback')
  await callBad(t, acct, q(`coin=BTC&start_time=${now}&end_time=${now - 3_600_000}`), 'start_time')
  await callBad(t, acct, q(`coin=BTC&start_time=${now - 400 * 86_400_000}`), 'start_time')
  await callBad(t, acct, q('coin=BTC&end_time=-5'), 'end_time')
  await callBad(t, acct, q('coin=BTC&cursor=not-a-cursor'), 'cursor')
}

const GARBAGE = ['', ' ', '0', '-1', '1e309', 'NaN', 'Infinity', '9007199254740993', '1.5', 'null', 'undefined', 'true', '[]', '{}', '%00', "'; DROP TABLE account;--", '<script>', 'ééé', 'x'.repeat(300), '1h', '24h', 'binance', 'BTC', '2', '-0', '0x10', '1e3']

/** a small deterministic generator, so a failure can be replayed */
function rng(seed: number) {
  let s = seed >>> 0
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32)
}

/**
 * Every parameter with garbage and random values (alone and beside valid ones): never a 5xx, and nothing charged
 * unless the answer is 2xx (then exactly the cost).
 */
export async function fuzzParams(t: TestService, acct: Account, path: string, params: readonly string[], cost: number, rounds = 6): Promise<void> {
  const rand = rng(17)
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!
  const randomValue = () => (rand() < 0.6 ? pick(GARBAGE) : rand() < 0.5 ? String(Math.floor(rand() * 2e12) - 1e11) : Math.random().toString(36).slice(2))
  const cases: string[] = []
  for (const p of params) {
    for (const g of GARBAGE) cases.push(`coin=BTC&${p}=${encodeURIComponent(g)}`)
    for (let i = 0; i < rounds; i++) cases.push(`${p === 'coin' ? '' : 'coin=BTC&'}${p}=${encodeURIComponent(randomValue())}&${pick(params)}=${encodeURIComponent(randomValue())}`)
    cases.push(`coin=BTC&${p}=1&${p}=2`)
  }
  for (const c of cases) {
    const before = await balance(t, acct.accountId)
    const res = await t.get(`${path}?${c}`, acct.apiKey)
    const text = await res.text()
    expect(res.status, `${path}?${c}: ${text.slice(0, 300)}`).toBeLessThan(500)
    const spent = before - (await balance(t, acct.accountId))
    expect(spent, `${path}?${c} answered ${res.status}`).toBe(res.ok ? cost : 0)
    if (!res.ok) expect(res.headers.get('x-credits-charged')).toBe('0')
  }
}

/** every page of a series request joined: the data of each page, and the number of pages */
export async function allPages(t: TestService, acct: Account, path: string, cost: number, onPage?: () => void): Promise<{ pages: Json[]; window: [number, number] }> {
  const pages: Json[] = []
  let window: [number, number] | null = null
  let url = path
  for (;;) {
    const { data, meta } = await callOk(t, acct, url, cost)
    window ??= [data.start, data.end]
    expect([data.start, data.end], 'the cursor fixes the window').toEqual(window)
    pages.push(data)
    onPage?.()
    if (meta.next === null) break
    url = `${path}&cursor=${meta.next}`
    expect(pages.length).toBeLessThan(200)
  }
  return { pages, window: window! }
}
