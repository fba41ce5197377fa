import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ChargeBatcher } from '../../src/accounts/charge-batcher.js'
import type { Sql } from '../../src/store/database.js'
import { toApiError } from '../../src/errors.js'
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

  // issue 31, item 8: a charge that arrives while the batch before it is timing out used to wait for that batch's
  // bound and then its own (2 × STORE_TIMEOUT_MS). A store whose writes hang: every statement gives up after the bound
  // it runs under (the connection's, or the one the batcher asks for), as PostgreSQL's statement and lock timeouts do.
  describe('one bound per charge (STORE_TIMEOUT_MS)', () => {
    const T = 400
    /** `connectionBound`: what a statement sent without a bound of its own runs under */
    function hangingStore(connectionBound = T) {
      const sent: { bound: number; charges: number }[] = []
      let started: () => void = () => {}
      const inFlight = new Promise<void>((r) => (started = r))
      const hang = (bound: number, params: readonly unknown[] | undefined) => {
        sent.push({ bound, charges: Array.isArray(params?.[0]) ? (params[0] as unknown[]).length : 1 })
        started()
        return new Promise<never>((_, reject) => setTimeout(() => reject(Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' })), bound))
      }
      const sql: Pick<Sql, 'query' | 'prepared' | 'within'> = {
        query: (_text, params) => hang(connectionBound, params),
        prepared: (_name, _text, params) => hang(connectionBound, params),
        within: (ms) => ({ query: (_text, params) => hang(ms, params), prepared: (_name, _text, params) => hang(ms, params) }),
      }
      return { sql, sent, inFlight }
    }
    const charge = (b: ChargeBatcher, id: string) => {
      const t0 = performance.now()
      return b.charge({ accountId: 'a', keyId: 'k', cost: 1, endpoint: '/x', requestId: id }).then(
        (r) => ({ ok: r, ms: performance.now() - t0, status: 200 }),
        (e: unknown) => ({ ok: null, ms: performance.now() - t0, status: toApiError(e).status }),
      )
    }

    it('a charge queued behind a batch that is timing out answers 503 within one bound of its own start, not two', async () => {
      const store = hangingStore()
      const batcher = new ChargeBatcher(store.sql, { timeoutMs: T })
      const first = charge(batcher, 'first')
      await store.inFlight
      // arrives just after the first batch went out: it waits behind it
      const second = charge(batcher, 'second')
      const [a, b] = await Promise.all([first, second])
      expect([a.status, b.status]).toEqual([503, 503])
      expect(a.ms).toBeLessThan(1.5 * T)
      expect(b.ms, `the queued charge answered after ${b.ms.toFixed(0)} ms (bound ${T} ms)`).toBeLessThan(1.5 * T)
      // every batch ran under what was left of its earliest charge's bound
      for (const s of store.sent) expect(s.bound).toBeLessThanOrEqual(T)
      expect(store.sent[0]!.charges).toBe(1)
    })

    it('a charge still queued at its bound answers 503 then and is never sent, even behind a statement the store cannot bound', async () => {
      // the embedded store has no per-statement bound: here its statement runs three bounds long
      const store = hangingStore(3 * T)
      const { within: _within, ...plain } = store.sql
      const batcher = new ChargeBatcher(plain, { timeoutMs: T })
      const first = charge(batcher, 'first')
      await store.inFlight
      const b = await charge(batcher, 'second')
      expect(b.status).toBe(503)
      expect(b.ms).toBeLessThan(1.5 * T)
      expect((await first).status).toBe(503)
      expect(store.sent).toEqual([{ bound: 3 * T, charges: 1 }])
    })
  })
})

