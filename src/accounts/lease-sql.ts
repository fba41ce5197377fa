// The statements behind credit leases (./credit-leases.ts). The account row holds the truth: `credits` is the account's
// balance once every answered charge is written, `leased` the part of it API nodes hold as leases (0 ≤ leased ≤ credits,
// a CHECK), and one credit_lease row per node and account says how much of `leased` that node holds. Every statement
// changes `account` and `credit_lease` together, under the account row's lock, which each takes first (accounts in
// id order), so no two of them ever wait for each other's locks (a node's write and its next lease run at once).

/**
 * Take a block: $1 account, $2 node, $3 the least that must be granted (else nothing is), $4 the most, $5 the lease's
 * life (ms). When nothing can be granted and other nodes hold leases, ask them to hand theirs back (lease_wanted_at).
 * Returns the balance, what is leased (after), what this node holds (after) and what was granted (null: nothing).
 */
export const LEASE_SQL = `
WITH cur AS (
  SELECT a.id, a.credits, a.leased, coalesce((SELECT l.remaining FROM credit_lease l WHERE l.node_id = $2 AND l.account_id = a.id), 0) AS own
  FROM account a WHERE a.id = $1 FOR UPDATE
), g AS (
  SELECT id, LEAST($4::int, credits - leased) AS granted FROM cur WHERE credits - leased >= $3::int
), upd AS (
  UPDATE account a SET leased = a.leased + g.granted FROM g WHERE a.id = g.id RETURNING a.id
), ins AS (
  INSERT INTO credit_lease (node_id, account_id, remaining, expires_at)
  SELECT $2, id, granted, now() + $5::int * interval '1 millisecond' FROM g
  ON CONFLICT (node_id, account_id) DO UPDATE SET remaining = credit_lease.remaining + EXCLUDED.remaining, expires_at = EXCLUDED.expires_at
), want AS (
  UPDATE account a SET lease_wanted_at = now() FROM cur
  WHERE a.id = cur.id AND NOT EXISTS (SELECT 1 FROM g) AND cur.leased > cur.own
)
SELECT cur.credits, cur.leased + coalesce(g.granted, 0) AS leased, cur.own + coalesce(g.granted, 0) AS own, g.granted
FROM cur LEFT JOIN g ON true`

/**
 * Write charges: $1..$6 the charges (index, account, key, cost, endpoint, request id), $7 the node, $8 whether a revoked
 * key's charge is refused (durable answers; an answer already given is charged), $9 the lease's life (ms).
 * Per account, the charges' total comes out of the node's lease and the balance together; where the node holds no lease
 * any more (it expired and was returned), out of the unleased balance if it covers the total, else nothing is written.
 * Each ledger row gets the balance after it, in arrival order. Returns per charge: key_ok, balance_after (null: not
 * written), the unleased balance after, whether another node asked for leases back and whether the node still
 * held a lease on the account (false: what it has left in memory is not its own any more).
 */
export const FLUSH_SQL = `
WITH req AS (
  SELECT * FROM unnest($1::int[], $2::uuid[], $3::uuid[], $4::int[], $5::text[], $6::text[]) AS r(i, account_id, key_id, cost, endpoint, request_id)
), valid AS (
  SELECT req.* FROM req JOIN api_key k ON k.id = req.key_id AND k.account_id = req.account_id AND (NOT $8::bool OR k.revoked_at IS NULL)
), tot0 AS (
  SELECT account_id, sum(cost)::int AS total FROM valid GROUP BY account_id
), locked AS (
  SELECT id FROM account WHERE id IN (SELECT account_id FROM tot0) ORDER BY id FOR UPDATE
), lease AS (
  UPDATE credit_lease l SET remaining = l.remaining - t.total, expires_at = now() + $9::int * interval '1 millisecond'
  FROM tot0 t JOIN locked ON locked.id = t.account_id
  WHERE l.node_id = $7 AND l.account_id = t.account_id AND l.remaining >= t.total RETURNING l.account_id
), tot AS (
  SELECT t.account_id, t.total, EXISTS (SELECT 1 FROM lease WHERE lease.account_id = t.account_id) AS held FROM tot0 t
), upd AS (
  UPDATE account a SET credits = a.credits - tot.total, leased = a.leased - CASE WHEN tot.held THEN tot.total ELSE 0 END
  FROM tot WHERE a.id = tot.account_id AND (tot.held OR a.credits - a.leased >= tot.total)
  RETURNING a.id, a.credits AS after, a.credits - a.leased AS unleased, coalesce(a.lease_wanted_at > now() - interval '5 seconds', false) AS wanted
), rows AS (
  SELECT v.i, v.account_id, v.key_id, v.cost, v.endpoint, v.request_id,
         u.after + (sum(v.cost) OVER (PARTITION BY v.account_id)) - (sum(v.cost) OVER (PARTITION BY v.account_id ORDER BY v.i)) AS balance_after
  FROM valid v JOIN upd u ON u.id = v.account_id
), ins AS (
  INSERT INTO credit_ledger (account_id, delta, balance_after, kind, endpoint, request_id, key_id)
  SELECT account_id, -cost, balance_after, 'charge', endpoint, request_id, key_id FROM rows ORDER BY i
)
SELECT req.i, (valid.i IS NOT NULL) AS key_ok, rows.balance_after, upd.unleased, upd.wanted, tot.held
FROM req LEFT JOIN valid ON valid.i = req.i LEFT JOIN rows ON rows.i = req.i LEFT JOIN upd ON upd.id = req.account_id LEFT JOIN tot ON tot.account_id = req.account_id`

/** hand back $3 unused credits of node $1's lease on account $2 (a row left at 0 goes at the node's next round) */
export const RETURN_SQL = `
WITH locked AS (
  SELECT id FROM account WHERE id = $2 FOR UPDATE
), l AS (
  UPDATE credit_lease c SET remaining = c.remaining - $3::int FROM locked WHERE c.node_id = $1 AND c.account_id = locked.id AND c.remaining >= $3::int RETURNING c.account_id
)
UPDATE account a SET leased = a.leased - $3::int FROM l WHERE a.id = l.account_id RETURNING a.credits - a.leased AS unleased`

/**
 * The node's round ($1 node, $2 its accounts, $3 revocations since (a store time), $4 the lease's life, ms): its leases
 * renewed and its emptied ones deleted, and what the node must learn: the accounts whose leases another node asked
 * back, the keys revoked since $3, the store's clock, whether any other node's lease has expired (EXPIRED_SQL).
 */
export const ROUND_SQL = `
WITH renew AS (
  UPDATE credit_lease SET expires_at = now() + $4::int * interval '1 millisecond' WHERE node_id = $1 AND remaining > 0
), tidy AS (
  DELETE FROM credit_lease WHERE node_id = $1 AND remaining = 0
)
SELECT
  (SELECT coalesce(array_agg(id::text), '{}') FROM account WHERE id = ANY($2::uuid[]) AND lease_wanted_at > now() - interval '5 seconds') AS wanted,
  (SELECT coalesce(array_agg(id::text), '{}') FROM api_key WHERE revoked_at >= $3::timestamptz) AS revoked,
  EXISTS (SELECT 1 FROM credit_lease WHERE expires_at < now() AND node_id <> $1) AS expired,
  now() AS now`

/** every expired lease of another node ($1 this one; a node that stopped without returning it) given back to its account */
export const EXPIRED_SQL = `
WITH locked AS (
  SELECT id FROM account WHERE id IN (SELECT account_id FROM credit_lease WHERE expires_at < now() AND node_id <> $1) ORDER BY id FOR UPDATE
), gone AS (
  DELETE FROM credit_lease c USING locked WHERE c.account_id = locked.id AND c.expires_at < now() AND c.node_id <> $1 RETURNING c.account_id, c.remaining
), back AS (
  SELECT account_id, sum(remaining)::int AS r FROM gone GROUP BY account_id
)
UPDATE account a SET leased = a.leased - back.r FROM back WHERE a.id = back.account_id`
