// How long the most demanding call of each endpoint holds the event loop on the bench's filled store (issue 31,
// item 1): each endpoint's largest call (test/helpers/largest-calls.ts), the GraphQL operation with the most work
// graphql-armor lets through, and a cursor whose window was rewritten to 20 years, each once, cold, while a client
// asks /healthz one request after another; the slowest /healthz answer during the call is how long the service could
// answer nothing else. Target: the documented bound (docs/operations.md#caps-and-bounds).
import { largestCalls, largestGraphql } from '../test/helpers/largest-calls.js'
import type { Row } from './report.js'

const BOUND_MS = 200
const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d })

/** the slowest /healthz answer while `call` runs, and the call's own time and status */
async function healthDuring(base: string, call: () => Promise<Response>): Promise<{ worst: number; ms: number; status: number }> {
  let running = true
  let worst = 0
  const poll = (async () => {
    while (running) {
      const t0 = performance.now()
      await (await fetch(`${base}/healthz`)).arrayBuffer()
      worst = Math.max(worst, performance.now() - t0)
    }
  })()
  const t0 = performance.now()
  const res = await call()
  await res.arrayBuffer()
  const ms = performance.now() - t0
  running = false
  await poll
  return { worst, ms, status: res.status }
}

export async function benchEventLoop(base: string, key: string, coins: readonly string[]): Promise<Row[]> {
  const auth = { authorization: `Bearer ${key}` }
  const row = (name: string, r: { worst: number; ms: number; status: number }, want = 200): Row => ({
    bench: `event loop held by ${name}`,
    measured: `slowest /healthz ${fmt(r.worst)} ms during it (the call: ${r.status}, ${fmt(r.ms)} ms)`,
    baseline: `${BOUND_MS} ms bound`,
    ratio: r.worst / BOUND_MS,
    target: `/healthz < ${BOUND_MS} ms throughout (ratio < 1), answered ${want}`,
    pass: r.worst < BOUND_MS && r.status === want,
  })
  const rows: Row[] = []
  for (const [path, query] of Object.entries(largestCalls(Date.now()))) {
    const url = `${base}${path}?${query.replace('coin=BTC', `coin=${coins[0]}`)}`
    rows.push(row(`${path}?${query.slice(0, 60)}${query.length > 60 ? '…' : ''}`, await healthDuring(base, () => fetch(url, { headers: auth }))))
  }
  const gql = largestGraphql(Date.now(), coins.slice(0, 3))
  rows.push(row('GraphQL: 20 aliases of oiHistory over 366 days at 1m', await healthDuring(base, () => fetch(`${base}/graphql`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ query: gql }) }))))
  // the adversarial run's cursor: a real one's window rewritten to 20 years (refused before any work)
  const page = `${base}/v1/funding/history?coin=${coins[0]}&interval=1m&lookback=24h&limit=1`
  const next = ((await (await fetch(page, { headers: auth })).json()) as { meta: { next: string } }).meta.next
  const now = Date.now()
  const forged = `${Buffer.from(JSON.stringify([now - 20 * 365 * 86_400_000, now, now - 20 * 365 * 86_400_000])).toString('base64url')}.${next.split('.')[1]}`
  rows.push(row('a funding history cursor rewritten to 20 years', await healthDuring(base, () => fetch(`${page}&cursor=${forged}`, { headers: auth })), 400))
  return rows
}
