// How long a call holds the event loop: a 1 ms timer ticks while the call runs, and the longest stretch between two
// ticks is the longest time nothing else (a /healthz, another caller) could run. The stretch is measured in the
// process's CPU time (user + system) as well as in wall time: on a machine shared with other work, a stretch's wall
// time also counts the time other processes held the cores, its CPU time only what this process did.

// the main thread's own CPU time where Node has it (process.threadCpuUsage, Node 23.9+: the CI's Node 24): the event
// loop is that thread, and the process's CPU also counts the worker threads (analytics pool, simulation, libuv's
// pool) that run beside it while the loop is held; the process's CPU time on older Node
const threadCpu = (process as unknown as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage
const cpuMs = () => {
  const u = threadCpu ? threadCpu.call(process) : process.cpuUsage()
  return (u.user + u.system) / 1000
}

export interface LoopHold<T> {
  result: T
  /** the longest stretch without a tick, wall clock */
  wallMs: number
  /** the CPU time the process spent in the stretch that cost it the most */
  cpuMs: number
}

/** settleMs: how long to keep ticking after the call answered, to catch work it left for later turns (a deferred refresh) */
export async function loopHeld<T>(call: () => Promise<T>, opts: { settleMs?: number } = {}): Promise<LoopHold<T>> {
  let [wall, cpu] = [0, 0]
  let [lastWall, lastCpu] = [performance.now(), cpuMs()]
  let on = true
  const tick = () => {
    const [w, c] = [performance.now(), cpuMs()]
    wall = Math.max(wall, w - lastWall)
    cpu = Math.max(cpu, c - lastCpu)
    ;[lastWall, lastCpu] = [w, c]
    if (on) setTimeout(tick, 1)
  }
  setTimeout(tick, 1)
  try {
    const result = await call()
    // the stretch the call ended in counts too
    await new Promise<void>((r) => setTimeout(r, opts.settleMs ?? 2))
    return { result, wallMs: wall, cpuMs: cpu }
  } finally {
    on = false
  }
}
