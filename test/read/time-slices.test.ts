// mapInSlices (src/read/time-slices.ts): the per-coin loops of the views computed on the tick — every item mapped in
// order, and the event loop given a turn once a slice's budget of work has passed.
import { describe, expect, it } from 'vitest'
import { mapInSlices } from '../../src/read/time-slices.js'

const busy = (ms: number) => {
  const until = performance.now() + ms
  while (performance.now() < until);
}

describe('mapInSlices', () => {
  it('maps every item in order with its index, awaiting each', async () => {
    const seen: string[] = []
    const out = await mapInSlices(['a', 'b', 'c'], async (x, i) => {
      seen.push(x)
      await Promise.resolve()
      return `${x}${i}`
    })
    expect(out).toEqual(['a0', 'b1', 'c2'])
    expect(seen).toEqual(['a', 'b', 'c'])
  })

  it('gives the loop a turn between items once the budget has passed, and none before', async () => {
    const run = async (budgetMs: number) => {
      const log: (number | 'turn')[] = []
      // queued before the loop: it runs at the loop's first turn
      setImmediate(() => log.push('turn'))
      await mapInSlices([0, 1, 2, 3, 4, 5], (i) => (busy(8), log.push(i)), budgetMs)
      await new Promise((r) => setImmediate(r))
      return log
    }
    // 48 ms of work in 20 ms slices: a turn after at least one item and before the last
    const sliced = await run(20)
    expect(sliced.indexOf('turn')).toBeGreaterThan(0)
    expect(sliced.indexOf('turn')).toBeLessThan(6)
    // a budget longer than the work: no turn until every item is done
    expect(await run(10_000)).toEqual([0, 1, 2, 3, 4, 5, 'turn'])
  })
})
