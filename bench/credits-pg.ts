// Charged calls per second on PostgreSQL through the credit model itself (CreditLeases: leases charged in memory, written by group commit before each answer),
// across 100 accounts and on one account, with the exactness checked afterwards; baseline: SELECT 1 round trips
// at the same concurrency on the same pool. Returns null when PostgreSQL is not reachable.
import { signup } from '../src/accounts/accounts.js'
import { CreditLeases } from '../src/accounts/credit-leases.js'
import { openDatabase } from '../src/store/database.js'
import { freshSchema, postgresAvailable } from '../test/helpers/postgres.js'

const CONCURRENCY = 256

async function pump(total: number, fn: (i: number) => Promise<unknown>): Promise<number> {
  let next = 0
  const t = performance.now()
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < total) await fn(next++)
  }))
  return total / ((performance.now() - t) / 1000)
}

export async function benchCredits(): Promise<{ manyAccounts: number; oneAccount: number; selectOne: number; exact: boolean } | null> {
  if (!(await postgresAvailable())) return null
  const { url, drop } = await freshSchema('bench')
  const db = await openDatabase({ kind: 'postgres', url })
  try {
    const accounts: Awaited<ReturnType<typeof signup>>[] = []
    for (let i = 0; i < 100; i++) accounts.push(await signup(db, `b${i}@example.com`, 10_000_000))
    const batcher = new CreditLeases(db.sql, { autoRound: false })
    const selectOne = await pump(20_000, () => db.sql.query('SELECT 1'))
    const N = 30_000
    const manyAccounts = await pump(N, (i) => {
      const a = accounts[i % 100]!
      return batcher.charge({ accountId: a.accountId, keyId: a.keyId, cost: 1 + (i % 3), endpoint: '/bench', requestId: `m${i}` })
    })
    const one = accounts[0]!
    const oneAccount = await pump(10_000, (i) => batcher.charge({ accountId: one.accountId, keyId: one.keyId, cost: 1, endpoint: '/bench', requestId: `o${i}` }))
    // the unused leases handed back before the balances are compared
    await batcher.close()
    // exact: every balance equals its start minus its ledger, and the ledger has one row per charge
    const [check] = await db.sql.query<{ bad: number; rows: number }>(
      `SELECT count(*) FILTER (WHERE a.credits <> 10000000 + coalesce(l.s, 0))::int AS bad, (SELECT count(*)::int FROM credit_ledger WHERE kind = 'charge') AS rows
       FROM account a LEFT JOIN (SELECT account_id, sum(delta) AS s FROM credit_ledger WHERE kind <> 'signup' GROUP BY account_id) l ON l.account_id = a.id`,
    )
    return { manyAccounts, oneAccount, selectOne, exact: check!.bad === 0 && check!.rows === N + 10_000 }
  } finally {
    await db.close()
    await drop()
  }
}
