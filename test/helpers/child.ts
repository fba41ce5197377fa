// A spawned child process waited for until its output says it is ready. A process that could not be started emits
// 'error' and never 'exit' (an 'error' without a listener would end the test process); one that never gets ready
// (exited, or past the timeout) is killed and waited for, so nothing is left running behind the failure.
import type { ChildProcess } from 'node:child_process'

export interface StartedChild<T> {
  ready: T
  /** its exit code (null: killed by a signal, or never started) */
  exited: Promise<number | null>
  /** stdout and stderr so far */
  output(): string
}

export async function startedChild<T>(proc: ChildProcess, what: string, ready: (out: string) => T | undefined, timeoutMs = 90_000): Promise<StartedChild<T>> {
  let spawnError: Error | undefined
  const exited = new Promise<number | null>((r) => {
    proc.on('exit', (code) => r(code))
    proc.on('error', (err) => {
      spawnError ??= err
      if (proc.pid === undefined) r(null)
    })
  })
  let out = ''
  const collect = (d: Buffer) => void (out += d.toString())
  proc.stdout!.on('data', collect)
  proc.stderr!.on('data', collect)
  let timer: NodeJS.Timeout | undefined
  let check: (() => void) | undefined
  try {
    const value = await new Promise<T>((resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not start:\n${out}`)), timeoutMs)
      // after collect (listeners run in order): `out` holds the chunk
      check = () => {
        const v = ready(out)
        if (v !== undefined) resolve(v)
      }
      proc.stdout!.on('data', check)
      proc.stderr!.on('data', check)
      void exited.then((code) => reject(new Error(`${what} exited (${code}) before it was ready${spawnError ? ` (${String(spawnError)})` : ''}:\n${out}`)))
    })
    return { ready: value, exited, output: () => out }
  } catch (e) {
    await killed(proc)
    throw e
  } finally {
    clearTimeout(timer)
    if (check) {
      proc.stdout!.off('data', check)
      proc.stderr!.off('data', check)
    }
  }
}

/** SIGKILLed and exited, if it is still running (one that never started, or has exited, is left as it is) */
export async function killed(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null || proc.pid === undefined) return
  const gone = new Promise((r) => proc.once('exit', r))
  proc.kill('SIGKILL')
  await gone
}

/** SIGTERM, as a user stops it; SIGKILL if it has not exited within `ms`. Resolves once it has exited (at once if it is not running) */
export async function stopped(proc: ChildProcess, ms: number): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null || proc.pid === undefined) return
  const gone = new Promise((r) => proc.once('exit', r))
  proc.kill('SIGTERM')
  const timer = setTimeout(() => proc.kill('SIGKILL'), ms)
  await gone
  clearTimeout(timer)
}
