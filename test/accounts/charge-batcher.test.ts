import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ChargeBatcher } from '../../src/accounts/charge-batcher.js'
import { startTestService, type TestService } from '../helpers/service.js'

// Group commit must give exactly what charging one by one, in arrival order, gives.
describe('ChargeBatcher (group commit)', () => {
  let t: TestService
  beforeAll(async () => {
    t = await startTestService()
  })
  afterAll(() => t.close())

  it('one statement for a burst; per account the same outcome as sequential charging', async () => {
    const a = await t.signup()
    const b = await t.signup()
    await t.setCredits(a.accountId, 10)
    await t.setCredits(b.accountId, 100)
    const batcher = new ChargeBatcher(t.services.db.sql)
    // a: 3 + 5 + 4 + 2 = 14 > 10: sequentially 3 (7 left), 5 (2 left), 4 refused, 2 (0 left)
    const costsA = [3, 5, 4, 2]
    const costsB = [10, 20, 30]
    const results = await Promise.all([
      ...costsA.map((cost, i) => batcher.charge({ accountId: a.accountId, keyId: a.keyId, cost, endpoint: '/x', requestId: `a${i}` })),
      ...costsB.map((cost, i) => batcher.charge({ accountId: b.accountId, keyId: b.keyId, cost, endpoint: '/x', requestId: `b${i}` })),
    ])
    expect(results.slice(0, 4)).toEqual([
      { ok: true, remaining: 7 },
      { ok: true, remaining: 2 },
      { ok: false, reason: 'insufficient', remaining: 2 },
      { ok: true, remaining: 0 },
    ])
    expect(results.slice(4)).toEqual([
      { ok: true, remaining: 90 },
      { ok: true, remaining: 70 },
      { ok: true, remaining: 40 },
    ])
    expect(batcher.batches).toBe(1)
    const ledger = await t.services.db.sql.query<{ request_id: string; delta: number; balance_after: number }>(
      `SELECT request_id, delta, balance_after FROM credit_ledger WHERE kind = 'charge' AND account_id = ANY($1::uuid[]) ORDER BY id`,
      [[a.accountId, b.accountId]],
    )
    expect(ledger.filter((l) => l.request_id.startsWith('b'))).toEqual([
      { request_id: 'b0', delta: -10, balance_after: 90 },
      { request_id: 'b1', delta: -20, balance_after: 70 },
      { request_id: 'b2', delta: -30, balance_after: 40 },
    ])
    expect(ledger.filter((l) => l.request_id.startsWith('a')).map((l) => [l.request_id, l.balance_after])).toEqual([
      ['a0', 7],
      ['a1', 2],
      ['a3', 0],
    ])
  })

  it('a revoked key is refused inside the statement, whatever a cache believed', async () => {
    const a = await t.signup()
    await t.services.db.sql.query('INSERT INTO api_key (id, account_id, name, prefix, hash) VALUES (gen_random_uuid(), $1, $2, $3, $4)', [a.accountId, 'second', 'pa_x', 'f'.repeat(64)])
    await t.services.db.sql.query('UPDATE api_key SET revoked_at = now() WHERE id = $1', [a.keyId])
    const batcher = new ChargeBatcher(t.services.db.sql)
    const [r1, r2] = await Promise.all([
      batcher.charge({ accountId: a.accountId, keyId: a.keyId, cost: 1, endpoint: '/x', requestId: 'r1' }),
      batcher.charge({ accountId: a.accountId, keyId: a.keyId, cost: 2, endpoint: '/x', requestId: 'r2' }),
    ])
    expect([r1, r2]).toEqual([{ ok: false, reason: 'revoked' }, { ok: false, reason: 'revoked' }])
    const [acct] = await t.services.db.sql.query<{ credits: number }>('SELECT credits FROM account WHERE id = $1', [a.accountId])
    expect(acct!.credits).toBe(1000)
  })
})
