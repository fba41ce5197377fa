// Keeping an embedded store running: start it, and when it ends without being asked to (a crash, a kill), tell the
// listeners at once (the service answers 503 `unavailable` while it is down) and start it again, waiting longer after
// each failure in a row. The engines (postgres.ts, pglite.ts) only say how to start one instance and how it ends.

export interface Running {
  /** settles when this instance has ended, for whatever reason */
  exited: Promise<unknown>
  /** end it cleanly (the caller waits for `exited` too) */
  stop(): Promise<void>
}

export interface StoreLog {
  info(msg: string): void
  warn(msg: string): void
  error(msg: string): void
}

/** the first restart waits this long; each failure in a row doubles it, up to RESTART_MAX_MS */
const RESTART_MIN_MS = 200
const RESTART_MAX_MS = 10_000
/** an instance that ran this long resets the wait to RESTART_MIN_MS */
const HEALTHY_MS = 30_000

export interface Supervisor {
  stop(): Promise<void>
  /** cb(reason) each time the store ended without being asked to */
  onCrash(cb: (reason: string) => void): void
  /** cb() each time a restarted store accepts connections again */
  onRestart(cb: () => void): void
}

/** run `start` until stop(): the first start's failure is thrown, later ones are retried with backoff */
export async function supervise(name: string, start: () => Promise<Running>, log: StoreLog): Promise<Supervisor> {
  let current: Running | null = await start()
  let stopping = false
  let wait = RESTART_MIN_MS
  let startedAt = Date.now()
  const crashed: ((reason: string) => void)[] = []
  const restarted: (() => void)[] = []
  let timer: NodeJS.Timeout | undefined
  let loop: Promise<void> = Promise.resolve()

  const watch = (r: Running) => {
    void r.exited.then((why) => {
      if (stopping || current !== r) return
      current = null
      const reason = `${name} ended unexpectedly (${String(why)})`
      log.error(`${reason}; starting it again`)
      for (const cb of crashed) cb(reason)
      if (Date.now() - startedAt > HEALTHY_MS) wait = RESTART_MIN_MS
      loop = again()
    })
  }

  const again = async (): Promise<void> => {
    while (!stopping) {
      await new Promise<void>((resolve) => (timer = setTimeout(resolve, wait)))
      if (stopping) return
      try {
        const r = await start()
        if (stopping) {
          await r.stop()
          return
        }
        current = r
        startedAt = Date.now()
        watch(r)
        log.info(`${name} is running again`)
        for (const cb of restarted) cb()
        return
      } catch (e) {
        wait = Math.min(RESTART_MAX_MS, wait * 2)
        log.error(`${name} did not start again: ${e instanceof Error ? e.message : String(e)}; next try in ${wait} ms`)
      }
    }
  }

  watch(current)
  return {
    onCrash: (cb) => void crashed.push(cb),
    onRestart: (cb) => void restarted.push(cb),
    async stop() {
      stopping = true
      clearTimeout(timer)
      await loop
      const r = current
      current = null
      if (r) {
        await r.stop()
        await r.exited
      }
    },
  }
}
