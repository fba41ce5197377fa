// The embedded store's launcher (src/store/embedded/): a PostgreSQL (or PGlite thread) this process starts, owns,
// restarts after a crash and stops; one owner per data directory; nothing left running after the owner is killed.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterAll, describe, expect, it, onTestFinished } from 'vitest'
import { StoreLockedError } from '../../../src/store/data-dir-lock.js'
import { openDatabase } from '../../../src/store/database.js'
import { startEmbeddedStore } from '../../../src/store/embedded/index.js'
import { startTestService } from '../../helpers/service.js'
import { killed } from '../../helpers/child.js'

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'embedded-store-'))
// as root the cluster runs as the OS user postgres, which must reach it (mkdtemp makes the directory 0700)
fs.chmodSync(root, 0o755)
afterAll(() => fs.rmSync(root, { recursive: true, force: true }))

const logged = () => {
  const lines: string[] = []
  return { lines, log: { info: (m: string) => lines.push(m), warn: (m: string) => lines.push(m), error: (m: string) => lines.push(m) } }
}

async function ask(url: string, text = 'SELECT 1 AS one'): Promise<unknown[]> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 })
  c.on('error', () => {})
  await c.connect()
  try {
    return (await c.query(text)).rows
  } finally {
    await c.end()
  }
}

const postmasterPid = (dir: string) => Number(fs.readFileSync(path.join(dir, 'cluster', 'postmaster.pid'), 'utf8').split('\n')[0])
const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 30_000): Promise<void> {
  const end = Date.now() + ms
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe('startEmbeddedStore: postgres', () => {
  it('starts on loopback with a password of its own, restarts itself after a crash, stops on stop()', { timeout: 120_000 }, async () => {
    const dataDir = path.join(root, 'crash')
    const { lines, log } = logged()
    const store = await startEmbeddedStore({ engine: 'postgres', dataDir, log })
    const crashes: string[] = []
    store.onCrash((r) => crashes.push(r))
    let last = 0
    try {
      const url = new URL(store.url)
      expect(url.hostname).toBe('127.0.0.1')
      expect(url.password.length).toBeGreaterThan(20)
      expect(fs.statSync(path.join(store.dir, 'password')).mode & 0o777).toBe(0o600)
      expect(await ask(store.url)).toEqual([{ one: 1 }])
      // a wrong password is refused: the port is not open to any local process
      const wrong = new URL(store.url)
      wrong.password = 'nope'
      await expect(ask(wrong.toString())).rejects.toThrow(/password authentication failed/)

      const first = postmasterPid(store.dir)
      process.kill(first, 'SIGKILL')
      await until('the crash to be reported', () => crashes.length === 1)
      expect(crashes[0]).toMatch(/ended unexpectedly \(signal SIGKILL\)/)
      // started again by the launcher, same URL, without anyone asking
      await until('the launcher to say the store runs again', () => lines.some((l) => /running again/.test(l)), 60_000)
      expect(await ask(store.url)).toEqual([{ one: 1 }])
      last = postmasterPid(store.dir)
      expect(last).not.toBe(first)
    } finally {
      await store.stop()
    }
    expect(fs.existsSync(path.join(store.dir, 'cluster', 'postmaster.pid'))).toBe(false)
    expect(alive(last)).toBe(false)
    await expect(ask(store.url)).rejects.toThrow()
  })

  it('one owner per data directory; a store of the old in-process PGlite is named and left alone', { timeout: 120_000 }, async () => {
    const dataDir = path.join(root, 'locked')
    fs.mkdirSync(path.join(dataDir, 'pglite'), { recursive: true })
    fs.writeFileSync(path.join(dataDir, 'pglite', 'PG_VERSION'), '17\n')
    const { lines, log } = logged()
    const store = await startEmbeddedStore({ engine: 'postgres', dataDir, log })
    try {
      expect(lines.join('\n')).toMatch(/pglite holds a store of the earlier in-process PGlite; it is not read .*EMBEDDED_STORE=pglite/)
      await expect(startEmbeddedStore({ engine: 'postgres', dataDir, log })).rejects.toThrow(StoreLockedError)
    } finally {
      await store.stop()
    }
    expect(fs.readdirSync(path.join(dataDir, 'pglite'))).toEqual(['PG_VERSION'])
  })

  it('leaves no postgres running after its owner is killed with -9', { timeout: 120_000 }, async () => {
    const dataDir = path.join(root, 'orphan')
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, '..', '..', 'helpers', 'store-owner.ts'), dataDir], { stdio: ['ignore', 'pipe', 'inherit'] })
    // not started at all: 'error' and never 'exit' (an 'error' without a listener would end the test process)
    const exited = new Promise((r) => {
      child.once('exit', r)
      child.once('error', r)
    })
    // a failure before the kill below leaves no owner (nor its store) running past the test
    onTestFinished(() => killed(child))
    const started = await new Promise<{ url: string; pid: number }>((resolve, reject) => {
      let out = ''
      child.stdout!.on('data', (d: Buffer) => {
        out += d.toString()
        if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]!) as { url: string; pid: number })
      })
      void exited.then((why) => reject(new Error(`the owner exited first (${String(why)}): ${out}`)))
    })
    expect(await ask(started.url)).toEqual([{ one: 1 }])
    child.kill('SIGKILL')
    await exited
    await until('the orphaned postmaster to stop', () => !alive(started.pid), 15_000)
    // and the next owner starts on the same data
    const store = await startEmbeddedStore({ engine: 'postgres', dataDir, log: logged().log })
    await store.stop()
  })
})

describe('startEmbeddedStore: pglite', () => {
  it('serves PGlite from a thread over the wire protocol, in DATA_DIR/pglite', { timeout: 120_000 }, async () => {
    const dataDir = path.join(root, 'pglite-engine')
    const store = await startEmbeddedStore({ engine: 'pglite', dataDir, log: logged().log })
    try {
      expect(store.dir).toBe(path.join(dataDir, 'pglite'))
      await ask(store.url, 'CREATE TABLE t (v int); INSERT INTO t VALUES (7)')
      expect(await ask(store.url, 'SELECT v FROM t')).toEqual([{ v: 7 }])
    } finally {
      await store.stop()
    }
    expect(fs.existsSync(path.join(dataDir, 'pglite', 'PG_VERSION'))).toBe(true)
  })
})

describe('a crash of the store, as callers see it', () => {
  it('is answered 503 unavailable (and /healthz says so) while it is down, never a hang; the service recovers by itself', { timeout: 120_000 }, async () => {
    const dataDir = path.join(root, 'service')
    const db = await openDatabase({ kind: 'embedded', engine: 'postgres', dataDir, timeoutMs: 2000 }, { log: logged().log })
    const t = await startTestService({ db, env: { MARKET_SOURCE: 'none' } })
    try {
      const { apiKey } = await t.signup()
      expect((await t.get('/v1/account', apiKey)).status).toBe(200)
      expect((await t.fetch('/healthz')).status).toBe(200)
      process.kill(postmasterPid(db.embedded!.dir), 'SIGKILL')
      const t0 = Date.now()
      // credits are charged in the store on every call: a 503 (nothing charged), not a hang
      const down = await t.get('/v1/markets/exchanges', apiKey)
      expect(down.status).toBe(503)
      expect(((await down.json()) as { code: string }).code).toBe('unavailable')
      const health = await t.fetch('/healthz')
      expect(health.status).toBe(503)
      expect(((await health.json()) as { status: string }).status).toBe('unavailable')
      const ready = await t.fetch('/readyz')
      expect(ready.status).toBe(503)
      expect(((await ready.json()) as { store: { reachable: boolean } }).store.reachable).toBe(false)
      expect(Date.now() - t0).toBeLessThan(10_000)
      await until('the service to answer again', async () => (await t.get('/v1/markets/exchanges', apiKey)).status === 200, 60_000)
      expect((await t.fetch('/healthz')).status).toBe(200)
      expect((await t.fetch('/readyz')).status).toBe(200)
    } finally {
      await t.close()
      await db.close()
    }
  })
})
