// Credits: every movement is one SQL statement that changes the balance and writes its ledger row together.
// Charges are taken from leases (blocks of the balance a node holds: conditional UPDATEs, credits - leased >= block)
// and written in batches by credit-leases.ts — never read-then-write — so concurrent calls on one node or many can
// neither overdraw the account nor double-spend; CHECK (credits >= 0) and CHECK (0 <= leased <= credits) back it up.
import type { Sql } from '../store/database.js'

export interface Charge {
  accountId: string
  keyId: string
  cost: number
  endpoint: string
  requestId: string
}

/** the largest balance an account can hold (a 32-bit column) */
export const MAX_BALANCE = 2_147_483_647

const GRANT_SQL = `
WITH upd AS (
  UPDATE account SET credits = credits + $2 WHERE id = $1 AND credits <= ${MAX_BALANCE} - $2 RETURNING id, credits
)
INSERT INTO credit_ledger (account_id, delta, balance_after, kind, endpoint, request_id)
SELECT id, $2::int, credits, $3, NULL, $4 FROM upd
RETURNING balance_after`

/** add credits (purchase, signup); returns the new balance, or null when the account does not exist or the grant would pass MAX_BALANCE */
export async function grant(sql: Pick<Sql, 'query'>, accountId: string, credits: number, kind: string, reference: string | null): Promise<number | null> {
  if (!Number.isInteger(credits) || credits <= 0) throw new RangeError(`grant of ${credits} credits`)
  const rows = await sql.query<{ balance_after: number }>(GRANT_SQL, [accountId, credits, kind, reference])
  return rows.length ? Number(rows[0]!.balance_after) : null
}

export async function balance(sql: Pick<Sql, 'query'>, accountId: string): Promise<number> {
  const rows = await sql.query<{ credits: number }>('SELECT credits FROM account WHERE id = $1', [accountId])
  return rows.length ? Number(rows[0]!.credits) : 0
}
