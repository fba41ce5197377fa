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
 * key's charge is refused (durable answers; an answer already given is charged).
 * Per account, the charges' total comes out of the node's lease and the balance together; where the node holds no lease
 * any more (it expired and was returned), out of the unleased balance if it covers the total, else nothing is written.
 * Each ledger row gets the balance after it, in arrival order. Returns per charge: key_ok, balance_after (null: not
 * written), the unleased balance after, whether another node asked for leases back and whether the node still
 * held a lease on the account (false: what it has left in memory is not its own any more). Written tightly: PostgreSQL
 * shows the first 1 kB of a statement (track_activity_query_size), and the ledger INSERT is what names it there.
 */
export const FLUSH_SQL = `
WITH r AS (SELECT * FROM unnest($1::int[],$2::uuid[],$3::uuid[],$4::int[],$5::text[],$6::text[]) r(i,ac,ke,c,ep,rq)),v AS (SELECT r.* FROM r JOIN api_key k ON k.id=r.ke AND k.account_id=r.ac AND (NOT $8::bool OR k.revoked_at IS NULL)),t0 AS (SELECT ac,sum(c)::int AS n FROM v GROUP BY 1),lk AS (SELECT id FROM account WHERE id IN (SELECT ac FROM t0) ORDER BY id FOR UPDATE),ls AS (UPDATE credit_lease l SET remaining=l.remaining-t0.n FROM t0 JOIN lk ON lk.id=t0.ac WHERE l.node_id=$7 AND l.account_id=t0.ac AND l.remaining>=t0.n RETURNING l.account_id),u AS (UPDATE account a SET credits=a.credits-t0.n,leased=a.leased-CASE WHEN h IS NULL THEN 0 ELSE t0.n END FROM t0 LEFT JOIN ls h ON h.account_id=t0.ac
 WHERE a.id=t0.ac AND (h IS NOT NULL OR a.credits-a.leased>=t0.n) RETURNING a.id,a.credits AS af,a.credits-a.leased AS unleased),w AS (SELECT v.*,u.af+sum(v.c) OVER p-sum(v.c) OVER (p ORDER BY v.i) AS bal FROM v JOIN u ON u.id=v.ac WINDOW p AS (PARTITION BY v.ac)),ins AS (INSERT INTO credit_ledger (account_id,delta,balance_after,kind,endpoint,request_id,key_id) SELECT ac,-c,bal,'charge',ep,rq,ke FROM w ORDER BY i)
SELECT r.i, v.i IS NOT NULL AS key_ok, w.bal AS balance_after, coalesce(u.unleased, b.credits - b.leased) AS unleased, a.lease_wanted_at > now() - interval '5 s' AS wanted,
  CASE WHEN t0.ac IS NOT NULL THEN EXISTS (SELECT 1 FROM ls WHERE ls.account_id = r.ac) END AS held
FROM r LEFT JOIN v ON v.i = r.i LEFT JOIN w ON w.i = r.i LEFT JOIN u ON u.id = r.ac LEFT JOIN t0 ON t0.ac = r.ac LEFT JOIN account a ON a.id = u.id LEFT JOIN account b ON b.id = r.ac`

/** hand back $3 unused credits of node $1's lease on account $2 (a row left at 0 goes at the node's next round) */
export const RETURN_SQL = `
WITH locked AS (
  SELECT id FROM account WHERE id = $2 FOR UPDATE
), l AS (
  UPDATE credit_lease c SET remaining = c.remaining - $3::int FROM locked WHERE c.node_id = $1 AND c.account_id = locked.id AND c.remaining >= $3::int RETURNING c.account_id
)
UPDATE account a SET leased = a.leased - $3::int FROM l WHERE a.id = l.account_id RETURNING a.credits - a.leased AS unleased`

/**
 * The node's round ($1 node, $2 its accounts, $3 revocations since (a store time)), reads only: the accounts whose
 * leases another node asked back, the keys revoked since $3, the store's clock, whether any other node's lease has
 * expired (EXPIRED_SQL). It takes no lock, so it never holds one while it waits (RENEW_SQL does the writing).
 */
export const ROUND_SQL = `
SELECT
  (SELECT coalesce(array_agg(id::text), '{}') FROM account WHERE id = ANY($2::uuid[]) AND lease_wanted_at > now() - interval '5 seconds') AS wanted,
  (SELECT coalesce(array_agg(id::text), '{}') FROM api_key WHERE revoked_at >= $3::timestamptz) AS revoked,
  EXISTS (SELECT 1 FROM credit_lease WHERE expires_at < now() AND node_id <> $1) AS expired,
  now() AS now`

/** node $1's leases renewed for $2 ms, its emptied ones deleted: its own rows only, so it never waits while holding them */
export const RENEW_SQL = `
WITH renew AS (
  UPDATE credit_lease SET expires_at = now() + $2::int * interval '1 millisecond' WHERE node_id = $1 AND remaining > 0
)
DELETE FROM credit_lease WHERE node_id = $1 AND remaining = 0`

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
