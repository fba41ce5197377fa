// Accounts and their keys: signup, listing, creation and revocation. Costs no credits.
import { z } from 'zod'
import type { Database } from '../store/database.js'
import { ApiError, invalidParameter } from '../errors.js'
import { generateKey } from './api-keys.js'
import { normalizeEmail } from './email.js'

export interface KeyInfo {
  id: string
  name: string
  prefix: string
  createdAt: Date
  lastUsedAt: Date | null
  revokedAt: Date | null
}

export interface CreatedKey extends KeyInfo {
  /** the secret, shown this once */
  apiKey: string
}

const EmailSchema = z.string().trim().toLowerCase().max(254).pipe(z.email())
// printable text only: control characters (NUL above all) have no place in a label and PostgreSQL rejects NUL
const KeyNameSchema = z.string().trim().min(1).max(100).regex(/^[^\u0000-\u001f\u007f]+$/)
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

const keyInfo = (k: KeyInfo): KeyInfo => ({ id: k.id, name: k.name, prefix: k.prefix, createdAt: k.createdAt, lastUsedAt: k.lastUsedAt, revokedAt: k.revokedAt })

export async function signup(db: Database, rawEmail: unknown, trialCredits: number) {
  const parsed = EmailSchema.safeParse(rawEmail)
  if (!parsed.success) throw invalidParameter('email', 'email must be a valid email address, e.g. {"email": "you@example.com"}.')
  const email = parsed.data
  const key = generateKey()
  try {
    return await db.prisma.$transaction(async (tx) => {
      const account = await tx.account.create({ data: { email, emailNormalized: normalizeEmail(email), credits: trialCredits } })
      if (trialCredits > 0)
        await tx.creditLedger.create({ data: { accountId: account.id, delta: trialCredits, balanceAfter: trialCredits, kind: 'signup' } })
      const created = await tx.apiKey.create({ data: { accountId: account.id, name: 'default', prefix: key.prefix, hash: key.hash } })
      return { accountId: account.id, keyId: created.id, apiKey: key.secret, credits: account.credits, email }
    })
  } catch (e) {
    if ((e as { code?: string }).code === 'P2002')
      throw new ApiError('conflict', 'An account with this email already exists (addresses are compared without case, without a +tag, and for Gmail without dots).', { parameter: 'email' })
    throw e
  }
}

/** a key that authenticated belongs to an account that is gone (deleted meanwhile) */
export const accountGone = () => new ApiError('not_found', 'The account no longer exists.')

export async function getAccount(db: Database, accountId: string) {
  const a = await db.prisma.account.findUnique({ where: { id: accountId } })
  if (!a) throw accountGone()
  return { accountId: a.id, email: a.email, credits: a.credits, createdAt: a.createdAt }
}

export async function createKey(db: Database, accountId: string, rawName: unknown): Promise<CreatedKey> {
  const parsed = KeyNameSchema.safeParse(rawName)
  if (!parsed.success) throw invalidParameter('name', 'name must be a non-empty string of at most 100 printable characters, e.g. {"name": "trading-bot"}.')
  const key = generateKey()
  const created = await db.prisma.apiKey.create({ data: { accountId, name: parsed.data, prefix: key.prefix, hash: key.hash } })
  return { ...keyInfo(created), apiKey: key.secret }
}

/** the order keys are listed in: oldest first */
export const KEY_ORDER = [{ createdAt: 'asc' }, { id: 'asc' }] as const

export async function listKeys(db: Database, accountId: string): Promise<KeyInfo[]> {
  const keys = await db.prisma.apiKey.findMany({ where: { accountId }, orderBy: [...KEY_ORDER] })
  return keys.map(keyInfo)
}

/**
 * Revoke one of the caller's keys. Another account's key, or no such key → 404 (existence is not revealed);
 * the account's last active key → 409; an already revoked key → returned unchanged (idempotent).
 * The account row is locked so two concurrent revocations cannot leave the account with no active key.
 */
export async function revokeKey(db: Database, accountId: string, keyId: string): Promise<KeyInfo> {
  const shown = keyId.length > 40 ? `${keyId.slice(0, 40)}…` : keyId
  const notFound = () => new ApiError('not_found', `No key with id "${shown}" belongs to this account.`, { parameter: 'key_id' })
  if (!UUID.test(keyId)) throw notFound()
  return db.sql.transaction(async (tx) => {
    await tx.query('SELECT id FROM account WHERE id = $1 FOR UPDATE', [accountId])
    const rows = await tx.query<{ id: string; revoked_at: Date | null }>('SELECT id, revoked_at FROM api_key WHERE id = $1 AND account_id = $2', [keyId, accountId])
    if (!rows.length) throw notFound()
    if (!rows[0]!.revoked_at) {
      const active = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM api_key WHERE account_id = $1 AND revoked_at IS NULL', [accountId])
      if (Number(active[0]!.n) <= 1) throw new ApiError('conflict', 'This is the account\'s last active key; create another key before revoking it.', { parameter: 'key_id' })
      await tx.query('UPDATE api_key SET revoked_at = now() WHERE id = $1', [keyId])
    }
    const [k] = await tx.query<{ id: string; name: string; prefix: string; created_at: Date; last_used_at: Date | null; revoked_at: Date | null }>(
      'SELECT id, name, prefix, created_at, last_used_at, revoked_at FROM api_key WHERE id = $1',
      [keyId],
    )
    return { id: k!.id, name: k!.name, prefix: k!.prefix, createdAt: new Date(k!.created_at), lastUsedAt: k!.last_used_at && new Date(k!.last_used_at), revokedAt: k!.revoked_at && new Date(k!.revoked_at) }
  })
}

export interface Usage {
  days: number
  since: Date
  totalCredits: number
  calls: number
  byEndpoint: { endpoint: string; calls: number; credits: number }[]
  byDay: { day: Date; calls: number; credits: number }[]
  recent: { ts: Date; endpoint: string; credits: number; requestId: string | null; keyId: string | null }[]
}

export async function usage(db: Database, accountId: string, days: number, now = new Date()): Promise<Usage> {
  const since = new Date(now.getTime() - days * 86_400_000)
  const q = db.sql.query.bind(db.sql)
  const [byEndpoint, byDay, recent] = await Promise.all([
    q<{ endpoint: string; calls: number; credits: number }>(
      `SELECT endpoint, count(*)::int AS calls, (-sum(delta))::int AS credits FROM credit_ledger
       WHERE account_id = $1 AND kind = 'charge' AND created_at >= $2 GROUP BY endpoint ORDER BY credits DESC, endpoint`,
      [accountId, since],
    ),
    q<{ day_ms: number; calls: number; credits: number }>(
      `SELECT (extract(epoch FROM date_trunc('day', created_at AT TIME ZONE 'UTC')) * 1000)::float8 AS day_ms, count(*)::int AS calls, (-sum(delta))::int AS credits FROM credit_ledger
       WHERE account_id = $1 AND kind = 'charge' AND created_at >= $2 GROUP BY 1 ORDER BY 1`,
      [accountId, since],
    ),
    q<{ created_at: Date; endpoint: string; delta: number; request_id: string | null; key_id: string | null }>(
      `SELECT created_at, endpoint, delta, request_id, key_id FROM credit_ledger
       WHERE account_id = $1 AND kind = 'charge' ORDER BY id DESC LIMIT 50`,
      [accountId],
    ),
  ])
  return {
    days,
    since,
    totalCredits: byEndpoint.reduce((s, r) => s + Number(r.credits), 0),
    calls: byEndpoint.reduce((s, r) => s + Number(r.calls), 0),
    byEndpoint: byEndpoint.map((r) => ({ endpoint: r.endpoint, calls: Number(r.calls), credits: Number(r.credits) })),
    byDay: byDay.map((r) => ({ day: new Date(Number(r.day_ms)), calls: Number(r.calls), credits: Number(r.credits) })),
    recent: recent.map((r) => ({ ts: new Date(r.created_at), endpoint: r.endpoint, credits: -Number(r.delta), requestId: r.request_id, keyId: r.key_id })),
  }
}
