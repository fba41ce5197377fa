// The service as a real process (the README's `npm start`), for tests of start-up, shutdown and restarts.
import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'
import { NODE_FLAGS } from '../../scripts/build.mjs'
import { startedChild } from './child.js'

const ROOT = path.resolve(import.meta.dirname, '..', '..')
const NO_NETWORK = path.join(ROOT, 'test', 'helpers', 'no-network.mjs')

export interface Running {
  proc: ChildProcess
  url: string
  key: string
  exited: Promise<number | null>
}

/** node options for a service process whose clock runs `ms` ahead of the wall clock (test/helpers/clock-offset.mjs) */
export const clockAhead = (ms: number) => ({ nodeArgs: ['--import', path.join(ROOT, 'test', 'helpers', 'clock-offset.mjs')], env: { CLOCK_OFFSET_MS: String(ms) } })

/**
 * A clock running `speed` times as fast as the wall clock that reads `at` now (test/helpers/clock-speed.mjs), shared
 * by every process started with its options and by the test (`now()`), so restarts can fall at chosen clock times.
 */
export function fastClock(at: number, speed: number) {
  const real = Date.now()
  // epoch + (real - epoch) × speed = at
  const epoch = (speed * real - at) / (speed - 1)
  return {
    now: () => Math.floor(epoch + (Date.now() - epoch) * speed),
    /** real ms until the clock reads `t` */
    msUntil: (t: number) => Math.max(0, (t - (epoch + (Date.now() - epoch) * speed)) / speed),
    nodeArgs: ['--import', path.join(ROOT, 'test', 'helpers', 'clock-speed.mjs')],
    env: { CLOCK_EPOCH_MS: String(epoch), CLOCK_SPEED: String(speed) },
  }
}

export async function startService(
  dataDir: string,
  env: Record<string, string> = {},
  opts: { nodeArgs?: string[] } = {},
): Promise<Running & { output: () => string }> {
  // offline like the test itself: the default MARKET_SOURCE=auto probes the venues and must find none
  const proc = spawn(process.execPath, [...NODE_FLAGS, '--import', NO_NETWORK, ...(opts.nodeArgs ?? []), 'scripts/start.mjs'], {
    cwd: ROOT,
    env: { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', BACKFILL_DAYS: '0.02', LOG_LEVEL: 'warn', RATE_LIMIT_RPS: '0', SIM_SEED: '11', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const { ready, exited, output } = await startedChild(proc, 'service', (out) => {
    const url = /running at (http:\/\/\S+)/.exec(out)?.[1]
    const key = /demo key:\s+(pa_\S+)/.exec(out)?.[1]
    return url && key ? { url, key } : undefined
  })
  return { proc, exited, ...ready, output }
}

/** resolves when the process has printed text matching `re` (LOG_LEVEL=info shows the progress lines) */
export function printed(svc: { proc: ChildProcess; output: () => string }, re: RegExp, timeoutMs = 60_000): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!re.test(svc.output())) return false
      svc.proc.stdout!.off('data', onData)
      svc.proc.stderr!.off('data', onData)
      clearTimeout(timer)
      resolve()
      return true
    }
    // after the helper's own listener, so output() already holds the new chunk
    const onData = () => void check()
    const timer = setTimeout(() => {
      svc.proc.stdout!.off('data', onData)
      svc.proc.stderr!.off('data', onData)
      reject(new Error(`no ${re} in the output within ${timeoutMs} ms:\n${svc.output()}`))
    }, timeoutMs)
    svc.proc.stdout!.on('data', onData)
    svc.proc.stderr!.on('data', onData)
    check()
  })
}

