// The engines a scale-out test needs on loopback: PostgreSQL (a fresh database per run), NATS with JetStream
// (unique stream and subject prefix per run) and Redis (unique key prefix). Each missing engine skips the test
// with a message naming it; CI sets REQUIRE_POSTGRES / REQUIRE_NATS / REQUIRE_REDIS so a missing one fails.
import { spawn, type ChildProcess } from 'node:child_process'
import net from 'node:net'
import path from 'node:path'
import pg from 'pg'
import { NODE_FLAGS } from '../../scripts/build.mjs'
import { startedChild } from './child.js'
import { PG_TEST_URL, postgresAvailable } from './postgres.js'

const ROOT = path.resolve(import.meta.dirname, '..', '..')
export const NATS_TEST_URL = process.env.NATS_TEST_URL ?? 'nats://127.0.0.1:4222'
export const REDIS_TEST_URL = process.env.REDIS_TEST_URL ?? 'redis://127.0.0.1:6379'

/** does something answer `probe` with a line matching `expect` on host:port within 2 s */
function answers(url: string, probe: string | null, expect: RegExp): Promise<boolean> {
  const u = new URL(url)
  return new Promise((resolve) => {
    const socket = net.connect({ host: u.hostname, port: Number(u.port) })
    let got = ''
    const done = (ok: boolean) => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(2000, () => done(false))
    socket.on('error', () => done(false))
    socket.on('connect', () => probe && socket.write(probe))
    socket.on('data', (d) => {
      got += d.toString()
      if (expect.test(got)) done(true)
    })
  })
}

/** whether Redis answers at REDIS_TEST_URL; a test that needs only Redis skips, saying so, when it does not (REQUIRE_REDIS=1: throws) */
export async function redisReachable(): Promise<boolean> {
  if (await answers(REDIS_TEST_URL, 'PING\r\n', /\+PONG/)) return true
  const message = `Redis at ${REDIS_TEST_URL} is not reachable: skipping (start it as .ci/run does)`
  if (process.env.REQUIRE_REDIS === '1') throw new Error(`REQUIRE_REDIS=1 but ${message}`)
  console.warn(message)
  return false
}

/** every engine the test needs (each unless told not to), or null with the reason it skips (throws in CI, where they are required) */
export async function scaleOutEngines(opts: { redis?: boolean; postgres?: boolean; nats?: boolean } = {}): Promise<string | null> {
  const missing: [string, string][] = []
  if (opts.postgres !== false && !(await postgresAvailable())) missing.push(['REQUIRE_POSTGRES', `PostgreSQL at ${PG_TEST_URL}`])
  // the server's INFO line says whether JetStream is on
  if (opts.nats !== false && !(await answers(NATS_TEST_URL, null, /"jetstream":true/))) missing.push(['REQUIRE_NATS', `NATS with JetStream at ${NATS_TEST_URL}`])
  if (opts.redis !== false && !(await answers(REDIS_TEST_URL, 'PING\r\n', /\+PONG/))) missing.push(['REQUIRE_REDIS', `Redis at ${REDIS_TEST_URL}`])
  if (!missing.length) return null
  const message = `the test needs ${missing.map(([, m]) => m).join(', ')}: not reachable, skipping (start them as .ci/run does)`
  if (missing.some(([flag]) => process.env[flag] === '1')) throw new Error(`${missing.map(([f]) => `${f}=1`).join(' ')} but ${message}`)
  console.warn(message)
  return message
}

/** a database of its own on the test server, dropped by drop() */
export async function freshDatabase(tag: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${tag}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
  const admin = new pg.Client({ connectionString: PG_TEST_URL })
  await admin.connect()
  try {
    await admin.query(`CREATE DATABASE "${name}"`)
  } finally {
    await admin.end()
  }
  const u = new URL(PG_TEST_URL)
  u.pathname = `/${name}`
  return {
    url: u.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: PG_TEST_URL })
      await c.connect()
      try {
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)
      } finally {
        await c.end()
      }
    },
  }
}

/** a small pool on a test database, for the test's own reads and writes beside the nodes */
export function testPool(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 2 })
  // an idle pooled connection the server ends emits 'error' on the pool, which without a listener ends the test process
  // (a query reports its own errors; the pool makes a new connection for the next one)
  pool.on('error', () => {})
  return pool
}

export interface Node {
  name: string
  proc: ChildProcess
  url: string
  output(): string
  exited: Promise<number | null>
}

/** a service process (`npm start`'s entry, preloaded with the shared fast clock); resolves once it listens */
export async function startNode(name: string, env: Record<string, string>, clock: { epoch: number; speed: number }): Promise<Node> {
  // offline like the tests: the default MARKET_SOURCE=auto finds no venue
  const proc = spawn(process.execPath, [...NODE_FLAGS, '--import', path.join(ROOT, 'test', 'helpers', 'no-network.mjs'), '--import', path.join(ROOT, 'test', 'helpers', 'clock-speed.mjs'), 'scripts/start.mjs'], {
    cwd: ROOT,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', CLOCK_EPOCH_MS: String(clock.epoch), CLOCK_SPEED: String(clock.speed), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const { ready: url, exited, output } = await startedChild(proc, name, (out) => /running at (http:\/\/\S+)/.exec(out)?.[1])
  return { name, proc, url, output, exited }
}

/** poll `fn` until it returns a value (not undefined), at most timeoutMs */
export async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 30_000, everyMs = 100): Promise<T> {
  const end = Date.now() + timeoutMs
  let last: unknown
  for (;;) {
    try {
      const v = await fn()
      if (v !== undefined) return v
    } catch (e) {
      last = e
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ''}`)
    await new Promise((r) => setTimeout(r, everyMs))
  }
}
