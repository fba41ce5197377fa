// The worker thread behind WorkerHistory (worker-history.ts): a MarketSimulator of the same seed and coins as the
// one it stands for, asked for ranges of history one at a time; each answer is the range's events and bars in the
// order simulateRange emitted them (history-wire.ts). A minute is a function of (seed, market, minute) only, so the
// thread's answer is what the same call on the main thread would have emitted.
import { parentPort, workerData } from 'node:worker_threads'
import { RangeWriter } from './history-wire.js'
import { MarketSimulator } from './simulator.js'
import type { HistoryRequest, HistoryAnswer, HistoryWorkerData } from './worker-history.js'

const { seed, coins } = workerData as HistoryWorkerData
const simulator = new MarketSimulator({ seed, coins })

parentPort!.on('message', (r: HistoryRequest) => {
  try {
    const writer = new RangeWriter()
    simulator.simulateRange(r.from, r.to, writer, r.options)
    const range = writer.encode()
    parentPort!.postMessage({ id: r.id, range } satisfies HistoryAnswer, [range.bars.buffer, range.vap.buffer])
  } catch (e) {
    parentPort!.postMessage({ id: r.id, error: e instanceof Error ? e.message : String(e) } satisfies HistoryAnswer)
  }
})
