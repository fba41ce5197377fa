// Reconnect/retry delays: capped exponential backoff with jitter, and an abortable sleep.

export interface BackoffOptions {
  /** delay of the first retry before jitter, ms */
  baseMs: number
  /** growth per failed attempt */
  factor: number
  /** cap before jitter, ms */
  maxMs: number
  /** share of the delay that is randomized, 0..1: delay * (1 - jitter + jitter * random()) */
  jitter: number
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 1_000, factor: 2, maxMs: 60_000, jitter: 0.5 }

/** Delay before retry number `attempt` (0 = first retry). `random` must return [0, 1); inject it for deterministic tests. */
export function backoffDelay(attempt: number, opts: Partial<BackoffOptions> = {}, random: () => number = Math.random): number {
  const o = { ...DEFAULT_BACKOFF, ...opts }
  const n = Math.max(0, Math.floor(attempt))
  // exponent capped so factor ** n cannot overflow to Infinity before the min()
  const raw = o.baseMs * Math.pow(o.factor, Math.min(n, 64))
  const capped = Math.min(o.maxMs, Number.isFinite(raw) ? raw : o.maxMs)
  const jitter = Math.min(1, Math.max(0, o.jitter))
  const r = Math.min(1, Math.max(0, random()))
  return Math.round(capped * (1 - jitter + jitter * r))
}

/** Resolves true after `ms`, or false as soon as `signal` aborts (never rejects). */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false)
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer)
      resolve(false)
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve(true)
    }, Math.max(0, ms))
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
