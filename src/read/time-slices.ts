// Long CPU loops on the event loop give turns to timers and sockets now and then (docs/operations.md#the-event-loop).

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * For a loop of CPU work on the event loop: call it each round; once `budgetMs` have passed since the last turn it
 * gives one (a promise to await), else nothing, so a long loop holds the loop at most about that long.
 */
export function timeSlices(budgetMs = 20): () => Promise<void> | null {
  let since = performance.now()
  return () => {
    if (performance.now() - since < budgetMs) return null
    return nextTurn().then(() => void (since = performance.now()))
  }
}

/**
 * `fn` over the items one after another (each awaited), giving the loop a turn whenever `budgetMs` of work have passed:
 * the per-coin loops of the views computed for every coin on the tick (the snapshot, the spread, the overview).
 */
export async function mapInSlices<T, R>(items: Iterable<T>, fn: (item: T, i: number) => R | Promise<R>, budgetMs = 20): Promise<R[]> {
  const slice = timeSlices(budgetMs)
  const out: R[] = []
  let i = 0
  for (const item of items) {
    await slice()
    out.push(await fn(item, i++))
  }
  return out
}
