// Credits: every movement is one SQL statement that changes the balance and writes its ledger row together.
// A charge is a conditional UPDATE (credits >= cost) — never read-then-write — so concurrent calls can
// neither overdraw the account nor double-spend; the CHECK (credits >= 0) constraint backs it up.
import type { Sql } from '../store/database.js'

export interface Charge {
  accountId: string
  keyId: string | null
  cost: number
  endpoint: string
  requestId: string
}

export type ChargeResult = { ok: true; remaining: number } | { ok: false; remaining: number }

const CHARGE_SQL = `
WITH upd AS (
  UPDATE account SET credits = credits - $2 WHERE id = $1 AND credits >= $2 RETURNING id, credits
)
INSERT INTO credit_ledger (account_id, delta, balance_after, kind, endpoint, request_id, key_id)
SELECT id, -$2::int, credits, 'charge', $3, $4, $5 FROM upd
RETURNING balance_after`

export async function charge(sql: Pick<Sql, 'query'>, c: Charge): Promise<ChargeResult> {
  if (!Number.isInteger(c.cost) || c.cost <= 0) throw new RangeError(`charge of ${c.cost} credits`)
  const rows = await sql.query<{ balance_after: number }>(CHARGE_SQL, [c.accountId, c.cost, c.endpoint, c.requestId, c.keyId])
  if (rows.length === 1) return { ok: true, remaining: Number(rows[0]!.balance_after) }
  return { ok: false, remaining: await balance(sql, c.accountId) }
}

const GRANT_SQL = `
WITH upd AS (
  UPDATE account SET credits = credits + $2 WHERE id = $1 RETURNING id, credits
)
INSERT INTO credit_ledger (account_id, delta, balance_after, kind, endpoint, request_id)
SELECT id, $2::int, credits, $3, NULL, $4 FROM upd
RETURNING balance_after`

/** add credits (purchase, signup); returns the new balance, or null when the account does not exist */
export async function grant(sql: Pick<Sql, 'query'>, accountId: string, credits: number, kind: string, reference: string | null): Promise<number | null> {
  if (!Number.isInteger(credits) || credits <= 0) throw new RangeError(`grant of ${credits} credits`)
  const rows = await sql.query<{ balance_after: number }>(GRANT_SQL, [accountId, credits, kind, reference])
  return rows.length ? Number(rows[0]!.balance_after) : null
}

export async function balance(sql: Pick<Sql, 'query'>, accountId: string): Promise<number> {
  const rows = await sql.query<{ credits: number }>('SELECT credits FROM account WHERE id = $1', [accountId])
  return rows.length ? Number(rows[0]!.credits) : 0
}
