import { afterAll, describe, expect, it } from 'vitest'
import { TEST_NOW, seedMarket } from '../helpers/market.js'
import { freshSchema, requirePostgresInCi } from '../helpers/postgres.js'
import { startTestService, type TestService } from '../helpers/service.js'

// 500 parallel calls of mixed cost against a balance that covers only part of them, on real PostgreSQL:
// the successful calls' costs sum exactly to the spent balance, the ledger matches, the balance never goes
// negative, no call is charged twice, and every refused call got 402 with correct fields.
const CALLS: [string, number][] = [
  ['/v1/markets/exchanges', 1],
  ['/v1/markets/ticker?coin=BTC', 1],
  ['/v1/markets/ohlc?coin=BTC&lookback=4h', 2],
  ['/v1/structure/spread?coin=ETH', 3],
  ['/v1/oi/changes?coin=BTC', 3],
  ['/v1/flow/imbalance?coin=BTC', 5],
  ['/v1/signals/snapshot', 10],
]

describe('credits under concurrency on PostgreSQL', () => {
  let t: TestService | undefined
  let drop: (() => Promise<void>) | undefined
  afterAll(async () => {
    await t?.close()
    await drop?.()
  })

  it('500 parallel mixed-cost calls: exact spend, matching ledger, never negative, no double charge, correct 402s', async (ctx) => {
    if (!(await requirePostgresInCi())) return ctx.skip()
    const schema = await freshSchema('credits500')
    drop = schema.drop
    t = await startTestService({ env: { DATABASE_URL: schema.url }, clock: () => TEST_NOW })
    await seedMarket(t, { hours: 2, coins: ['BTC', 'ETH'] })
    const { apiKey, accountId } = await t.signup()
    const START = 900
    await t.setCredits(accountId, START)
    await t.services.db.sql.query('DELETE FROM credit_ledger WHERE account_id = $1', [accountId])
    const plan = Array.from({ length: 500 }, (_, i) => CALLS[(i * 7 + (i >> 3)) % CALLS.length]!)
    const total = plan.reduce((s, [, c]) => s + c, 0)
    expect(total).toBeGreaterThan(START) // only part can succeed

    const results = await Promise.all(
      plan.map(async ([path, cost]) => {
        const res = await t!.get(path, apiKey)
        const body = (await res.json()) as Record<string, unknown>
        return { path, cost, status: res.status, body, charged: Number(res.headers.get('x-credits-charged')), requestId: res.headers.get('x-request-id')! }
      }),
    )
    const ok = results.filter((r) => r.status === 200)
    const refused = results.filter((r) => r.status !== 200)
    for (const r of ok) expect(r.charged, r.path).toBe(r.cost)
    for (const r of refused) {
      expect(r.status, JSON.stringify(r.body)).toBe(402)
      expect(r.body).toMatchObject({ code: 'insufficient_credits', status: 402, credits_required: r.cost })
      expect(r.body.credits_remaining as number).toBeLessThan(r.cost)
      expect(r.body.credits_remaining as number).toBeGreaterThanOrEqual(0)
      expect(r.charged).toBe(0)
    }
    const spent = ok.reduce((s, r) => s + r.cost, 0)
    const sql = t.services.db.sql
    const [acct] = await sql.query<{ credits: number }>('SELECT credits FROM account WHERE id = $1', [accountId])
    const ledger = await sql.query<{ delta: number; balance_after: number; request_id: string }>(`SELECT delta, balance_after, request_id FROM credit_ledger WHERE account_id = $1 AND kind = 'charge' ORDER BY id`, [accountId])
    expect(acct!.credits).toBe(START - spent)
    expect(acct!.credits).toBeGreaterThanOrEqual(0)
    expect(-ledger.reduce((s, l) => s + l.delta, 0)).toBe(spent)
    expect(ledger.length).toBe(ok.length)
    expect(new Set(ledger.map((l) => l.request_id)).size).toBe(ledger.length) // no call charged twice
    expect(new Set(ledger.map((l) => l.request_id))).toEqual(new Set(ok.map((r) => r.requestId)))
    for (const l of ledger) expect(l.balance_after).toBeGreaterThanOrEqual(0)
    // the balances after each charge are distinct and walk down without gaps: START - cumulative spend
    const after = ledger.map((l) => l.balance_after)
    let bal = START
    for (const [i, l] of ledger.entries()) {
      bal += l.delta
      expect(after[i]).toBe(bal)
    }
    expect(refused.length).toBeGreaterThan(0)
  })
})
