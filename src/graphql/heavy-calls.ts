// Heavy calls queue (docs/operations.md#heavy-calls): an operation whose estimated work passes HEAVY_WORK_ROWS (an
// analytics field over a long window at a fine resolution, a backtest over months, a heatmap over a year, GraphQL
// aliases of such fields by their sum) runs through two queues. Per API key at most HEAVY_PER_KEY are admitted to
// the node at once and HEAVY_KEY_QUEUE more wait; per node HEAVY_CONCURRENCY run at once and at most HEAVY_QUEUE wait,
// whatever their key. Past a depth: 429 `rate_limited` with Retry-After, nothing run, nothing charged. Cheap calls
// never pass through here: one caller's heavy calls cannot hold back another caller's ticker, nor its own.
import PQueue from 'p-queue'
import type { Config } from '../config.js'
import { ApiError } from '../errors.js'

/** an operation is heavy from this many estimated rows of work (the sum over its fields; docs/operations.md#heavy-calls) */
export const HEAVY_WORK_ROWS = 50_000

export type HeavyLimits = Pick<Config, 'HEAVY_CONCURRENCY' | 'HEAVY_QUEUE' | 'HEAVY_PER_KEY' | 'HEAVY_KEY_QUEUE'>

/** what a refused call is told to wait: bounds of the estimate from the queue ahead and the recent run times */
const RETRY_AFTER_MIN_S = 1
const RETRY_AFTER_MAX_S = 60

interface KeyQueue {
  /** at most HEAVY_PER_KEY of the key's calls are in the node's queue (waiting there or running) at once */
  queue: PQueue
  /** the key's calls admitted and not finished */
  open: number
}

export interface HeavyStats {
  running: number
  /** waiting in the node's queue and in the keys' queues */
  waiting: number
  /** refused since the start, by scope */
  refused: { key: number; node: number }
}

export class HeavyCalls {
  private readonly node: PQueue
  private readonly keys = new Map<string, KeyQueue>()
  /** admitted and not yet started, every key */
  private waiting = 0
  /** a moving average of a heavy call's run time, ms (for Retry-After) */
  private averageMs = 1000
  private readonly refused = { key: 0, node: 0 }

  constructor(private readonly limits: HeavyLimits) {
    this.node = new PQueue({ concurrency: limits.HEAVY_CONCURRENCY })
  }

  /** run `work` as a heavy call of this key once both queues let it; a 429 ApiError past either depth */
  async run<T>(keyId: string, work: () => Promise<T>): Promise<T> {
    const { HEAVY_PER_KEY: perKey, HEAVY_KEY_QUEUE: keyQueue, HEAVY_QUEUE: nodeQueue, HEAVY_CONCURRENCY: concurrency } = this.limits
    let key = this.keys.get(keyId)
    if (key && key.open >= perKey + keyQueue) {
      this.refused.key++
      throw this.refusal('key', `This API key has ${key.open} heavy calls running or queued, the most it may (${perKey} at once, ${keyQueue} waiting)`, key.open, Math.min(perKey, concurrency))
    }
    // the node holds at most HEAVY_CONCURRENCY running and HEAVY_QUEUE waiting
    if (this.waiting + this.node.pending >= concurrency + nodeQueue) {
      this.refused.node++
      throw this.refusal('node', `This node has ${this.waiting} heavy calls waiting, the most it queues (${nodeQueue}; ${concurrency} run at once)`, this.waiting + concurrency, concurrency)
    }
    if (!key) this.keys.set(keyId, (key = { queue: new PQueue({ concurrency: perKey }), open: 0 }))
    const mine = key
    mine.open++
    this.waiting++
    let started = false
    try {
      return await mine.queue.add(() =>
        this.node.add(async () => {
          started = true
          this.waiting--
          const t0 = performance.now()
          try {
            return await work()
          } finally {
            this.averageMs = 0.8 * this.averageMs + 0.2 * (performance.now() - t0)
          }
        }),
      )
    } finally {
      if (!started) this.waiting--
      if (--mine.open === 0 && this.keys.get(keyId) === mine) this.keys.delete(keyId)
    }
  }

  stats(): HeavyStats {
    return { running: this.node.pending, waiting: this.waiting, refused: { ...this.refused } }
  }

  /** 429 with a Retry-After estimated from the calls ahead and the recent run time */
  private refusal(scope: 'key' | 'node', detail: string, ahead: number, lanes: number): ApiError {
    const seconds = Math.ceil((this.averageMs * ahead) / Math.max(1, lanes) / 1000)
    const retryAfter = Math.min(RETRY_AFTER_MAX_S, Math.max(RETRY_AFTER_MIN_S, seconds))
    return new ApiError('rate_limited', `${detail}; retry after ${retryAfter} s. Nothing was charged. Cheap calls are not queued (docs/operations.md#heavy-calls).`, {
      retry_after: retryAfter,
      scope,
      limit: scope === 'key' ? this.limits.HEAVY_PER_KEY + this.limits.HEAVY_KEY_QUEUE : this.limits.HEAVY_QUEUE,
    })
  }
}
