// Loops that must not die and must stop at once: each runs its step until stopped, backs off (capped exponential +
// jitter) after a failure, and can be abandoned mid-call on stop. One Supervisor per connector run.
import { backoffDelay, sleep, type BackoffOptions } from './backoff.js'

export type LoopKind = 'stream' | 'poll'

/** What an abandoned call rejects with after stop(). */
class StoppedError extends Error {
  constructor() {
    super('stopped')
  }
}

export interface SupervisorOptions {
  backoff?: Partial<BackoffOptions>
  /** [0, 1) jitter source */
  random?: () => number
  /** every failed attempt of a loop or retry */
  onFailure(task: string, err: unknown, retryInMs: number): void
  /** a tracked promise rejected outside any loop (a bug, logged instead of becoming an unhandled rejection) */
  onCrash(err: unknown): void
  /** a task whose latest attempt had failed succeeded again */
  onRecover?(task: string): void
}

const noop = () => {}
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

export class Supervisor {
  private readonly controller = new AbortController()
  private readonly tasks = new Set<Promise<void>>()
  /** tasks whose latest attempt failed (cleared by their next success) */
  readonly failing = new Set<string>()
  /** tasks waiting out a backoff: no attempt of theirs is in flight */
  readonly backingOff = new Set<string>()
  /** the names of the loops started */
  readonly loops = new Set<string>()
  private readonly stopHooks: (() => void)[] = []

  constructor(private readonly opts: SupervisorOptions) {}

  get signal(): AbortSignal {
    return this.controller.signal
  }

  get stopped(): boolean {
    return this.controller.signal.aborted
  }

  /** running tasks */
  get size(): number {
    return this.tasks.size
  }

  /**
   * Runs `step` until stopped. Polls wait `intervalMs` after each success; streams go straight on. After a failure the
   * loop waits backoffDelay(attempt) and tries again; a success resets the attempt count.
   */
  loop(name: string, kind: LoopKind, step: () => Promise<void>, intervalMs = 0): void {
    this.loops.add(name)
    const run = async () => {
      let attempt = 0
      let iterations = 0
      while (!this.stopped) {
        try {
          await step()
          attempt = 0
          if (this.failing.delete(name)) this.opts.onRecover?.(name)
          if (kind === 'poll' && !(await sleep(intervalMs, this.signal))) return
          // A watch that always resolved at once would starve the event loop, so yield now and then. Not after every
          // result: a message handled while no watch is pending stays in CCXT's cache until the *next* message.
          if (kind === 'stream' && ++iterations % 1_000 === 0) await yieldToEventLoop()
        } catch (err) {
          if (!(await this.backOff(name, err, attempt++))) return
        }
      }
    }
    this.track(run())
  }

  /**
   * Calls `step` until it succeeds, backing off between attempts. Resolves with its value, or undefined once stopped.
   * `afterFirstAttempt` runs after the first attempt, whatever its outcome.
   */
  async retry<T>(name: string, step: () => Promise<T>, afterFirstAttempt: () => void = noop): Promise<T | undefined> {
    let attempt = 0
    while (!this.stopped) {
      try {
        const value = await this.abortable(step())
        if (this.failing.delete(name)) this.opts.onRecover?.(name)
        return value
      } catch (err) {
        const backingOff = this.backOff(name, err, attempt++)
        afterFirstAttempt()
        if (!(await backingOff)) return undefined
      }
    }
    return undefined
  }

  /** false when the supervisor stopped (no retry) */
  private async backOff(name: string, err: unknown, attempt: number): Promise<boolean> {
    if (this.stopped || err instanceof StoppedError) return false
    const delay = backoffDelay(attempt, this.opts.backoff, this.opts.random)
    this.failing.add(name)
    this.opts.onFailure(name, err, delay)
    this.backingOff.add(name)
    try {
      return await sleep(delay, this.signal)
    } finally {
      this.backingOff.delete(name)
    }
  }

  /** Keeps `p` in the task set until it settles; its rejection goes to onCrash. */
  track(p: Promise<unknown>): Promise<void> {
    const settled = p.then(noop, (err: unknown) => this.opts.onCrash(err))
    this.tasks.add(settled)
    void settled.finally(() => this.tasks.delete(settled))
    return settled
  }

  /** Races `p` against stop(): rejects with StoppedError once stopped; `p`'s own late rejection is swallowed. */
  abortable<T>(p: Promise<T>): Promise<T> {
    p.catch(noop)
    const signal = this.signal
    if (signal.aborted) return Promise.reject(new StoppedError())
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(new StoppedError())
      signal.addEventListener('abort', onAbort, { once: true })
      p.then(
        (v) => {
          signal.removeEventListener('abort', onAbort)
          resolve(v)
        },
        (e: unknown) => {
          signal.removeEventListener('abort', onAbort)
          reject(e)
        },
      )
    })
  }

  /** `fn` runs once when the supervisor stops, before its tasks have settled */
  onStop(fn: () => void): void {
    this.stopHooks.push(fn)
  }

  /** Aborts every loop and waits until all tracked tasks have settled. */
  async stop(): Promise<void> {
    const first = !this.stopped
    this.controller.abort()
    if (first) for (const fn of this.stopHooks.splice(0)) fn()
    await Promise.allSettled([...this.tasks])
  }
}
