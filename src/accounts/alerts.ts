// Alert rules and their deliveries in the store. A firing is one statement: the rule's condition flips to true
// (only from null or false, and only on data newer than the last flip's) and its delivery is queued, so however
// many nodes evaluate a rule, one crossing queues one delivery. Deliveries are claimed with FOR UPDATE SKIP LOCKED and a lease (claimed_until): one
// node sends each attempt. The 2 credits are taken once, before the first attempt, in the statement that marks
// the delivery charged (never below zero); a delivery given up after 24 h gives them back.
import { randomBytes, randomUUID } from 'node:crypto'
import type { AlertCondition, AlertInput } from '../domain/alerts.js'
import { ApiError } from '../errors.js'
import type { Database, Sql } from '../store/database.js'
import { grant } from './credits.js'

const ALERT_PATH = '/v1/alerts'
export const DELIVERY_COST = 2
/** at most this many rules per account */
const MAX_RULES = 100

export interface AlertRuleRow {
  id: string
  account_id: string
  key_id: string
  name: string
  coin: string
  condition: AlertCondition
  url: string
  secret: string
  status: string
  status_reason: string | null
  last_true: boolean | null
}

export interface AlertView {
  alertId: string
  name: string
  coin: string
  condition: AlertCondition
  url: string
  status: string
  statusReason: string | null
  conditionTrue: boolean | null
  lastFiredAt: number | null
  createdAt: number
  lastDelivery: { eventId: string; status: string; attempts: number; lastError: string | null; createdAt: number; deliveredAt: number | null } | null
}

const VIEW_SQL = `
SELECT r.*, d.id AS d_id, d.status AS d_status, d.attempts AS d_attempts, d.last_error AS d_error, d.created_at AS d_created, d.delivered_at AS d_delivered
FROM alert_rule r
LEFT JOIN LATERAL (SELECT * FROM alert_delivery WHERE rule_id = r.id ORDER BY created_at DESC LIMIT 1) d ON true`

const view = (r: Record<string, unknown>): AlertView => ({
  alertId: r.id as string,
  name: r.name as string,
  coin: r.coin as string,
  condition: (typeof r.condition === 'string' ? JSON.parse(r.condition) : r.condition) as AlertCondition,
  url: r.url as string,
  status: r.status as string,
  statusReason: (r.status_reason as string | null) ?? null,
  conditionTrue: (r.last_true as boolean | null) ?? null,
  lastFiredAt: r.last_fired_at ? new Date(r.last_fired_at as string).getTime() : null,
  createdAt: new Date(r.created_at as string).getTime(),
  lastDelivery: r.d_id
    ? { eventId: r.d_id as string, status: r.d_status as string, attempts: Number(r.d_attempts), lastError: (r.d_error as string | null) ?? null, createdAt: Number(r.d_created), deliveredAt: r.d_delivered === null ? null : Number(r.d_delivered) }
    : null,
})

export async function createAlert(db: Database, owner: { accountId: string; keyId: string }, input: AlertInput): Promise<AlertView & { secret: string }> {
  const id = randomUUID()
  const secret = `whsec_${randomBytes(24).toString('base64url')}`
  // one create of an account at a time (its row locked to the commit): a count and an insert of parallel creates
  // would otherwise each see room for one more (PostgreSQL, read committed)
  await db.sql.transaction(async (tx) => {
    await tx.query('SELECT 1 FROM account WHERE id = $1 FOR UPDATE', [owner.accountId])
    const [{ n }] = (await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM alert_rule WHERE account_id = $1', [owner.accountId])) as [{ n: number }]
    if (Number(n) >= MAX_RULES) throw new ApiError('conflict', `An account holds at most ${MAX_RULES} alert rules; delete one first.`)
    await tx.query('INSERT INTO alert_rule (id, account_id, key_id, name, coin, condition, url, secret) VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8)', [
      id, owner.accountId, owner.keyId, input.name, input.coin, JSON.stringify(input.condition), input.url, secret,
    ])
  })
  const [row] = await db.sql.query(`${VIEW_SQL} WHERE r.id = $1`, [id])
  return { ...view(row!), secret }
}

export async function listAlerts(db: Database, accountId: string): Promise<AlertView[]> {
  return (await db.sql.query(`${VIEW_SQL} WHERE r.account_id = $1 ORDER BY r.created_at, r.id`, [accountId])).map(view)
}

export async function deleteAlert(db: Database, accountId: string, alertId: string): Promise<AlertView> {
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(alertId)
  const [row] = uuid ? await db.sql.query(`${VIEW_SQL} WHERE r.id = $1 AND r.account_id = $2`, [alertId, accountId]) : []
  if (!row) throw new ApiError('not_found', 'No such alert on this account.')
  await db.sql.query('DELETE FROM alert_rule WHERE id = $1 AND account_id = $2', [alertId, accountId])
  return view(row)
}

export async function activeRules(sql: Pick<Sql, 'query'>): Promise<AlertRuleRow[]> {
  return sql.query<AlertRuleRow>("SELECT * FROM alert_rule WHERE status = 'active'")
}

/**
 * the condition at an evaluation on data as of dataTs: true queues a delivery when it was not true before; returns
 * the event id then. An evaluation on data no newer than the last flip's changes nothing, so a node behind the bus
 * cannot flip a rule back and make it fire twice for one crossing.
 */
export async function recordEvaluation(sql: Pick<Sql, 'query'>, rule: AlertRuleRow, isTrue: boolean, dataTs: number, payload: (eventId: string) => string, now: number): Promise<string | null> {
  const newer = '(last_data_ts IS NULL OR last_data_ts < $2::bigint)'
  if (!isTrue) {
    await sql.query(`UPDATE alert_rule SET last_true = false, last_data_ts = $2::bigint WHERE id = $1 AND last_true IS DISTINCT FROM false AND ${newer}`, [rule.id, dataTs])
    return null
  }
  const eventId = randomUUID()
  const rows = await sql.query<{ id: string }>(
    `WITH upd AS (UPDATE alert_rule SET last_true = true, last_data_ts = $2::bigint, last_fired_at = to_timestamp($4::bigint / 1000.0) WHERE id = $1 AND status = 'active' AND last_true IS DISTINCT FROM true AND ${newer} RETURNING id)
     INSERT INTO alert_delivery (id, rule_id, payload, next_attempt_at, created_at) SELECT $3, id, $5, $4, $4 FROM upd RETURNING id`,
    [rule.id, dataTs, eventId, now, payload(eventId)],
  )
  return rows.length ? eventId : null
}

export interface ClaimedDelivery {
  id: string
  payload: string
  attempts: number
  charged: boolean
  created_at: number
  rule_id: string
  url: string
  secret: string
  account_id: string
  key_id: string
}

/** take up to `limit` due deliveries for leaseMs; another node skips them (SKIP LOCKED) and the lease */
export async function claimDeliveries(sql: Pick<Sql, 'query'>, now: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]> {
  const rows = await sql.query<ClaimedDelivery>(
    `UPDATE alert_delivery d SET claimed_until = $1::bigint + $2::bigint, attempts = d.attempts + 1
     FROM alert_rule r
     WHERE r.id = d.rule_id AND d.id IN (
       SELECT id FROM alert_delivery WHERE status = 'pending' AND next_attempt_at <= $1 AND (claimed_until IS NULL OR claimed_until <= $1)
       ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED)
     AND d.status = 'pending' AND (d.claimed_until IS NULL OR d.claimed_until <= $1)
     RETURNING d.id, d.payload, d.attempts, d.charged, d.created_at, d.rule_id, r.url, r.secret, r.account_id, r.key_id`,
    [now, leaseMs, limit],
  )
  return rows.map((r) => ({ ...r, attempts: Number(r.attempts), created_at: Number(r.created_at) }))
}

/** take the delivery's credits once: ok, or why not (the delivery is then marked unpaid and not sent) */
export async function chargeDelivery(sql: Pick<Sql, 'query'>, d: ClaimedDelivery): Promise<{ ok: true } | { ok: false; reason: string }> {
  if (d.charged) return { ok: true }
  const rows = await sql.query(
    `WITH upd AS (
       UPDATE account a SET credits = a.credits - $2 FROM api_key k
       WHERE a.id = $1 AND k.id = $3 AND k.account_id = a.id AND k.revoked_at IS NULL AND a.credits - a.leased >= $2
         AND EXISTS (SELECT 1 FROM alert_delivery WHERE id = $4 AND NOT charged)
       RETURNING a.id, a.credits),
     led AS (INSERT INTO credit_ledger (account_id, delta, balance_after, kind, endpoint, request_id, key_id) SELECT id, -$2::int, credits, 'charge', '${ALERT_PATH}', $4::text, $3 FROM upd),
     mark AS (UPDATE alert_delivery SET charged = true WHERE id = $4 AND EXISTS (SELECT 1 FROM upd))
     SELECT credits FROM upd`,
    [d.account_id, DELIVERY_COST, d.key_id, d.id],
  )
  if (rows.length) return { ok: true }
  const [k] = await sql.query<{ revoked: boolean; credits: number }>('SELECT k.revoked_at IS NOT NULL AS revoked, a.credits FROM api_key k JOIN account a ON a.id = k.account_id WHERE k.id = $1', [d.key_id])
  const reason = !k || k.revoked ? 'key_revoked: the key that created this rule was revoked; delete the rule and create it again with an active key' : `insufficient_credits: a delivery costs ${DELIVERY_COST} credits and the account had ${Number(k.credits)}; event ${d.id} was not sent`
  await sql.query("UPDATE alert_delivery SET status = 'unpaid', last_error = $2, claimed_until = NULL WHERE id = $1", [d.id, reason])
  await sql.query(`UPDATE alert_rule SET status_reason = $2${!k || k.revoked ? ", status = 'disabled'" : ''} WHERE id = $1`, [d.rule_id, reason])
  return { ok: false, reason }
}

export async function deliverySucceeded(sql: Pick<Sql, 'query'>, d: ClaimedDelivery, now: number): Promise<void> {
  await sql.query("UPDATE alert_delivery SET status = 'delivered', delivered_at = $2, claimed_until = NULL, last_error = NULL WHERE id = $1", [d.id, now])
  await sql.query("UPDATE alert_rule SET status_reason = NULL WHERE id = $1 AND status = 'active'", [d.rule_id])
}

/** another attempt at `next`, or (next null) give up: refund, and disable the rule saying why */
export async function deliveryFailed(sql: Pick<Sql, 'query'>, d: ClaimedDelivery, error: string, next: number | null): Promise<void> {
  if (next !== null) {
    await sql.query('UPDATE alert_delivery SET next_attempt_at = $2, claimed_until = NULL, last_error = $3 WHERE id = $1', [d.id, next, error])
    return
  }
  await sql.query("UPDATE alert_delivery SET status = 'failed', claimed_until = NULL, last_error = $2 WHERE id = $1", [d.id, error])
  if (d.charged) await grant(sql, d.account_id, DELIVERY_COST, 'refund', d.id)
  await sql.query("UPDATE alert_rule SET status = 'disabled', status_reason = $2 WHERE id = $1", [d.rule_id, `disabled: deliveries failed for 24 h after ${d.attempts} attempts (last: ${error})`])
}
