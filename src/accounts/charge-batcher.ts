// Group commit for credit charges: the charges that arrive while the previous batch is being written go into
// ONE statement. Per account the batch total is taken with the same conditional UPDATE (credits >= total) as a
// single charge, and each ledger row gets its running balance; an account whose batch total does not fit is
// retried one charge at a time, in arrival order, so the outcome is exactly what sequential charging gives.
// Every request is answered only after the statement holding its charge committed: nothing is charged twice,
// nothing below zero, nothing before it is durable. The key's revocation is checked inside the statement.
// One bound per charge (STORE_TIMEOUT_MS, from when the charge is asked for): a charge still queued at its bound is
// answered 503 and never sent; a batch is sent bounded by what is left of its earliest charge's bound (the store's
// `within`, on connections of its own: the server cancels the statement, so a charge is either committed and answered,
// or neither). Without this, a charge arriving behind a batch that was timing out waited for that batch's bound and
// then its own, and a charge waited for a pooled connection behind every read queued for one.
import { storeUnavailable } from '../errors.js'
import type { Sql } from '../store/database.js'
import type { Charge } from './credits.js'

export type BatchedChargeResult = { ok: true; remaining: number } | { ok: false; reason: 'insufficient'; remaining: number } | { ok: false; reason: 'revoked' }

const BATCH_SQL = `
WITH req AS (
  SELECT * FROM unnest($1::int[], $2::uuid[], $3::uuid[], $4::int[], $5::text[], $6::text[]) AS r(i, account_id, key_id, cost, endpoint, request_id)
), valid AS (
  SELECT req.* FROM req JOIN api_key k ON k.id = req.key_id AND k.account_id = req.account_id AND k.revoked_at IS NULL
), tot AS (
  SELECT account_id, sum(cost)::int AS total FROM valid GROUP BY account_id
), upd AS (
  UPDATE account a SET credits = a.credits - tot.total FROM tot WHERE a.id = tot.account_id AND a.credits >= tot.total RETURNING a.id, a.credits AS after
), rows AS (
  SELECT v.i, v.account_id, v.key_id, v.cost, v.endpoint, v.request_id,
         u.after + (sum(v.cost) OVER (PARTITION BY v.account_id)) - (sum(v.cost) OVER (PARTITION BY v.account_id ORDER BY v.i)) AS balance_after
  FROM valid v JOIN upd u ON u.id = v.account_id
), ins AS (
  INSERT INTO credit_ledger (account_id, delta, balance_after, kind, endpoint, request_id, key_id)
  SELECT account_id, -cost, balance_after, 'charge', endpoint, request_id, key_id FROM rows ORDER BY i
)
SELECT req.i, (valid.i IS NOT NULL) AS key_ok, rows.balance_after
FROM req LEFT JOIN valid ON valid.i = req.i LEFT JOIN rows ON rows.i = req.i`

/** one charge, with the key's revocation checked in the same statement */
const SINGLE_SQL = `
WITH upd AS (
  UPDATE account a SET credits = a.credits - $2 FROM api_key k
  WHERE a.id = $1 AND k.id = $5 AND k.account_id = a.id AND k.revoked_at IS NULL AND a.credits >= $2
  RETURNING a.id, a.credits
)
INSERT INTO credit_ledger (account_id, delta, balance_after, kind, endpoint, request_id, key_id)
SELECT id, -$2::int, credits, 'charge', $3, $4, $5 FROM upd
RETURNING balance_after`

interface Pending {
  charge: Charge
  /** performance.now() by which the charge is answered */
  deadline: number
  /** answers 503 while the charge is still queued at its deadline */
  timer: NodeJS.Timeout
  resolve(r: BatchedChargeResult): void
  reject(e: unknown): void
}

type Statements = Pick<Sql, 'query' | 'prepared'>

/** the default bound of a charge, as the store's (STORE_TIMEOUT_MS) */
const DEFAULT_TIMEOUT_MS = 5000
export class ChargeBatcher {
  private queue: Pending[] = []
  private running: Promise<void> | null = null
  /** statements written so far (for tests and metrics) */
  batches = 0
  private readonly maxBatch: number
  private readonly timeoutMs: number

  constructor(
    private readonly sql: Statements & Pick<Sql, 'within'>,
    opts: { maxBatch?: number; /** STORE_TIMEOUT_MS: a charge's bound */ timeoutMs?: number } = {},
  ) {
    this.maxBatch = opts.maxBatch ?? 512
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS
  }

  charge(charge: Charge): Promise<BatchedChargeResult> {
    if (!Number.isInteger(charge.cost) || charge.cost <= 0 || !charge.keyId) throw new RangeError(`invalid charge of ${charge.cost}`)
    return new Promise((resolve, reject) => {
      const p: Pending = {
        charge,
        deadline: performance.now() + this.timeoutMs,
        timer: setTimeout(() => {
          const i = this.queue.indexOf(p)
          if (i < 0) return
          this.queue.splice(i, 1)
          reject(storeUnavailable())
        }, this.timeoutMs),
        resolve,
        reject,
      }
      this.queue.push(p)
      this.running ??= this.drain()
    })
  }

  /** the statements to send for charges due by `deadline`: bounded by what is left of it, where the store can */
  private bounded(deadline: number): Statements | null {
    const left = deadline - performance.now()
    if (left < 1) return null
    return this.sql.within ? this.sql.within(left) : this.sql
  }

  private async drain(): Promise<void> {
    // let the requests of this tick join the first batch
    await new Promise((r) => setImmediate(r))
    while (this.queue.length) {
      const batch = this.queue.splice(0, this.maxBatch)
      // sent: from here the statement's bound holds them
      for (const p of batch) clearTimeout(p.timer)
      try {
        await this.write(batch)
      } catch (e) {
        for (const p of batch) p.reject(e)
      }
    }
    this.running = null
  }

  private async write(batch: Pending[]): Promise<void> {
    const sql = this.bounded(Math.min(...batch.map((p) => p.deadline)))
    if (!sql) throw storeUnavailable()
    this.batches++
    const c = batch.map((p) => p.charge)
    const rows = await sql.prepared<{ i: number; key_ok: boolean; balance_after: number | null }>('charge_batch', BATCH_SQL, [
      c.map((_, i) => i),
      c.map((x) => x.accountId),
      c.map((x) => x.keyId),
      c.map((x) => x.cost),
      c.map((x) => x.endpoint),
      c.map((x) => x.requestId),
    ])
    const retry: Pending[] = []
    for (const r of rows) {
      const p = batch[Number(r.i)]!
      if (!r.key_ok) p.resolve({ ok: false, reason: 'revoked' })
      else if (r.balance_after !== null) p.resolve({ ok: true, remaining: Number(r.balance_after) })
      else retry.push(p)
    }
    // accounts whose batch total did not fit: one at a time, in arrival order
    for (const p of retry.sort((a, b) => batch.indexOf(a) - batch.indexOf(b))) {
      const sql = this.bounded(p.deadline)
      if (!sql) p.reject(storeUnavailable())
      else await this.single(sql, p.charge).then(p.resolve, p.reject)
    }
  }

  private async single(sql: Statements, c: Charge): Promise<BatchedChargeResult> {
    const rows = await sql.query<{ balance_after: number }>(SINGLE_SQL, [c.accountId, c.cost, c.endpoint, c.requestId, c.keyId])
    if (rows.length) return { ok: true, remaining: Number(rows[0]!.balance_after) }
    const [k] = await sql.query<{ revoked: boolean; credits: number }>(
      'SELECT k.revoked_at IS NOT NULL AS revoked, a.credits FROM api_key k JOIN account a ON a.id = k.account_id WHERE k.id = $1',
      [c.keyId],
    )
    if (!k || k.revoked) return { ok: false, reason: 'revoked' }
    return { ok: false, reason: 'insufficient', remaining: Number(k.credits) }
  }
}
