// Simulated history from a worker thread: the backfill's source (src/ingest/backfill.ts) without simulating on the
// event loop. The thread (history-worker.ts) runs its own MarketSimulator of the same seed and coins and answers one
// range at a time; the backfill asks for the next ranges ahead (prefetch), so the thread simulates an hour while the
// main thread aggregates and writes the one before. What reaches the sink is what MarketSimulator.simulateRange would
// have emitted on the main thread, in the same order (test/sources/simulator/worker-history.test.ts).
//
// The thread is started at the first request and ended by close(). If it cannot start or dies, the ranges still
// asked for are simulated here on the main thread (slower for the API, never a lost range), with one warning.
import { Worker } from 'node:worker_threads'
import type { Logger } from 'pino'
import type { HistorySink } from './history.js'
import { replayRange, type WireRange } from './history-wire.js'
import { MarketSimulator, type RangeOptions } from './simulator.js'

export interface HistoryWorkerData {
  seed: number
  coins: readonly string[]
}

export interface HistoryRequest {
  id: number
  from: number
  to: number
  options: RangeOptions
}

/** the range's events and bars, or the error the simulator threw */
export type HistoryAnswer = { id: number; range: WireRange } | { id: number; error: string }

/** the thread answered, with the error the same call would have thrown on the main thread */
class RangeFailed extends Error {}

const keyOf = (from: number, to: number, o: RangeOptions) => `${from}:${to}:${o.sampleEveryMs ?? ''}:${o.books ?? ''}`

/**
 * Start `file` (a module beside this one, named without extension) as a worker thread: the built .js in a build,
 * the .ts source through tsx's loader where this module itself runs as TypeScript (tests, tsx).
 */
function startWorker(file: string, workerData: unknown): Worker {
  const self = import.meta.url
  if (!self.endsWith('.ts')) return new Worker(new URL(`./${file}.js`, self), { workerData })
  const url = new URL(`./${file}.ts`, self).href
  return new Worker(`import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(url)}) })`, { eval: true, workerData })
}

export class WorkerHistory {
  /** its trades and bars are simulated (HistorySource) */
  readonly tradeSource = 'simulated' as const
  private worker: Worker | null = null
  /** after the thread failed: the ranges are simulated here */
  private local: MarketSimulator | null = null
  private nextId = 1
  private closed = false
  private readonly waiting = new Map<number, { resolve: (r: WireRange) => void; reject: (e: Error) => void }>()
  /** ranges asked for and not yet taken */
  private readonly ahead = new Map<string, Promise<WireRange>>()

  constructor(private readonly opts: { seed: number; coins: readonly string[]; logger?: Logger }) {}

  /** start simulating [from, to) in the thread now; the simulateRange call for the same range takes the result */
  prefetch(from: number, to: number, options: RangeOptions = {}): void {
    const key = keyOf(from, to, options)
    if (this.local || this.ahead.has(key)) return
    const p = this.ask(from, to, options)
    p.catch(() => {}) // taken (and its failure handled) by simulateRange
    this.ahead.set(key, p)
  }

  /** the events of [from, to) into sink, as MarketSimulator.simulateRange emits them */
  async simulateRange(from: number, to: number, sink: HistorySink, options: RangeOptions = {}): Promise<void> {
    const key = keyOf(from, to, options)
    let range: WireRange | null = null
    if (!this.local) {
      const p = this.ahead.get(key) ?? this.ask(from, to, options)
      this.ahead.delete(key)
      try {
        range = await p
      } catch (e) {
        if (e instanceof RangeFailed) throw new RangeError(e.message)
        this.fallBack(e)
      }
    }
    if (!range) {
      this.local!.simulateRange(from, to, sink, options)
      return
    }
    replayRange(range, sink)
  }

  /** end the thread (ranges asked for and not taken are dropped; a call still waiting is simulated here) */
  async close(): Promise<void> {
    this.closed = true
    this.ahead.clear()
    const w = this.worker
    this.worker = null
    this.failWaiting(new Error('the history worker was closed'))
    if (w) await w.terminate()
  }

  private ask(from: number, to: number, options: RangeOptions): Promise<WireRange> {
    let w: Worker
    try {
      w = this.thread()
    } catch (e) {
      this.fallBack(e)
      return Promise.reject(e as Error)
    }
    const id = this.nextId++
    return new Promise<WireRange>((resolve, reject) => {
      // held only while an answer is awaited: an idle thread does not keep the process alive
      if (!this.waiting.size) w.ref()
      this.waiting.set(id, { resolve, reject })
      w.postMessage({ id, from, to, options } satisfies HistoryRequest)
    })
  }

  private thread(): Worker {
    if (this.worker) return this.worker
    const w = startWorker('history-worker', { seed: this.opts.seed, coins: [...this.opts.coins] } satisfies HistoryWorkerData)
    w.unref()
    w.on('message', (a: HistoryAnswer) => {
      const p = this.waiting.get(a.id)
      this.waiting.delete(a.id)
      if (!this.waiting.size) w.unref()
      if ('error' in a) p?.reject(new RangeFailed(a.error))
      else p?.resolve(a.range)
    })
    // a thread that fails or exits unasked is not started again: what is left is simulated here
    const failed = (e: Error) => {
      if (this.worker !== w) return
      this.worker = null
      this.fallBack(e)
      this.failWaiting(e)
    }
    w.on('error', failed)
    w.on('exit', (code) => failed(new Error(`the history worker exited (code ${code})`)))
    this.worker = w
    return w
  }

  private fallBack(e: unknown): void {
    if (this.local) return
    if (!this.closed) this.opts.logger?.warn({ err: e }, 'history worker failed: simulating the rest of the backfill on the main thread')
    this.local = new MarketSimulator({ seed: this.opts.seed, coins: this.opts.coins })
    this.ahead.clear()
  }

  private failWaiting(e: Error): void {
    for (const p of this.waiting.values()) p.reject(e)
    this.waiting.clear()
  }
}
