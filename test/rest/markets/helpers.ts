// Shared checks for the REST contract tests of the market endpoints (docs/contract.md#envelope, #errors and #parameters).
// Not a test file: the *.test.ts files in this folder import it.
import { expect } from 'vitest'
import { expectProblem, type TestService } from '../../helpers/service.js'

export type Json = Record<string, any> // eslint-disable-line @typescript-eslint/no-explicit-any

export const EXCHANGES = ['binance', 'bybit', 'okx', 'hyperliquid', 'dydx'] as const
export const CEX = ['binance', 'bybit', 'okx'] as const
export const DEFAULT_COINS = ['ADA', 'AVAX', 'BNB', 'BTC', 'DOGE', 'DOT', 'ETH', 'LINK', 'LTC', 'SOL', 'SUI', 'XRP'] // sorted
export const MINUTE = 60_000
export const HOUR = 3_600_000

/** the account's balance straight from the store */
export async function balance(t: TestService, accountId: string): Promise<number> {
  const rows = await t.services.db.sql.query<{ credits: number }>('SELECT credits FROM account WHERE id = $1', [accountId])
  return Number(rows[0]!.credits)
}

/** a plausible Unix epoch in ms (2020..2030) that is an integer */
export function expectEpochMs(x: unknown, what = 'time'): void {
  expect(typeof x, `${what} is a JSON number`).toBe('number')
  expect(Number.isInteger(x), `${what} is an integer (epoch ms): ${x}`).toBe(true)
  expect(x as number).toBeGreaterThan(Date.UTC(2020, 0, 1))
  expect(x as number).toBeLessThan(Date.UTC(2030, 0, 1))
}

const SNAKE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/
/** every key at every depth is snake_case */
function expectSnakeCase(v: unknown, path = 'data'): void {
  if (Array.isArray(v)) return v.forEach((x, i) => expectSnakeCase(x, `${path}[${i}]`))
  if (v && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) {
      expect(k, `${path}.${k} is snake_case`).toMatch(SNAKE)
      expectSnakeCase(x, `${path}.${k}`)
    }
}

/** every number at every depth is finite (JSON has no NaN/Infinity, but a string "NaN" would slip through typing) */
function expectNoNumericStrings(v: unknown, path = 'data'): void {
  if (Array.isArray(v)) return v.forEach((x, i) => expectNoNumericStrings(x, `${path}[${i}]`))
  if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) expectNoNumericStrings(x, `${path}.${k}`)
  else if (typeof v === 'string') expect(/^-?\d+(\.\d+)?(e[+-]?\d+)?$|^(NaN|-?Infinity)$/i.test(v), `${path} is a number sent as a string: ${v}`).toBe(false)
}

export const sortedKeys = (o: Json) => Object.keys(o).sort()

/** |a - b| <= rel × max(|a|, |b|) (+ a tiny absolute floor for values near 0) */
export function expectClose(actual: number | null | undefined, expected: number, rel = 1e-9, what = ''): void {
  expect(typeof actual, `${what} is a number`).toBe('number')
  const tol = rel * Math.max(Math.abs(actual!), Math.abs(expected)) + 1e-12
  expect(Math.abs(actual! - expected), `${what}: ${actual} vs ${expected}`).toBeLessThanOrEqual(tol)
}

export interface Ok<T = Json> {
  res: Response
  data: T
  meta: Json
}

/**
 * A charged call: 200, JSON, envelope {data, meta{request_id, credits_charged, credits_remaining, as_of}},
 * headers X-Credits-Charged = cost, X-Credits-Remaining = meta.credits_remaining = balance after,
 * X-Request-Id = meta.request_id, and the balance dropped by exactly the cost.
 */
export async function callOk<T = Json>(t: TestService, acct: { apiKey: string; accountId: string }, path: string, cost: number): Promise<Ok<T>> {
  const before = await balance(t, acct.accountId)
  const res = await t.get(path, acct.apiKey)
  const text = await res.text()
  expect(res.status, `${path}: ${text.slice(0, 500)}`).toBe(200)
  expect(res.headers.get('content-type')).toMatch(/^application\/json/)
  const body = JSON.parse(text) as Json
  expect(sortedKeys(body)).toEqual(['data', 'meta'])
  const meta = body.meta as Json
  // paged endpoints add next (a cursor, or null on the last page)
  expect(sortedKeys(meta).filter((k) => k !== 'next')).toEqual(['as_of', 'credits_charged', 'credits_remaining', 'request_id'])
  if ('next' in meta) expect(meta.next === null || typeof meta.next === 'string').toBe(true)
  expect(typeof meta.request_id).toBe('string')
  expect(meta.request_id.length).toBeGreaterThan(0)
  expect(res.headers.get('x-request-id')).toBe(meta.request_id)
  expect(meta.credits_charged).toBe(cost)
  expect(res.headers.get('x-credits-charged')).toBe(String(cost))
  const after = await balance(t, acct.accountId)
  expect(before - after, `${path} charges exactly ${cost}`).toBe(cost)
  expect(meta.credits_remaining).toBe(after)
  expect(res.headers.get('x-credits-remaining')).toBe(String(after))
  expectEpochMs(meta.as_of, 'meta.as_of')
  expectSnakeCase(body.data)
  expectNoNumericStrings(body.data)
  return { res, data: body.data as T, meta }
}

/**
 * A refused call: 400 invalid_parameter (RFC 9457 problem+json) naming `parameter`, nothing charged:
 * balance unchanged, X-Credits-Charged 0, X-Credits-Remaining = balance, X-Request-Id = request_id.
 */
export async function callBad(t: TestService, acct: { apiKey: string; accountId: string }, path: string, parameter: string): Promise<Json> {
  const before = await balance(t, acct.accountId)
  const res = await t.get(path, acct.apiKey)
  const problem = (await expectProblem(res, 400, 'invalid_parameter')) as Json
  expect(problem.status).toBe(400)
  expect(problem.parameter).toBe(parameter)
  expect(typeof problem.detail).toBe('string')
  expect(res.headers.get('x-credits-charged')).toBe('0')
  expect(await balance(t, acct.accountId)).toBe(before)
  expect(res.headers.get('x-credits-remaining')).toBe(String(before))
  expect(res.headers.get('x-request-id')).toBeTruthy()
  return problem
}

/** reader memos are keyed on a version per kind of data: raw SQL edits in a test must invalidate them */
function bumpAll(t: TestService): void {
  for (const k of ['candles', 'samples', 'funding', 'books'] as const) t.services.market.reader.bump(k)
}

/**
 * Make `exchange` have no data at all for `coin`: its stored rows (every table) and its live ticker, OI and book.
 * Used to check that the exchange then shows up in `missing` with a reason.
 */
export async function removeExchangeData(t: TestService, exchange: string, coin: string): Promise<void> {
  const { sql } = t.services.db
  for (const table of ['candle_1m', 'candle_1h', 'market_sample', 'order_book', 'funding_rate'])
    await sql.query(`DELETE FROM ${table} WHERE exchange = $1 AND coin = $2`, [exchange, coin])
  const live = t.services.market.live
  for (const mt of ['perp', 'spot']) {
    live.tickers.delete(`${exchange}:${coin}:${mt}`)
    live.openInterest.delete(`${exchange}:${coin}:${mt}`)
    live.books.delete(`${exchange}:${coin}:${mt}`)
  }
  live.changedDirectly()
  await t.services.market.series.load(t.services.db, t.services.market.clock()) // the in-memory mirror, too
  bumpAll(t)
}

/** run fn while the live ticker `exchange:coin:perp` carries `patch`, then put the original back */
export async function withLiveTicker<T>(t: TestService, id: string, patch: Record<string, unknown>, fn: () => Promise<T>): Promise<T> {
  const tickers = t.services.market.live.tickers
  const original = tickers.get(id)
  if (!original) throw new Error(`no live ticker ${id}`)
  tickers.set(id, { ...original, ...patch })
  // views of every coin are computed per data tick (src/read/tick-views.ts): this change is one
  t.services.market.live.changedDirectly()
  try {
    return await fn()
  } finally {
    tickers.set(id, original)
    t.services.market.live.changedDirectly()
  }
}
