import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from 'vitest'
import { CreditLeases, type LeaseOptions } from '../../src/accounts/credit-leases.js'
import type { Sql } from '../../src/store/database.js'
import { toApiError } from '../../src/errors.js'
import { startTestService, type TestService } from '../helpers/service.js'

// The lease logic on a real (embedded) store: nodes are CreditLeases with their own node ids on one database, rounds
// are driven by hand, the in-memory clock is a fake one, and store faults come from a wrapper around the store.
describe('CreditLeases', () => {
  let t: TestService
  beforeAll(async () => {
    t = await startTestService()
  })
  afterAll(() => t.close())

  /** the store, failing or hanging on demand */
  function faulty() {
    const sql = t.services.db.sql
    const state = { fail: false, hangMs: 0, statements: 0 }
    const run = async <T>(f: () => Promise<T>): Promise<T> => {
      state.statements++
      if (state.hangMs) await new Promise((r) => setTimeout(r, state.hangMs))
      if (state.fail) throw Object.assign(new Error('connection refused'), { code: 'ECONNREFUSED' })
      return f()
    }
    const store: Pick<Sql, 'query' | 'prepared'> = {
      query: (text, params) => run(() => sql.query(text, params)),
      prepared: (name, text, params) => run(() => sql.prepared(name, text, params)),
    }
    return { store, state }
  }
  const clock = { now: 1_000_000 }
  const node = (store: Pick<Sql, 'query' | 'prepared'> = t.services.db.sql, opts: LeaseOptions = {}) => new CreditLeases(store, { autoRound: false, clock: () => clock.now, ...opts })
  const charge = (n: CreditLeases, a: { accountId: string; keyId: string }, cost: number, requestId: string) =>
    n.charge({ accountId: a.accountId, keyId: a.keyId, cost, endpoint: '/x', requestId }).catch((e: unknown) => ({ status: toApiError(e).status }))
  /**
   * rounds every `ms` (as a node's own timer runs them) until stop(), which waits for those still running and fails
   * with a round's error: none is left running past the test, and none rejects where nothing handles it
   */
  function roundsEvery(ms: number, nodes: CreditLeases[]) {
    const pending = new Set<Promise<void>>()
    const timer = setInterval(() => {
      for (const n of nodes) {
        const p = n.round()
        pending.add(p)
        // a failed round stays in `pending`, for stop() to report
        void p.then(() => pending.delete(p), () => {})
      }
    }, ms)
    return {
      async stop() {
        clearInterval(timer)
        await Promise.all(pending)
      },
    }
  }
  async function account(id: string) {
    const [a] = await t.services.db.sql.query<{ credits: number; leased: number }>('SELECT credits, leased FROM account WHERE id = $1', [id])
    const leases = await t.services.db.sql.query<{ node_id: string; remaining: number }>('SELECT node_id, remaining FROM credit_lease WHERE account_id = $1', [id])
    const [l] = await t.services.db.sql.query<{ spent: number; rows: number }>(`SELECT coalesce(-sum(delta), 0)::int AS spent, count(*)::int AS rows FROM credit_ledger WHERE account_id = $1 AND kind = 'charge'`, [id])
    return { credits: Number(a!.credits), leased: Number(a!.leased), leases: leases.map((r) => ({ node: r.node_id, remaining: Number(r.remaining) })), spent: l!.spent, rows: l!.rows }
  }
  async function fresh(credits: number) {
    const a = await t.signup()
    await t.setCredits(a.accountId, credits)
    return a
  }

  it('one lease statement for a burst; charges in arrival order, written with their balances before each answer', async () => {
    const a = await fresh(10)
    const { store, state } = faulty()
    const n = node(store)
    // 3 + 5 + 4 + 2 = 14 > 10: 3 (7 left), 5 (2 left), 4 cannot be covered, 2 (0 left)
    const results = await Promise.all([3, 5, 4, 2].map((c, i) => charge(n, a, c, `a${i}`)))
    expect(results[0]).toEqual({ ok: true, remaining: 7 })
    expect(results[1]).toEqual({ ok: true, remaining: 2 })
    expect(results[3]).toEqual({ ok: true, remaining: 0 })
    // refused after the 2 took the rest: the truth when it is answered
    expect(results[2]).toMatchObject({ ok: false, reason: 'insufficient' })
    expect((results[2] as { remaining: number }).remaining).toBeLessThan(4)
    const ledger = await t.services.db.sql.query<{ request_id: string; balance_after: number }>(`SELECT request_id, balance_after FROM credit_ledger WHERE account_id = $1 AND kind = 'charge' ORDER BY id`, [a.accountId])
    expect(ledger.map((l) => [l.request_id, l.balance_after])).toEqual([['a0', 7], ['a1', 2], ['a3', 0]])
    expect(await account(a.accountId)).toMatchObject({ credits: 0, leased: 0, spent: 10, rows: 3 })
    // a lease, a batch, and the one lease attempt that found nothing: not one statement per call
    expect(state.statements).toBeLessThanOrEqual(4)
    await n.close()
  })

  it('the store holds what is leased; close writes what is pending and hands the unused part back', async () => {
    const a = await fresh(5000)
    const n = node(undefined, { block: 1000 })
    for (let i = 0; i < 10; i++) expect(await charge(n, a, 2, `b${i}`)).toEqual({ ok: true, remaining: 5000 - 2 * (i + 1) })
    expect(await account(a.accountId)).toMatchObject({ credits: 4980, leased: 980, leases: [{ node: n.nodeId, remaining: 980 }] })
    await n.close()
    expect(await account(a.accountId)).toMatchObject({ credits: 4980, leased: 0, leases: [], spent: 20, rows: 10 })
  })

  it('two nodes: a node that cannot cover a call asks the other for its lease back, and 402 only when no node holds any', async () => {
    const a = await fresh(10)
    const A = node()
    const B = node()
    expect(await charge(A, a, 3, 'c0')).toEqual({ ok: true, remaining: 7 })
    expect(await account(a.accountId)).toMatchObject({ leased: 7 })
    // B finds nothing unleased: it asks, A hands its 7 back at its next round, B leases them
    const rounds = roundsEvery(20, [A])
    try {
      expect(await charge(B, a, 5, 'c1')).toEqual({ ok: true, remaining: 2 })
      // what is left is 2, held by nobody once A handed it back: refused at once with the truth
      const refused = await charge(B, a, 5, 'c2')
      expect(refused).toEqual({ ok: false, reason: 'insufficient', remaining: 2 })
    } finally {
      await rounds.stop()
    }
    // A holds nothing now; it leases per call (contested), taking exactly what it needs
    expect(await charge(A, a, 2, 'c3')).toEqual({ ok: true, remaining: 0 })
    await Promise.all([A.close(), B.close()])
    expect(await account(a.accountId)).toMatchObject({ credits: 0, leased: 0, leases: [], spent: 10, rows: 3 })
  })

  it('many parallel charges over three nodes: exact spend, never below zero, one ledger row per success', async () => {
    const START = 500
    const a = await fresh(START)
    const nodes = [node(undefined, { block: 64 }), node(undefined, { block: 64 }), node(undefined, { block: 64 })]
    const rounds = roundsEvery(25, nodes)
    try {
      const results = await Promise.all(Array.from({ length: 400 }, (_, i) => charge(nodes[i % 3]!, a, 1 + (i % 4), `d${i}`).then((r) => ({ r, cost: 1 + (i % 4) }))))
      const ok = results.filter((x) => 'ok' in x.r && x.r.ok)
      const spent = ok.reduce((s, x) => s + x.cost, 0)
      expect(results.every((x) => 'ok' in x.r)).toBe(true)
      await Promise.all(nodes.map((n) => n.close()))
      const after = await account(a.accountId)
      expect(after).toMatchObject({ credits: START - spent, leased: 0, leases: [], spent, rows: ok.length })
      // every refusal came when no node could cover it: less is left than the cheapest refused call
      const refusedCosts = results.filter((x) => 'ok' in x.r && !x.r.ok).map((x) => x.cost)
      expect(refusedCosts.length).toBeGreaterThan(0)
      expect(after.credits).toBeLessThan(Math.min(...refusedCosts))
    } finally {
      await rounds.stop()
    }
  })

  it('idle: an account not charged for a while gets its unused lease back at the next round (fake clock)', async () => {
    const a = await fresh(100)
    const n = node()
    await charge(n, a, 1, 'e0')
    await n.round()
    expect((await account(a.accountId)).leased).toBe(99)
    clock.now += 6_000
    await n.round()
    expect(await account(a.accountId)).toMatchObject({ credits: 99, leased: 0, leases: [{ node: n.nodeId, remaining: 0 }] })
    // the emptied row goes at the node's next renewal (every 10 rounds)
    for (let i = 0; i < 10; i++) await n.round()
    expect(await account(a.accountId)).toMatchObject({ leases: [] })
    expect(n.held(a.accountId)).toEqual({ unused: 0, unwritten: 0 })
  })

  it('a node that crashed: its lease expires and any other node returns it to the account; answered-but-unwritten calls (memory) go unbilled, never charged twice', async () => {
    const a = await fresh(100)
    const crashed = node(undefined, { durability: 'memory', flushMs: 60_000 })
    // a crashed node's process is gone; this one lives on in the test worker, its flush timer set for a minute from
    // now, and retrying (on a store closed by then) every minute after: stopped once the test is over
    onTestFinished(() => crashed.close())
    expect(await charge(crashed, a, 4, 'f0')).toEqual({ ok: true, remaining: 96 })
    expect(await account(a.accountId)).toMatchObject({ credits: 100, leased: 100, rows: 0 })
    // the crash: no close, no more rounds; its lease runs out
    await t.services.db.sql.query(`UPDATE credit_lease SET expires_at = now() - interval '1 second' WHERE node_id = $1`, [crashed.nodeId])
    const other = node()
    await other.round()
    // the 4 credits of the unwritten call are the loss window (unbilled); nothing the caller had is lost
    expect(await account(a.accountId)).toMatchObject({ credits: 100, leased: 0, leases: [], rows: 0 })
    expect(await charge(other, a, 10, 'f1')).toEqual({ ok: true, remaining: 90 })
    await other.close()
  })

  it('memory: answered at once, written within the flush interval, each charge once', async () => {
    const a = await fresh(100)
    const n = node(undefined, { durability: 'memory', flushMs: 30 })
    const results = await Promise.all([1, 2, 3].map((c, i) => charge(n, a, c, `g${i}`)))
    expect(results).toEqual([{ ok: true, remaining: 99 }, { ok: true, remaining: 97 }, { ok: true, remaining: 94 }])
    // written by the flush a few intervals later (polled: a loaded machine runs the flush late)
    await vi.waitFor(async () => expect(await account(a.accountId)).toMatchObject({ credits: 94, spent: 6, rows: 3 }), { timeout: 2000, interval: 30 })
    await n.close()
    expect(await account(a.accountId)).toMatchObject({ credits: 94, leased: 0 })
  })

  it('memory: the balance told stays true across new leases taken while charges are still unwritten', async () => {
    const a = await fresh(100)
    const n = node(undefined, { durability: 'memory', flushMs: 60_000, block: 2 })
    const told = []
    for (let i = 0; i < 5; i++) told.push(await charge(n, a, 1, `m${i}`))
    expect(told).toEqual([99, 98, 97, 96, 95].map((remaining) => ({ ok: true, remaining })))
    await n.close()
    expect(await account(a.accountId)).toMatchObject({ credits: 95, leased: 0, spent: 5, rows: 5 })
  })

  it('store outage: an empty lease answers 503 and charges nothing; a failed write gives its credits back to the lease', async () => {
    const a = await fresh(100)
    const { store, state } = faulty()
    const n = node(store)
    state.fail = true
    expect(await charge(n, a, 5, 'h0')).toEqual({ status: 503 })
    expect(await account(a.accountId)).toMatchObject({ credits: 100, leased: 0, rows: 0 })
    state.fail = false
    expect(await charge(n, a, 5, 'h1')).toEqual({ ok: true, remaining: 95 })
    // the lease now covers the call, but its write fails: 503, nothing charged, the credits back in the lease
    state.fail = true
    expect(await charge(n, a, 5, 'h2')).toEqual({ status: 503 })
    expect(n.held(a.accountId)).toEqual({ unused: 95, unwritten: 0 })
    state.fail = false
    expect(await charge(n, a, 5, 'h3')).toEqual({ ok: true, remaining: 90 })
    await n.close()
    expect(await account(a.accountId)).toMatchObject({ credits: 90, leased: 0, spent: 10, rows: 2 })
  })

  it('a charge still queued at its bound (STORE_TIMEOUT_MS) answers 503 then, is never written, and its credits stay in the lease', async () => {
    const a = await fresh(100)
    const { store, state } = faulty()
    const n = node(store, { timeoutMs: 300 })
    expect(await charge(n, a, 1, 'i0')).toEqual({ ok: true, remaining: 99 })
    // the embedded store cannot bound a statement: the first write runs three bounds long, the second charge waits behind it
    state.hangMs = 900
    const first = charge(n, a, 1, 'i1')
    await new Promise((r) => setTimeout(r, 20))
    const t0 = performance.now()
    expect(await charge(n, a, 1, 'i2')).toEqual({ status: 503 })
    expect(performance.now() - t0).toBeLessThan(450)
    expect(await first).toEqual({ ok: true, remaining: 98 })
    state.hangMs = 0
    await n.close()
    expect(await account(a.accountId)).toMatchObject({ credits: 98, leased: 0, spent: 2, rows: 2 })
  })

  it('durable: a revoked key is refused at the write, whatever a cache believed; every round reports revocations', async () => {
    const a = await fresh(100)
    await t.services.db.sql.query('INSERT INTO api_key (id, account_id, name, prefix, hash) VALUES (gen_random_uuid(), $1, $2, $3, $4)', [a.accountId, 'second', 'pa_x', 'e'.repeat(64)])
    const revoked: string[] = []
    const n = node(undefined, { onRevoked: (ids) => revoked.push(...ids) })
    expect(await charge(n, a, 1, 'j0')).toEqual({ ok: true, remaining: 99 })
    await n.round()
    await t.services.db.sql.query('UPDATE api_key SET revoked_at = now() WHERE id = $1', [a.keyId])
    expect(await charge(n, a, 2, 'j1')).toEqual({ ok: false, reason: 'revoked' })
    await n.round()
    expect(revoked).toContain(a.keyId)
    await n.close()
    expect(await account(a.accountId)).toMatchObject({ credits: 99, leased: 0, spent: 1 })
  })

  it('a balance set by hand voids the leases of it: the node finds its own gone at its next write', async () => {
    const a = await fresh(100)
    const n = node()
    expect(await charge(n, a, 1, 'k0')).toEqual({ ok: true, remaining: 99 })
    await t.setCredits(a.accountId, 2)
    // the node still believes it holds 98: the write finds no lease, charges the unleased balance (2), and voids the rest
    expect(await charge(n, a, 2, 'k1')).toEqual({ ok: true, remaining: 0 })
    expect(n.held(a.accountId).unused).toBe(0)
    expect(await charge(n, a, 1, 'k2')).toEqual({ ok: false, reason: 'insufficient', remaining: 0 })
    await n.close()
  })
})
