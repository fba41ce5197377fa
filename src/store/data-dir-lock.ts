// The embedded store belongs to one process: a lock on its data directory (proper-lockfile: an atomic mkdir of
// `<dir>.lock`, its mtime refreshed while held, so a lock left by a crashed process goes stale), and beside it a
// note of who holds it. A second process on the same directory (server, backfill, import, migrate) stops with an
// error naming the holder instead of starting a second server on the same files (two writers corrupt the directory).
import fs from 'node:fs'
import os from 'node:os'
import lockfile from 'proper-lockfile'

export interface LockHolder {
  pid: number
  host: string
  command: string
  since: string
}

export class StoreLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly holder: LockHolder | null,
  ) {
    const who = holder ? `process ${holder.pid} on ${holder.host} (${holder.command}, since ${holder.since})` : 'another process'
    super(
      `the embedded store ${dir} is in use by ${who}. One process owns it at a time: stop that process first, or run ` +
        `both against PostgreSQL (DATABASE_URL=postgres://…). Lock: ${dir}.lock`,
    )
  }
}

/** a lock older than this without a refresh is stale (its holder died without releasing it) */
const STALE_MS = 10_000

const holderFile = (dir: string) => `${dir}.lock-holder.json`

function readHolder(dir: string): LockHolder | null {
  try {
    return JSON.parse(fs.readFileSync(holderFile(dir), 'utf8')) as LockHolder
  } catch {
    return null
  }
}

/** the holder is a process of this machine that no longer exists */
function holderIsGone(holder: LockHolder | null): boolean {
  if (!holder || holder.host !== os.hostname() || holder.pid === process.pid) return false
  try {
    process.kill(holder.pid, 0)
    return false
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH'
  }
}

/**
 * Take the directory's lock (the directory must exist) and return its release. A lock whose holder is a process
 * of this machine that has exited is taken over at once; one that another process holds throws StoreLockedError.
 * `onLost` runs if the lock is taken away while held (its refresh failed for longer than STALE_MS).
 */
export async function lockDataDir(dir: string, onLost: (err: Error) => void = () => {}): Promise<() => Promise<void>> {
  const take = () => lockfile.lock(dir, { stale: STALE_MS, realpath: false, onCompromised: onLost })
  let release: () => Promise<void>
  try {
    release = await take()
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ELOCKED') throw e
    const holder = readHolder(dir)
    if (!holderIsGone(holder)) throw new StoreLockedError(dir, holder)
    fs.rmSync(`${dir}.lock`, { recursive: true, force: true })
    try {
      release = await take()
    } catch (again) {
      if ((again as NodeJS.ErrnoException).code === 'ELOCKED') throw new StoreLockedError(dir, readHolder(dir))
      throw again
    }
  }
  const holder: LockHolder = { pid: process.pid, host: os.hostname(), command: process.argv.slice(1).join(' ').slice(0, 200) || 'node', since: new Date().toISOString() }
  fs.writeFileSync(holderFile(dir), `${JSON.stringify(holder)}\n`)
  let released = false
  return async () => {
    if (released) return
    released = true
    fs.rmSync(holderFile(dir), { force: true })
    await release().catch(() => {})
  }
}
