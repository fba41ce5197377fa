// The all-coins views (issue 19): each endpoint called once right after a data tick, many times over, and its worst
// latency taken (cold after a tick); then its p99 under load at 10 connections (warm); the snapshot's age when
// served (response time − computed_at); and the 1m × 24 h ohlc body, plain and compressed, with its p99.
import { request } from 'node:http'
import type { Load, Row } from './report.js'
import { recordTarget } from './targets.js'

const TICK_MS = 2000



const VIEWS: [string, string][] = [
  ['spread, all coins', '/v1/structure/spread'],
  ['weighted funding, all coins', '/v1/funding/weighted'],
  ['OI changes, all coins', '/v1/oi/changes'],
  ['snapshot', '/v1/signals/snapshot'],
  ['markets overview (screener)', '/v1/markets/overview'],
]

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const fmt = (n: number, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d })

/**
 * Each view called once per round, every round more than a data tick after the last, so every call finds the data
 * moved since its last: the times per path (cold after a tick), and the snapshot's worst age when served.
 */
export async function coldViewCalls(base: string, key: string, rounds: number): Promise<{ cold: Map<string, number[]>; snapshotAge: number; health: number[] }> {
  const auth = { authorization: `Bearer ${key}` }
  const cold = new Map<string, number[]>()
  let snapshotAge = 0
  // meanwhile /healthz one request after another: its slowest answer is the longest the loop served nothing else
  // while the ticks' precomputations (every view and the snapshot) ran
  const health: number[] = []
  let rounding = true
  const poller = (async () => {
    while (rounding) {
      const t0 = performance.now()
      await (await fetch(`${base}/healthz`)).arrayBuffer()
      health.push(performance.now() - t0)
      await sleep(10)
    }
  })()
  // every round starts more than a tick after the previous one, so every call finds the data moved since its last
  for (let i = 0; i < rounds; i++) {
    await sleep(TICK_MS + 150)
    for (const [, p] of VIEWS) {
      const t0 = performance.now()
      const res = await fetch(`${base}${p}`, { headers: auth })
      const body = (await res.json()) as { data: { computed_at?: number } }
      const ms = performance.now() - t0
      if (res.status !== 200) throw new Error(`${p}: ${res.status}`)
      if (p.includes('snapshot')) snapshotAge = Math.max(snapshotAge, Date.now() - body.data.computed_at!)
      cold.set(p, [...(cold.get(p) ?? []), ms])
    }
  }
  rounding = false
  await poller
  health.sort((a, b) => a - b)
  return { cold, snapshotAge, health }
}

/** the worst cold call of all the views, and which view it was */
export function worstView(cold: Map<string, number[]>): { ms: number; view: string } {
  let worst = { ms: 0, view: '' }
  for (const [name, p] of VIEWS) for (const ms of cold.get(p) ?? []) if (ms > worst.ms) worst = { ms, view: name }
  return worst
}

export async function benchViews(base: string, key: string, bareP99: number, seconds: number, load: Load): Promise<Row[]> {
  const rows: Row[] = []
  const auth = { authorization: `Bearer ${key}` }
  const { cold, snapshotAge, health } = await coldViewCalls(base, key, Number(process.env.BENCH_VIEW_ROUNDS ?? 20))
  const healthWorst = health.at(-1)!
  rows.push({
    bench: `event loop during those rounds: /healthz one after another (${health.length} answers)`,
    measured: `worst ${fmt(healthWorst, 1)} ms, p99 ${fmt(health[Math.floor(health.length * 0.99)]!, 1)} ms`,
    baseline: `${bareP99} ms bare p99`,
    ratio: healthWorst / 200,
    target: 'worst < 200 ms (docs/operations.md#caps-and-bounds; ratio < 1)',
    pass: healthWorst < 200,
  })
  for (const [name, p] of VIEWS) {
    const times = cold.get(p)!.sort((a, b) => a - b)
    const worst = times.at(-1)!
    const warm = await load({ url: `${base}${p}`, connections: 10, key, seconds })
    if (p.includes('snapshot')) recordTarget('snapshot', { measured: `worst ${fmt(worst, 1)} ms of ${times.length} calls (median ${fmt(times[times.length >> 1]!, 1)} ms)`, baseline: `bare Express p99 ${bareP99} ms (10 conns)`, ratio: worst / Math.max(bareP99, 1), met: worst < 100 })
    rows.push({
      bench: `${name}: cold after a data tick (worst of ${times.length}); warm p99 at 10 conns`,
      measured: `cold ${fmt(worst, 1)} ms (median ${fmt(times[times.length >> 1]!, 1)}); warm p99 ${warm.p99} ms (${fmt(warm.rps)} req/s)`,
      baseline: `${bareP99} ms bare p99`,
      ratio: Math.max(worst / 100, warm.p99 / 20),
      target: 'cold < 100 ms; warm p99 < 20 ms (ratio < 1)',
      pass: worst < 100 && warm.p99 < 20,
    })
  }
  rows.push({
    bench: 'snapshot age when served (response time − computed_at), worst of the calls above',
    measured: `${fmt(snapshotAge / 1000, 2)} s`,
    baseline: `refresh ${TICK_MS / 1000} s + tick ${TICK_MS / 1000} s`,
    ratio: snapshotAge / (2 * TICK_MS),
    target: '≤ refresh period + 1 tick (ratio ≤ 1)',
    pass: snapshotAge <= 2 * TICK_MS,
  })
  // 1m × 24 h ohlc: the body plain, as served compressed (br and gzip), and its p99 accepting both (as curl --compressed and browsers do)
  const ohlc = `${base}/v1/markets/ohlc?coin=BTC&interval=1m&lookback=24h`
  const plain = Buffer.from(await (await fetch(ohlc, { headers: { ...auth, 'accept-encoding': 'identity' } })).arrayBuffer())
  const rawOhlc = await wireSizes(ohlc, auth)
  const best = Math.min(...Object.values(rawOhlc).filter(Number.isFinite))
  const warm = await load({ url: ohlc, connections: 10, key, seconds, headers: { 'accept-encoding': 'br, gzip' } })
  rows.push({
    bench: '1m × 24 h ohlc, one coin: body plain / br / gzip; p99 at 10 conns accepting "br, gzip"',
    measured: `${fmt(plain.length / 1024)} KB / ${fmt(rawOhlc.br! / 1024, 1)} KB / ${fmt(rawOhlc.gzip! / 1024, 1)} KB; p99 ${warm.p99} ms`,
    baseline: `${fmt(plain.length / best, 1)}× smaller compressed`,
    ratio: Math.max(5 / (plain.length / best), warm.p99 / 20),
    target: 'compressed ≥ 5× smaller; p99 < 20 ms (ratio < 1)',
    pass: plain.length / best >= 5 && warm.p99 < 20,
  })
  return rows
}

/** bytes on the wire per accepted encoding (read from a raw socket: fetch hides the compressed length) */
async function wireSizes(url: string, headers: Record<string, string>): Promise<Record<string, number>> {
  const out: Record<string, number> = {}
  for (const enc of ['br', 'gzip']) {
    out[enc] = await new Promise<number>((resolve, reject) => {
      const req = request(url, { headers: { ...headers, 'accept-encoding': enc } }, (res) => {
        let n = 0
        res.on('data', (d: Buffer) => (n += d.length))
        res.on('end', () => resolve(res.headers['content-encoding'] === enc ? n : NaN))
      })
      req.on('error', reject)
      req.end()
    })
  }
  return out
}
