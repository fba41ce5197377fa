import { afterAll, describe, expect, it } from 'vitest'
import { freshSchema, requirePostgresInCi } from '../helpers/postgres.js'
import { expectProblem, startTestService, type TestService } from '../helpers/service.js'

// An account with credits for exactly N calls fires 3N calls at once: exactly N succeed, every other one
// gets 402 with the right fields, the ledger sums to the spend, and the balance ends at 0.
async function exactlyN(t: TestService, n: number) {
  const { apiKey, accountId } = await t.signup()
  await t.setCredits(accountId, n)
  await t.services.db.sql.query('DELETE FROM credit_ledger WHERE account_id = $1', [accountId])
  const responses = await Promise.all(Array.from({ length: 3 * n }, () => t.get('/v1/markets/exchanges', apiKey)))
  const ok = responses.filter((r) => r.status === 200)
  const refused = responses.filter((r) => r.status !== 200)
  expect(ok).toHaveLength(n)
  for (const r of refused) {
    const body = await expectProblem(r, 402, 'insufficient_credits')
    expect(body.credits_required).toBe(1)
    expect(body.credits_remaining).toBe(0)
    expect(r.headers.get('x-credits-charged')).toBe('0')
  }
  const remaining = ok.map((r) => Number(r.headers.get('x-credits-remaining'))).sort((a, b) => a - b)
  expect(remaining).toEqual(Array.from({ length: n }, (_, i) => i)) // each success saw a distinct balance
  const db = t.services.db.sql
  const [acct] = await db.query<{ credits: number }>('SELECT credits FROM account WHERE id = $1', [accountId])
  const [ledger] = await db.query<{ spent: number; rows: number; ids: number }>(
    `SELECT (-sum(delta))::int AS spent, count(*)::int AS rows, count(DISTINCT request_id)::int AS ids FROM credit_ledger WHERE account_id = $1 AND kind = 'charge'`,
    [accountId],
  )
  expect(acct!.credits).toBe(0)
  expect(ledger).toEqual({ spent: n, rows: n, ids: n })
}

describe('credits under concurrency', () => {
  const open: TestService[] = []
  afterAll(async () => {
    for (const t of open) await t.close()
  })

  it('embedded store: credits for exactly N calls, 3N parallel calls, exactly N succeed', async () => {
    const t = await startTestService()
    open.push(t)
    await exactlyN(t, 40)
  })

  it('PostgreSQL: credits for exactly N calls, 3N parallel calls, exactly N succeed', async (ctx) => {
    if (!(await requirePostgresInCi())) return ctx.skip()
    const { url, drop } = await freshSchema('credits')
    const t = await startTestService({ env: { DATABASE_URL: url } })
    try {
      await exactlyN(t, 60)
    } finally {
      await t.close()
      await drop()
    }
  })
})
