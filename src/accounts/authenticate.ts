// Bearer key → account. Missing, malformed, unknown and revoked keys are all the same 401 to the caller.
import type { Sql } from '../store/database.js'
import { unauthorized } from '../errors.js'
import { bearerToken, hashesEqual, hashKey, isWellFormedKey } from './api-keys.js'

export interface Principal {
  accountId: string
  keyId: string
  credits: number
}

const LOOKUP_SQL = `
SELECT k.id AS key_id, k.hash, k.revoked_at, k.last_used_at, a.id AS account_id, a.credits
FROM api_key k JOIN account a ON a.id = k.account_id
WHERE k.hash = $1`

/** last_used_at is refreshed at most this often per key (it is informational; a write per call would cost) */
const LAST_USED_RESOLUTION_MS = 60_000

export async function authenticate(sql: Pick<Sql, 'query'>, authorization: string | undefined, now = Date.now()): Promise<Principal> {
  const token = bearerToken(authorization)
  if (!token) throw unauthorized(authorization ? 'The Authorization header must be "Bearer <key>".' : undefined)
  if (!isWellFormedKey(token)) throw unauthorized('The API key is not valid.')
  const hash = hashKey(token)
  const rows = await sql.query<{ key_id: string; hash: string; revoked_at: Date | null; last_used_at: Date | string | null; account_id: string; credits: number }>(LOOKUP_SQL, [hash])
  const row = rows[0]
  // the index lookup is by hash; re-compare in constant time so no code path branches on partial matches
  if (!row || !hashesEqual(row.hash, hash)) throw unauthorized('The API key is not valid.')
  if (row.revoked_at) throw unauthorized('The API key has been revoked.')
  const lastUsed = row.last_used_at ? new Date(row.last_used_at).getTime() : 0
  // written before the call goes on (once a minute per key at most), so the call itself (a list of keys, say) reads
  // it: fired and forgotten, it raced that call's own read; a failed write costs the call nothing
  if (now - lastUsed > LAST_USED_RESOLUTION_MS)
    await sql.query('UPDATE api_key SET last_used_at = $2 WHERE id = $1', [row.key_id, new Date(now)]).catch(() => {})
  return { accountId: row.account_id, keyId: row.key_id, credits: Number(row.credits) }
}
