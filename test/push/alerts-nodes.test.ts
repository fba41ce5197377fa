// Alerts across processes, as docs/operations.md deploys them: one ingest node (the simulator) and two API nodes
// (ROLE=api, each running its own alert engine) on one fresh PostgreSQL database and NATS JetStream. Rules created
// on node A fire on the simulated BTC mark price crossing their thresholds; the receiver gets every fired event
// exactly once (one request per event id, as many events as the store queued), never once per node. What the
// crossings were is derived here from the ticker events themselves (node B's /v1/stream), not from the engines.
import { createHmac } from 'node:crypto'
import { jetstreamManager } from '@nats-io/jetstream'
import { connect } from '@nats-io/transport-node'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NATS_TEST_URL, freshDatabase, scaleOutEngines, startNode, testPool, until, type Node } from '../helpers/scale-out.js'
import { sseReader } from './sse-client.js'
import { webhookReceiver, type Receiver } from './receiver.js'

const clock = { epoch: Date.now(), speed: 1 }
const COIN = 'BTC'

interface Received {
  path: string
  eventId: string
  signature: string
  raw: string
}

let skip: string | null = null
const nodes: Node[] = []
let db: Awaited<ReturnType<typeof freshDatabase>> | undefined
let sql: pg.Pool | undefined
let ingest: Node, apiA: Node, apiB: Node
let receiver: Receiver | undefined
let base = ''
const received: Received[] = []
const prefix = `a${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`

beforeAll(async () => {
  skip = await scaleOutEngines({ redis: false })
  if (skip) return
  receiver = await webhookReceiver((d) => received.push({ path: d.path, eventId: d.eventId, signature: d.signature, raw: d.body }))
  base = receiver.base
  db = await freshDatabase('alertnodes')
  sql = testPool(db.url)
  const env = {
    DATABASE_URL: db.url,
    NATS_URL: NATS_TEST_URL,
    BUS_PREFIX: prefix,
    SIM_COINS: COIN,
    SIM_SEED: '3',
    BACKFILL_DAYS: '0.01',
    LEASE_POLL_MS: '500',
    RATE_LIMIT_RPS: '100000',
    SIGNUP_LIMIT: '0',
    DEMO_CREDITS: '0',
    LOG_LEVEL: 'warn',
    ALERT_ALLOW_LOOPBACK: '1',
    ALERT_POLL_MS: '50',
    ALERT_RETRY_BASE_MS: '100',
  }
  ingest = await startNode('ingest', { ...env, ROLE: 'ingest' }, clock)
  nodes.push(ingest)
  const readyz = async (n: Node) => (await (await fetch(`${n.url}/readyz`)).json()) as { status: string; writing: string[] | null }
  await until('the ingest node to hold every venue', async () => ((await readyz(ingest)).writing?.length === 5 ? true : undefined))
  ;[apiA, apiB] = await Promise.all([startNode('api A', { ...env, ROLE: 'api' }, clock), startNode('api B', { ...env, ROLE: 'api' }, clock)])
  nodes.push(apiA, apiB)
  for (const n of [apiA, apiB]) await until(`${n.name} ready`, async () => ((await readyz(n)).status === 'ready' ? true : undefined))
}, 180_000)

afterAll(async () => {
  for (const n of nodes) if (n.proc.exitCode === null) n.proc.kill('SIGKILL')
  await Promise.all(nodes.map((n) => n.exited))
  await sql?.end()
  await db?.drop()
  await receiver?.close()
  if (!skip) {
    const nc = await connect({ servers: NATS_TEST_URL })
    const jsm = await jetstreamManager(nc)
    for (const s of ['LIVE', 'DATA', 'PUSH']) await jsm.streams.delete(`${prefix.toUpperCase()}_${s}`).catch(() => {})
    await nc.close()
  }
})

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

describe('alerts on two API nodes, one ingest node (PostgreSQL + NATS)', () => {
  it('a rule created on node A fires on each crossing of the mark price; each delivery reaches the receiver once', async (ctx) => {
    if (skip) return ctx.skip()
    const signup = await fetch(`${apiA.url}/v1/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: `alerts-${prefix}@example.com` }) })
    expect(signup.status).toBe(201)
    const { data: account } = (await signup.json()) as { data: { api_key: string; account_id: string } }
    await sql!.query('UPDATE account SET credits = 100000 WHERE id = $1', [account.account_id])
    const key = account.api_key

    // the BTC perp tickers as node B streams them: the median mark after each one (the newest ticker per venue), once
    // the four venues that publish a mark are quoted (dYdX's stream mark is null: it has none apart from its oracle);
    // the simulated venues agree within bps, so none is set aside as an outlier
    const stream = await fetch(`${apiB.url}/v1/stream?channels=ticker&coin=${COIN}`, { headers: { authorization: `Bearer ${key}` } })
    expect(stream.status).toBe(200)
    const sse = sseReader(stream)
    const path = () => {
      const newest = new Map<string, { ts: number; mark: number }>()
      const out: { ts: number; at: number; median: number }[] = []
      for (const f of sse.frames) {
        const d = JSON.parse(f.data) as { exchange: string; market_type: string; ts: number; mark_price: number | null }
        if (d.market_type !== 'perp' || d.mark_price === null) continue
        if ((newest.get(d.exchange)?.ts ?? -Infinity) > d.ts) continue
        newest.set(d.exchange, { ts: d.ts, mark: d.mark_price })
        if (newest.size === 4) out.push({ ts: Math.max(...[...newest.values()].map((x) => x.ts)), at: f.at, median: median([...newest.values()].map((x) => x.mark)) })
      }
      return out
    }
    // the thresholds sit around the price of the moment (all five venues quoted), a rule on each side of each; the
    // simulated price walks (a few dollars a second), so when none has crossed back for 10 s, rules are added
    // around the price it has walked to
    const rules: { id: string; secret: string; type: 'price_above' | 'price_below'; value: number; path: string; since: number }[] = []
    const addRules = async (values: number[]) => {
      for (const value of values)
        for (const type of ['price_above', 'price_below'] as const) {
          const hook = `/${type}/${rules.length}`
          const since = Date.now()
          const res = await fetch(`${apiA.url}/v1/alerts`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ coin: COIN, condition: { type, value }, url: `${base}${hook}` }),
          })
          expect(res.status).toBe(201)
          const { data } = (await res.json()) as { data: { alert_id: string; secret: string } }
          rules.push({ id: data.alert_id, secret: data.secret, type, value, path: hook, since })
        }
    }
    const around = (p: number) => [-2, -1, 0, 1, 2].map((k) => p * (1 + k * 2e-5))
    await addRules(around(await until('every venue in the stream', async () => path().at(-1)?.median)))
    const ids = () => rules.map((r) => r.id)
    // a rule that fired, was seen false, and fired again
    const refired = async () => {
      const { rows } = await sql!.query<{ n: number }>('SELECT count(*)::int AS n FROM alert_delivery WHERE rule_id = ANY($1::uuid[]) GROUP BY rule_id ORDER BY 1 DESC LIMIT 1', [ids()])
      return (rows[0]?.n ?? 0) >= 2 ? true : undefined
    }
    for (let round = 0; ; round++) {
      const ok = await until('a rule to fire again after a crossing', refired, 10_000, 100).catch((e: Error) => {
        if (round >= 8) throw e
        return false
      })
      if (ok) break
      await addRules(around(path().at(-1)!.median))
    }
    // stop the rules where they are, then let every queued delivery go out
    await sql!.query("UPDATE alert_rule SET status = 'disabled' WHERE id = ANY($1::uuid[])", [ids()])
    const deliveries = await until('every queued delivery sent', async () => {
      const { rows } = await sql!.query<{ id: string; rule_id: string; status: string; payload: string }>('SELECT id, rule_id, status, payload FROM alert_delivery WHERE rule_id = ANY($1::uuid[]) ORDER BY created_at', [ids()])
      return rows.every((d) => d.status === 'delivered') && received.length >= rows.length ? rows : undefined
    }, 20_000)
    // the stream has caught up with the newest data any flip was taken on
    const { rows: flips } = await sql!.query<{ last_data_ts: string | null }>('SELECT last_data_ts FROM alert_rule WHERE id = ANY($1::uuid[])', [ids()])
    const newestFlip = Math.max(...flips.map((f) => Number(f.last_data_ts ?? 0)))
    await until('the stream to reach the newest flip', async () => (path().at(-1)!.ts >= newestFlip ? true : undefined), 10_000)
    sse.cancel()

    // each queued event reached the receiver exactly once, signed with its rule's secret, at the rule's URL
    expect(received.map((r) => r.eventId).sort()).toEqual(deliveries.map((d) => d.id).sort())
    const medians = path()
    let again = 0
    for (const rule of rules) {
      const mine = deliveries.filter((d) => d.rule_id === rule.id)
      const got = received.filter((r) => r.path === rule.path)
      expect(got.map((r) => r.eventId).sort(), rule.path).toEqual(mine.map((d) => d.id).sort())
      for (const r of got) {
        const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(r.signature)!
        expect(createHmac('sha256', rule.secret).update(`${t}.${r.raw}`).digest('hex'), rule.path).toBe(v1)
        const body = JSON.parse(r.raw) as { id: string; value: number; alert: { alert_id: string } }
        expect(body.id).toBe(r.eventId)
        expect(body.alert.alert_id).toBe(rule.id)
        // the value is a median mark the stream went through, on the rule's side of its threshold
        expect(medians.some((m) => m.median === body.value), `${rule.path}: ${body.value}`).toBe(true)
        expect(rule.type === 'price_above' ? body.value > rule.value : body.value < rule.value, `${rule.path}: ${body.value}`).toBe(true)
      }
      // fired at most once per entry into the condition along the stream from the rule's creation on (the state of
      // the moment it was created, then every later one; its first evaluation counts as an entry)
      const isTrue = (m: number) => (rule.type === 'price_above' ? m > rule.value : m < rule.value)
      const after = medians.findIndex((m) => m.at >= rule.since)
      const first = after < 0 ? medians.length - 1 : Math.max(0, after - 1)
      let entries = 0
      let was = false
      for (const m of medians.slice(first)) {
        if (isTrue(m.median) && !was) entries++
        was = isTrue(m.median)
      }
      expect(mine.length, `${rule.path}: ${mine.length} fires, ${entries} entries`).toBeLessThanOrEqual(entries)
      if (mine.length >= 2) again++
    }
    expect(again).toBeGreaterThan(0)
  }, 150_000)
})
