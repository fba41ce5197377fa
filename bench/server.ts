// The service under benchmark, in its own process: the real app on the chosen store, with BENCH_DAYS of
// simulated history for BENCH_COINS and the live simulator running, started as `npm start` starts: prints one JSON
// line {port, key, keys} when it listens, and another, {backfillMs}, when the backfill behind it is done.
// A second mode (BENCH_BASELINE=1) serves a bare Express route with a precomputed JSON body, nothing else.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { pino } from 'pino'
import { createServices } from '../src/bootstrap.js'
import { loadConfig } from '../src/config.js'
import { runBackfill } from '../src/market/backfill.js'
import { FLUSH_EVERY_MS } from '../src/market/runtime.js'
import { Ingest } from '../src/market/ingest.js'
import { MarketSimulator } from '../src/market/simulator/index.js'
import { WorkerHistory } from '../src/market/simulator/worker-history.js'
import { createApp } from '../src/server.js'
import { signup } from '../src/accounts/accounts.js'
import { DEFAULT_COINS } from '../src/market/coins.js'

async function baseline() {
  const body = process.env.BENCH_BODY ?? '{}'
  const app = express()
  app.get('/static', (_req, res) => res.type('json').send(body))
  const server = createServer(app).listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: (server.address() as AddressInfo).port, backfillMs: 0 })))
}

async function service() {
  const coins = (process.env.BENCH_COINS ?? 'BTC,ETH').split(',')
  // the failed-authentication guard stays on at its default, as users run it; the per-key limit is off (one key is
  // driven far past 50 requests per second on purpose)
  const config = loadConfig({ ...process.env, RATE_LIMIT_RPS: '0', LOG_LEVEL: 'warn' })
  const services = await createServices(config, { logger: pino({ level: 'warn' }) })
  // as `npm start` runs: the live feed and the server first, the backfill behind them, simulated on a worker thread
  const ingest = new Ingest({ db: services.db, market: services.market, cacheHours: true })
  await ingest.resume()
  const sim = new MarketSimulator({ seed: 42, coins })
  sim.live(ingest, { fromTs: Date.now() })
  let flushing: Promise<unknown> = Promise.resolve()
  const timer = setInterval(() => {
    ingest.advance(Date.now())
    flushing = ingest.flush().catch(() => {})
  }, FLUSH_EVERY_MS)
  timer.unref()
  const accounts = Number(process.env.BENCH_ACCOUNTS ?? 1)
  const keys: string[] = []
  for (let i = 0; i < accounts; i++) keys.push((await signup(services.db, `bench${i}-${Date.now()}@example.com`, 1_000_000_000)).apiKey)
  const server = createServer(createApp(services))
  server.keepAliveTimeout = 65_000
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  console.log(JSON.stringify({ port: (server.address() as AddressInfo).port, key: keys[0], keys }))
  const t0 = Date.now()
  // BENCH_HISTORY=main: simulated on the main thread, as before the worker (for a comparison in one run)
  const history = process.env.BENCH_HISTORY === 'main' ? new MarketSimulator({ seed: 42, coins }) : new WorkerHistory({ seed: 42, coins })
  // the default coins are backfilled under the name `npm start` gives its own simulated history (SIM_SEED 42), so a
  // service started with `npm start` on this store finds its history there (bench/start-time.ts)
  const sourceName = coins.join(',') === DEFAULT_COINS.join(',') ? 'simulator:42' : `bench:${coins}`
  let stopping = false
  const backfill = runBackfill({ db: services.db, market: services.market, source: history, sourceName, now: Date.now(), days: Number(process.env.BENCH_DAYS ?? 30), aborted: () => stopping })
    .then(() => console.log(JSON.stringify({ backfillMs: Date.now() - t0 })))
    .finally(() => (history instanceof WorkerHistory ? history.close() : undefined))
  // as `npm start` stops (src/main.ts): the last write done, the hot series are left with the store for the next start
  process.on('SIGTERM', () => {
    stopping = true
    sim.stop()
    clearInterval(timer)
    server.close()
    void Promise.allSettled([backfill, flushing])
      .then(() => ingest.flush({ final: true }))
      .then(() => services.market.leaveSeries())
      .finally(() => void services.db.close().finally(() => process.exit(0)))
  })
}

void (process.env.BENCH_BASELINE ? baseline() : service())
