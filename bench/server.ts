// The service under benchmark, in its own process, started as `npm start` starts it (startRole, createApp with the
// role's metrics) on the chosen store, simulating BENCH_COINS with BENCH_DAYS of history backfilled behind the server:
// prints one JSON line {port, key, keys} when it listens, and another, {backfillMs}, when the backfill is done.
// A second mode (BENCH_BASELINE=1) serves a bare Express route with a precomputed JSON body, nothing else.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { pino } from 'pino'
import { createServices } from '../src/bootstrap.js'
import { loadConfig } from '../src/config.js'
import { startRole } from '../src/roles.js'
import { createApp } from '../src/server.js'
import { signup } from '../src/accounts/accounts.js'

async function baseline() {
  const body = process.env.BENCH_BODY ?? '{}'
  const app = express()
  app.get('/static', (_req, res) => res.type('json').send(body))
  const server = createServer(app).listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: (server.address() as AddressInfo).port, backfillMs: 0 })))
}

async function service() {
  // npm start's own path (src/main.ts): the services, the role's market runtime (live simulator, flushes, and the
  // backfill behind them on a worker thread), the app with its metrics. BENCH_COINS and BENCH_DAYS are the simulated
  // coins and the backfill window; the failed-authentication guard stays on at its default, as users run it; the
  // per-key limit is off (one key is driven far past 50 requests per second on purpose); one process on its own store
  // (no bus, no Redis, whatever the caller's environment says).
  const { NATS_URL: _nats, REDIS_URL: _redis, ROLE: _role, ...env } = process.env
  const config = loadConfig({ ...env, MARKET_SOURCE: 'simulator', SIM_COINS: process.env.BENCH_COINS ?? 'BTC,ETH', BACKFILL_DAYS: process.env.BENCH_DAYS ?? '30', RATE_LIMIT_RPS: '0', LOG_LEVEL: 'warn' })
  const services = await createServices(config, { logger: pino({ level: 'warn' }) })
  const t0 = Date.now()
  const running = await startRole(services)
  const accounts = Number(process.env.BENCH_ACCOUNTS ?? 1)
  const keys: string[] = []
  for (let i = 0; i < accounts; i++) keys.push((await signup(services.db, `bench${i}-${Date.now()}@example.com`, 1_000_000_000)).apiKey)
  const server = createServer(createApp(services, running.metrics))
  server.keepAliveTimeout = 65_000
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  console.log(JSON.stringify({ port: (server.address() as AddressInfo).port, key: keys[0], keys }))
  // the backfill started on the turn of the loop after the runtime (or, on PostgreSQL, with its lease): under way by now
  void running.runtime!.backfill.then(() => console.log(JSON.stringify({ backfillMs: Date.now() - t0 })))
  // as `npm start` stops: the last write done, the hot series are left with the store for the next start
  process.on('SIGTERM', () => {
    server.close()
    void running
      .stop()
      .then(() => services.market.leaveSeries())
      .finally(() => void services.db.close().finally(() => process.exit(0)))
  })
}

void (process.env.BENCH_BASELINE ? baseline() : service())
