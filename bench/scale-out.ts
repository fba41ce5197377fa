// `npm run bench` step "scale": the split deployment against the single process, in the same run, on the same
// machine. One process (ROLE=all on PostgreSQL) is measured first; then one ingest node and two API nodes (ROLE=
// ingest, ROLE=api over NATS) on a database of their own. Reported: requests/s of the two API nodes together
// against the one process, and events/s the ingest node absorbs against the one process, with the PostgreSQL rows
// written per second beside it. BENCH_SCALE_SPEED=10 runs the simulator on a clock 10× the wall clock (every coin
// of the default universe sends ten times its live rate: the ingest capacity figure of docs/operations.md).
// Skipped with a message when PostgreSQL, NATS or Redis is absent.
import pg from 'pg'
import { NATS_TEST_URL, freshDatabase, scaleOutEngines, startNode, until, type Node } from '../test/helpers/scale-out.js'
import type { Load, Row } from './report.js'



const SPEED = Number(process.env.BENCH_SCALE_SPEED ?? 1)
const fmt = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 0 })

async function eventsTotal(node: Node): Promise<number> {
  const text = await (await fetch(`${node.url}/metrics`)).text()
  return [...text.matchAll(/^market_events_total\{[^}]*\} (\S+)$/gm)].reduce((s, m) => s + Number(m[1]), 0)
}

/** events/s the node ingests and rows/s PostgreSQL takes, over `seconds` */
async function ingestRate(node: Node, sql: pg.Pool, seconds: number): Promise<{ events: number; rows: number }> {
  const rows = async () => Number((await sql.query<{ n: string }>('SELECT tup_inserted + tup_updated AS n FROM pg_stat_database WHERE datname = current_database()')).rows[0]!.n)
  const [e0, r0, t0] = [await eventsTotal(node), await rows(), Date.now()]
  await new Promise((r) => setTimeout(r, seconds * 1000))
  const [e1, r1, t1] = [await eventsTotal(node), await rows(), Date.now()]
  return { events: ((e1 - e0) * 1000) / (t1 - t0), rows: ((r1 - r0) * 1000) / (t1 - t0) }
}

async function keyOn(node: Node, sql: pg.Pool): Promise<string> {
  const res = await fetch(`${node.url}/v1/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: `bench${Date.now()}@example.com` }) })
  const { data } = (await res.json()) as { data: { api_key: string; account_id: string } }
  await sql.query('UPDATE account SET credits = 1000000000 WHERE id = $1', [data.account_id])
  return data.api_key
}

const ready = (n: Node) => until(`${n.name} ready`, async () => ((await (await fetch(`${n.url}/readyz`)).json()) as { status: string }).status === 'ready' || undefined, 60_000)

export async function benchScaleOut(seconds: number, load: Load): Promise<Row[]> {
  if (await scaleOutEngines().catch(() => 'required engines missing')) {
    console.log('scale-out benchmark skipped: PostgreSQL, NATS or Redis not reachable')
    return []
  }
  const clock = { epoch: Date.now(), speed: SPEED }
  const prefix = `bench${Date.now().toString(36)}`
  const base = { MARKET_SOURCE: 'simulator', BACKFILL_DAYS: '0', RATE_LIMIT_RPS: '0', AUTH_FAILURE_LIMIT: '0', SIGNUP_LIMIT: '0', LOG_LEVEL: 'warn', LEASE_POLL_MS: '500' }
  const path = '/v1/markets/ticker?coin=BTC'
  const nodes: Node[] = []
  const dbs: Awaited<ReturnType<typeof freshDatabase>>[] = []
  const pools: pg.Pool[] = []
  try {
    // the single process
    const one = await freshDatabase('bench_one')
    dbs.push(one)
    const sqlOne = new pg.Pool({ connectionString: one.url, max: 2 })
    pools.push(sqlOne)
    const all = await startNode('all', { ...base, DATABASE_URL: one.url }, clock)
    nodes.push(all)
    const keyOne = await keyOn(all, sqlOne)
    const ingestOne = await ingestRate(all, sqlOne, Math.min(seconds, 5))
    const single = await load({ url: `${all.url}${path}`, connections: 50, key: keyOne })
    all.proc.kill('SIGTERM')
    await all.exited

    // one ingest node, two API nodes
    const split = await freshDatabase('bench_split')
    dbs.push(split)
    const sqlSplit = new pg.Pool({ connectionString: split.url, max: 2 })
    pools.push(sqlSplit)
    const env = { ...base, DATABASE_URL: split.url, NATS_URL: NATS_TEST_URL, BUS_PREFIX: prefix }
    const ingest = await startNode('ingest', { ...env, ROLE: 'ingest' }, clock)
    nodes.push(ingest)
    const [a, b] = await Promise.all([startNode('api A', { ...env, ROLE: 'api' }, clock), startNode('api B', { ...env, ROLE: 'api' }, clock)])
    nodes.push(a, b)
    await Promise.all([ready(a), ready(b)])
    const key = await keyOn(a, sqlSplit)
    const ingestSplit = await ingestRate(ingest, sqlSplit, Math.min(seconds, 5))
    const [ra, rb] = await Promise.all([load({ url: `${a.url}${path}`, connections: 25, key }), load({ url: `${b.url}${path}`, connections: 25, key })])
    const two = ra.rps + rb.rps
    return [
      {
        bench: `GET ${path}: two API nodes vs one process, 50 conns`,
        measured: `${fmt(two)} req/s (${fmt(ra.rps)} + ${fmt(rb.rps)}), p99 ${Math.max(ra.p99, rb.p99)} ms`,
        baseline: `${fmt(single.rps)} req/s one process (ROLE=all), p99 ${single.p99} ms`,
        ratio: two / single.rps,
        target: 'report (≈ cores available ÷ cores one node uses)',
        pass: true,
      },
      {
        bench: `ingest events/s, simulator at ${SPEED}× live rate: ingest node (publishing to NATS) vs one process`,
        measured: `${fmt(ingestSplit.events)} events/s, PostgreSQL ${fmt(ingestSplit.rows)} rows/s`,
        baseline: `${fmt(ingestOne.events)} events/s, PostgreSQL ${fmt(ingestOne.rows)} rows/s one process`,
        ratio: ingestSplit.events / ingestOne.events,
        target: '≥ 0.95 (the ingest node keeps up as the one process does)',
        pass: ingestSplit.events / ingestOne.events >= 0.95,
      },
    ]
  } finally {
    for (const n of nodes) if (n.proc.exitCode === null) n.proc.kill('SIGKILL')
    await Promise.all(nodes.map((n) => n.exited))
    for (const p of pools) await p.end()
    for (const d of dbs) await d.drop().catch(() => {})
    const { connect } = await import('@nats-io/transport-node')
    const { jetstreamManager } = await import('@nats-io/jetstream')
    const nc = await connect({ servers: NATS_TEST_URL }).catch(() => null)
    if (nc) {
      const jsm = await jetstreamManager(nc)
      for (const s of ['LIVE', 'DATA']) await jsm.streams.delete(`${prefix.toUpperCase()}_${s}`).catch(() => {})
      await nc.close()
    }
  }
}
