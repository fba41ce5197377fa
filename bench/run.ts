// npm run bench — every performance target of the service, measured side by side in one run and reported as
// ratios (to a baseline measured in the same run, and to the target). Absolute times drift between machines
// and runs; ratios within one run do not. Options (environment): BENCH_SECONDS (8), BENCH_DAYS (30),
// BENCH_COINS (all default coins), PG_TEST_URL (for the PostgreSQL credit benchmark).
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import autocannon from 'autocannon'
import { DEFAULT_COINS } from '../src/domain/coins.js'
import { benchAggregator } from './aggregate-fold.js'
import { benchHistory } from './history-time.js'
import { benchCoins } from './coins.js'
import { benchScaling } from './scaling.js'
import { benchCredits } from './credits-pg.js'
import { benchEventLoop } from './event-loop.js'
import { benchMix } from './mix.js'
import { benchScaleOut } from './scale-out.js'
import { benchStart } from './start-time.js'
import { benchStoreEngines } from './store-engines.js'
import { benchViews } from './views.js'
import { freshSchema, postgresAvailable } from '../test/helpers/postgres.js'
import { build, NODE_FLAGS } from '../scripts/build.mjs'
import type { Row } from './report.js'
import { processRss, recordTarget, simulatorAlone, targetsTable } from './targets.js'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8)
/** run only some steps: BENCH_ONLY=fold,backfill,start,cheap,shim,views,heavy,memory,loop,mix,postgres,credits,scale,history,coins,scaling,store (default: all) */
const ONLY = new Set((process.env.BENCH_ONLY ?? 'fold,backfill,start,cheap,shim,views,heavy,memory,loop,mix,postgres,credits,scale,history,coins,scaling,store').split(','))
/** the steps that need the simulated service (2 to 6) */
const SIM_STEPS = ['backfill', 'start', 'cheap', 'shim', 'views', 'heavy', 'memory', 'loop', 'mix', 'postgres']
const ROOT = path.resolve(import.meta.dirname, '..')

const rows: Row[] = []
const fmt = (n: number, d = 1) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d })

/** the service runs as `npm start` runs it: the JavaScript build (scripts/build.mjs), not through the tsx loader */
const BUILD = build(['src', 'bench'])

async function start(env: Record<string, string>): Promise<{ proc: ChildProcess; info: { port: number; key?: string; keys?: string[] }; backfilled: Promise<number> }> {
  const proc = spawn(process.execPath, [...NODE_FLAGS, path.join(await BUILD, 'bench', 'server.js')], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  // the server says {port, …} when it listens and {backfillMs} when the backfill behind it is done (the same line for the bare one)
  let done: (ms: number) => void = () => {}
  const backfilled = new Promise<number>((r) => (done = r))
  return new Promise((resolve, reject) => {
    let out = ''
    proc.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      const lines = out.split('\n')
      out = lines.pop()!
      for (const l of lines.filter((l) => l.startsWith('{'))) {
        const msg = JSON.parse(l) as { port?: number; backfillMs?: number }
        if (msg.port !== undefined) resolve({ proc, info: msg as never, backfilled })
        if (msg.backfillMs !== undefined) done(msg.backfillMs)
      }
    })
    proc.on('exit', (code) => {
      done(NaN)
      reject(new Error(`bench server exited with ${code}`))
    })
  })
}

async function load(opts: { url: string; connections: number; key?: string; method?: 'GET' | 'POST'; body?: string; seconds?: number; headers?: Record<string, string>; rate?: number }) {
  const r = await autocannon({
    url: opts.url,
    connections: opts.connections,
    duration: opts.seconds ?? SECONDS,
    ...(opts.rate ? { overallRate: opts.rate } : {}),
    method: opts.method ?? 'GET',
    body: opts.body,
    headers: { ...(opts.key ? { authorization: `Bearer ${opts.key}` } : {}), ...(opts.body ? { 'content-type': 'application/json' } : {}), ...opts.headers },
  })
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${opts.url}: ${r.non2xx} non-2xx, ${r.errors} errors`)
  return { rps: r.requests.average, p99: r.latency.p99, mean: r.latency.mean, total: r.requests.total }
}

/** CPU seconds (user + system, all threads) a process has used so far, from /proc (Linux) */
function cpuSeconds(pid: number | undefined): number {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(f[11]) + Number(f[12])) / 100
  } catch {
    return NaN
  }
}

/** load plus the server's CPU time per request over the same interval */
async function loadWithCpu(proc: ChildProcess, opts: Parameters<typeof load>[0]) {
  const c0 = cpuSeconds(proc.pid)
  const r = await load(opts)
  return { ...r, cpuUs: ((cpuSeconds(proc.pid) - c0) * 1e6) / r.total }
}

type Started = Awaited<ReturnType<typeof start>>

/** the cheap reads through the service against the bare route, each right after a baseline run */
async function cheapReads(where: string, svc: Started, bare: Started, paths = ['/v1/markets/ticker?coin=BTC', '/v1/markets/exchanges']) {
  for (const p of paths) {
    const b = await loadWithCpu(bare.proc, { url: `http://127.0.0.1:${bare.info.port}/static`, connections: 50 })
    const r = await loadWithCpu(svc.proc, { url: `http://127.0.0.1:${svc.info.port}${p}`, connections: 50, key: svc.info.key })
    rows.push({
      bench: `GET ${p} (auth + charge)${where}, 50 conns`,
      measured: `${fmt(r.rps, 0)} req/s, p99 ${r.p99} ms (${fmt(r.p99 / Math.max(b.p99, 1), 2)}× bare p99), ${fmt(r.cpuUs, 0)} µs CPU/req`,
      baseline: `bare Express: ${fmt(b.rps, 0)} req/s, p99 ${b.p99} ms, ${fmt(b.cpuUs, 0)} µs CPU/req`,
      ratio: r.rps / b.rps,
      target: 'throughput ≥ 85 % of bare; p99 ≤ 1.5× bare p99 (issue 32)',
      pass: r.rps / b.rps >= 0.85 && r.p99 <= 1.5 * Math.max(b.p99, 1),
    })
    if (where === '' && p.startsWith('/v1/markets/ticker')) {
      recordTarget('tickerThroughput', { measured: `${fmt(r.rps, 0)} req/s`, baseline: `bare Express ${fmt(b.rps, 0)} req/s`, ratio: r.rps / b.rps, met: r.rps / b.rps >= 0.85 })
      recordTarget('tickerP99', { measured: `p99 ${r.p99} ms`, baseline: `bare Express p99 ${b.p99} ms`, ratio: r.p99 / Math.max(b.p99, 1), met: r.p99 <= 1.5 * Math.max(b.p99, 1) })
    }
  }
}

async function rss(port: number): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
  return Number(/^process_resident_memory_bytes(?:\{[^}]*\})? (\S+)/m.exec(text)?.[1] ?? NaN)
}

async function main() {
  const coins = (process.env.BENCH_COINS ?? DEFAULT_COINS.join(',')).split(',')
  const days = Number(process.env.BENCH_DAYS ?? 30)
  const keep = process.env.BENCH_DATA_DIR
  const dir = keep ?? fs.mkdtempSync(path.join(os.tmpdir(), 'bench-'))
  fs.chmodSync(dir, 0o755) // as root the embedded PostgreSQL runs as the OS user postgres, which must reach it
  console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model}, ${fmt(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`)

  // 1. ingestion: fold rate on one core, against a bare loop over the same trades
  if (ONLY.has('fold')) {
    const fold = benchAggregator()
    rows.push({ bench: 'aggregator fold (trades/s, one core)', measured: fmt(fold.tradesPerSecond, 0), baseline: `${fmt(fold.bareLoopPerSecond, 0)} bare loop`, ratio: fold.tradesPerSecond / 1e6, target: '≥ 1,000,000/s (ratio to target ≥ 1)', pass: fold.tradesPerSecond >= 1e6 })
  }

  // 1b. what one more coin costs: memory and CPU on the simulator, REST requests per venue (bench/coins.ts)
  if (ONLY.has('coins')) rows.push(...(await benchCoins({ cpuSeconds, rss })))
  // 1c. universes of 12, 48 and 100 coins: memory, disk per coin-day, backfill, ingest CPU, the views' worst call (bench/scaling.ts)
  if (ONLY.has('scaling')) rows.push(...(await benchScaling({ start, cpuSeconds, rss }, dir)))
  // the coin steps alone need none of the shared store below
  if ([...ONLY].every((s) => s === 'coins' || s === 'scaling')) return report(keep ? null : dir)

  // 2.-6. the simulated service: its backfill, start, reads, memory and event loop (only when one of them is asked for)
  let tickerBody = '{}'
  if (SIM_STEPS.some((x) => ONLY.has(x))) {
    // 2. the full pipeline backfill of the default history on the embedded store
    const store = { DATA_DIR: dir, BENCH_COINS: coins.join(','), BENCH_DAYS: String(days) }
    console.log(`backfilling ${days} days of ${coins.length} coins into the embedded store…`)
    const filler = await start(store)
    // the API while the backfill runs behind it (as after `npm start` on an empty store), then the same load on the same
    // server once it is done: a caller's steady 100 requests/s, not a saturating load, which would only slow the backfill
    const ticker = { url: `http://127.0.0.1:${filler.info.port}/v1/markets/ticker?coin=BTC`, connections: 10, key: filler.info.key, rate: 100 }
    const during = ONLY.has('backfill') ? await load(ticker) : null
    const backfillMs = await filler.backfilled
    const idle = during ? await load(ticker) : null
    if (ONLY.has('backfill') && (!keep || backfillMs > 60_000)) {
      rows.push({ bench: `backfill ${days} d × ${coins.length} coins (simulator on a worker thread → aggregates → store), behind a listening server`, measured: `${fmt(backfillMs / 1000)} s`, baseline: '90 s target', ratio: backfillMs / 90_000, target: '< 90 s (ratio < 1)', pass: backfillMs < 90_000 })
      // its baseline: the simulator by itself over the same days into a counting sink, here, once the server is idle
      const alone = simulatorAlone(days, coins)
      recordTarget('backfill', { measured: `${fmt(backfillMs / 1000)} s (${days} d × ${coins.length} coins)`, baseline: `simulator alone ${fmt(alone.ms / 1000)} s`, ratio: backfillMs / alone.ms, met: backfillMs < 90_000 })
    }
    // only when the load ran inside the backfill (a kept, filled store backfills only today's part)
    if (during && idle && backfillMs > (SECONDS + 2) * 1000) {
      recordTarget('backfillP99', { measured: `p99 ${during.p99} ms`, baseline: `p99 ${idle.p99} ms idle, same server`, ratio: during.p99 / Math.max(idle.p99, 1), met: during.p99 <= 1.5 * Math.max(idle.p99, 1) })
      rows.push({ bench: 'ticker p99 at 100 req/s (10 conns) during the backfill, vs the same once it is done', measured: `p99 ${during.p99} ms (mean ${fmt(during.mean)} ms)`, baseline: `p99 ${idle.p99} ms (mean ${fmt(idle.mean)} ms) idle`, ratio: during.p99 / Math.max(idle.p99, 1), target: '≤ 1.5× idle', pass: during.p99 <= 1.5 * Math.max(idle.p99, 1) })
    }
    const fillerRss = await rss(filler.info.port)
    filler.proc.kill('SIGTERM')
    await new Promise((r) => filler.proc.once('exit', r))
    // start as a user starts it: `npm start` on the filled store, after a clean stop and after an unclean one
    if (ONLY.has('start')) {
      const { warmMs, coldMs } = await benchStart(ROOT, dir)
      rows.push({ bench: 'start to first healthy answer: `npm start`, embedded, warm store, after a clean stop (series left at shutdown)', measured: `${fmt(warmMs / 1000, 2)} s`, baseline: `${fmt(coldMs / 1000, 2)} s after an unclean stop (series read from the store)`, ratio: warmMs / 3000, target: '< 3 s (ratio < 1)', pass: warmMs < 3000 })
    }
    // the steady state: a service started on the filled store (what a restart, or any later day, looks like)
    const svc = await start(store)
    // today's part of the window is backfilled at every start: measured after it
    await svc.backfilled
    const { port, key } = svc.info

    const base = `http://127.0.0.1:${port}`
    tickerBody = await (await fetch(`${base}/v1/markets/ticker?coin=BTC`, { headers: { authorization: `Bearer ${key}` } })).text()
    const bl = await start({ BENCH_BASELINE: '1', BENCH_BODY: tickerBody })
    try {
      // 3. cheap reads against bare Express with the same JSON, each run right after its own baseline run
      if (ONLY.has('cheap')) await cheapReads('', svc, bl)
      // 4. REST shim overhead: the same stored operation through REST and through /graphql
      if (ONLY.has('shim')) {
        const doc = fs.readFileSync(path.join(ROOT, 'schema/operations/v1/ticker.graphql'), 'utf8')
        const viaGql = await load({ url: `${base}/graphql`, connections: 10, key, method: 'POST', body: JSON.stringify({ query: doc, variables: { coin: 'BTC' } }) })
        const viaRest = await load({ url: `${base}/v1/markets/ticker?coin=BTC`, connections: 10, key })
        rows.push({ bench: 'REST shim vs POST /graphql (same operation), mean latency', measured: `${fmt(viaRest.mean, 2)} ms`, baseline: `${fmt(viaGql.mean, 2)} ms GraphQL`, ratio: viaRest.mean / viaGql.mean, target: '≤ 1.15', pass: viaRest.mean / viaGql.mean <= 1.15 })
      }

      // 4b. the all-coins views cold after a data tick and warm, the snapshot's age, the compressed 1m × 24 h ohlc
      if (ONLY.has('views')) {
        const bare = await load({ url: `http://127.0.0.1:${bl.info.port}/static`, connections: 10 })
        rows.push(...(await benchViews(base, key!, bare.p99, SECONDS, load)))
      }
      // 5. heavy reads, p99 at 10 connections
      const heavy: [string, string, number][] = [
        ['snapshot (refresh cache)', '/v1/signals/snapshot', 20],
        ['ohlc 30 d resampled to 1h, one coin', '/v1/markets/ohlc?coin=BTC&interval=1h&lookback=30d', 50],
        ['volume profile 30 d, 200 bins', '/v1/structure/volume-profile?coin=BTC&lookback=30d&bins=200', 100],
        ['markets overview (screener), all coins', '/v1/markets/overview', 50],
        ['funding arbitrage, all coins × venue pairs', '/v1/funding/arbitrage', 50],
        ['regime history 30 d at 1h, one coin', '/v1/signals/regime?coin=BTC&lookback=30d&limit=5000', 50],
        ['large trades ≥ 100k USD, one page of 100', '/v1/flow/large-trades?min_usd=100000', 50],
        ['liquidation cascade', `/v1/signals/liquidation-cascade?coin=BTC&trigger_price=${await triggerPrice(base, key!)}`, 50],
        // series (issue 17): 30 days at 1h, under 50 ms p99
        ['OI history 30 d at 1h, one coin', '/v1/oi/history?coin=BTC&interval=1h&lookback=30d&limit=5000', 50],
        ['funding history 30 d at 1h, one coin', '/v1/funding/history?coin=BTC&interval=1h&lookback=30d&limit=5000', 50],
        ['CVD 30 d at 1h, perp and spot, one coin', '/v1/flow/cvd?coin=BTC&interval=1h&lookback=30d&limit=5000', 50],
        ['taker volume 30 d at 1h, one coin', '/v1/flow/taker-volume?coin=BTC&interval=1h&lookback=30d&limit=5000', 50],
        ['basis 30 d at 1h, one coin', '/v1/structure/basis?coin=BTC&interval=1h&lookback=30d&limit=5000', 50],
      ]
      const bare10 = ONLY.has('heavy') ? await load({ url: `http://127.0.0.1:${bl.info.port}/static`, connections: 10 }) : null
      for (const [name, p, target] of ONLY.has('heavy') ? heavy : []) {
        await fetch(`${base}${p}`, { headers: { authorization: `Bearer ${key}` } }) // warm the caches once
        const r = await load({ url: `${base}${p}`, connections: 10, key })
        rows.push({ bench: `${name}, p99 at 10 conns`, measured: `${r.p99} ms (${fmt(r.rps, 0)} req/s)`, baseline: `${bare10!.p99} ms bare p99`, ratio: r.p99 / target, target: `p99 < ${target} ms (ratio < 1)`, pass: r.p99 < target })
      }
      // 6. steady-state memory with the history loaded
      if (ONLY.has('memory')) {
        await new Promise((r) => setTimeout(r, 5000))
        const mem = await rss(port)
        const bare = processRss(bl.proc.pid)
        const filled = backfillMs > 60_000 ? `after backfilling ${days} d` : `after ${fmt(backfillMs / 1000)} s of backfill (the kept store was filled)`
        recordTarget('memory', { measured: `${fmt(fillerRss / 2 ** 20, 0)} MB ${filled}; ${fmt(mem / 2 ** 20, 0)} MB restarted and serving`, baseline: `bare Express process ${fmt(bare / 2 ** 20, 0)} MB`, ratio: fillerRss / bare, met: fillerRss < 350 * 2 ** 20 })
        rows.push({ bench: `resident memory, ${days} d loaded, serving (restarted)`, measured: `${fmt(mem / 2 ** 20, 0)} MB`, baseline: `${fmt(fillerRss / 2 ** 20, 0)} MB in the process that backfilled`, ratio: mem / (350 * 2 ** 20), target: '< 350 MB (ratio < 1)', pass: mem < 350 * 2 ** 20 })
      }
      // 6b. the event loop under each endpoint's most demanding call, after memory (their answers are the largest)
      if (ONLY.has('loop')) rows.push(...(await benchEventLoop(base, key!, coins)))
    } finally {
      bl.proc.kill('SIGTERM')
      svc.proc.kill('SIGTERM')
      // its last writes (the series left for the next start) go into the store's directory: done before it is removed
      await new Promise((r) => svc.proc.once('exit', r))
    }
    // 3b. the same ticker with charges answered from memory (CREDIT_DURABILITY=memory, written every CREDIT_FLUSH_MS)
    // against the durable default measured above (each answer waits for its batch's write): issue 32's comparison
    if (ONLY.has('cheap')) {
      const mem = await start({ ...store, CREDIT_DURABILITY: 'memory' })
      await mem.backfilled
      const bare = await start({ BENCH_BASELINE: '1', BENCH_BODY: tickerBody })
      try {
        await cheapReads(', charges answered from memory (CREDIT_DURABILITY=memory)', mem, bare, ['/v1/markets/ticker?coin=BTC'])
      } finally {
        bare.proc.kill('SIGTERM')
        mem.proc.kill('SIGTERM')
        await new Promise((r) => mem.proc.once('exit', r))
      }
    }

  }

  // 6c. the adversarial run's heavy mix against another key's ticker, `npm start` on the filled store (bench/mix.ts)
  if (ONLY.has('mix')) rows.push(...(await benchMix(ROOT, dir, SECONDS, coins)))

  // 7. the same cheap reads and memory with PostgreSQL as the store (database work off the service's thread)
  if (ONLY.has('postgres') && (await postgresAvailable())) {
    const schema = await freshSchema('benchsvc')
    const pgSvc = await start({ DATABASE_URL: schema.url, BENCH_COINS: coins.join(','), BENCH_DAYS: '0.1' })
    await pgSvc.backfilled
    try {
      const bare = await start({ BENCH_BASELINE: '1', BENCH_BODY: tickerBody })
      await cheapReads(' on PostgreSQL', pgSvc, bare)
      bare.proc.kill('SIGTERM')
      const mem = await rss(pgSvc.info.port)
      rows.push({ bench: 'resident memory on PostgreSQL, serving', measured: `${fmt(mem / 2 ** 20, 0)} MB`, baseline: '500 MB target', ratio: mem / (500 * 2 ** 20), target: '< 500 MB (ratio < 1)', pass: mem < 500 * 2 ** 20 })
    } finally {
      pgSvc.proc.kill('SIGTERM')
      await new Promise((r) => pgSvc.proc.once('exit', r))
      await schema.drop()
    }
  }

  // 8. credits on PostgreSQL
  const credits = ONLY.has('credits') ? await benchCredits() : null
  if (credits) {
    rows.push({ bench: 'charges/s on PostgreSQL, 100 accounts', measured: fmt(credits.manyAccounts, 0), baseline: `${fmt(credits.selectOne, 0)} SELECT 1/s`, ratio: credits.manyAccounts / 3000, target: '≥ 3,000/s, exact (ratio ≥ 1)', pass: credits.manyAccounts >= 3000 && credits.exact })
    rows.push({ bench: 'charges/s on PostgreSQL, one account', measured: fmt(credits.oneAccount, 0), baseline: `${fmt(credits.selectOne, 0)} SELECT 1/s`, ratio: credits.oneAccount / 1000, target: '≥ 1,000/s, exact (ratio ≥ 1)', pass: credits.oneAccount >= 1000 && credits.exact })
  } else if (ONLY.has('credits')) console.log('PostgreSQL not reachable: credit benchmark skipped')

  // the embedded store's two engines side by side: embedded PostgreSQL and PGlite in a thread (bench/store-engines.ts)
  if (ONLY.has('store')) rows.push(...(await benchStoreEngines({ root: ROOT, start, load, days, coins, tickerBody: () => tickerBody })))

  // a live venue's history: the Binance double on loopback, the service started as a user starts it (bench/history-time.ts)
  if (ONLY.has('history')) rows.push(...(await benchHistory(start, { days, coins, dir: path.join(dir, 'history') })))

  // the split deployment (ROLE=ingest + 2 × ROLE=api over NATS) against one process, same run (bench/scale-out.ts)
  if (ONLY.has('scale')) rows.push(...(await benchScaleOut(SECONDS, load)))

  report(keep ? null : dir)
}

function report(remove: string | null) {
  if (remove) fs.rmSync(remove, { recursive: true, force: true })
  const table = ['| benchmark | measured | baseline (same run) | ratio | target | ok |', '|---|---|---|---|---|---|', ...rows.map((r) => `| ${r.bench} | ${r.measured} | ${r.baseline} | ${fmt(r.ratio, 2)} | ${r.target} | ${r.pass ? 'yes' : 'NO'} |`)].join('\n')
  console.log(`\n${table}\n\n${targetsTable()}\n`)
  fs.mkdirSync(path.join(ROOT, 'bench', 'results'), { recursive: true })
  fs.writeFileSync(path.join(ROOT, 'bench', 'results', 'latest.md'), `${new Date().toISOString()}\n\n${table}\n\n${targetsTable()}\n`)
}

async function triggerPrice(base: string, key: string): Promise<number> {
  const r = (await (await fetch(`${base}/v1/markets/ticker?coin=BTC&exchange=binance`, { headers: { authorization: `Bearer ${key}` } })).json()) as { data: { mark_price: number }[] }
  return Math.round(r.data[0]!.mark_price * 0.95)
}

main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e)
    process.exit(1)
  },
)
