// Reads of the embedded store take turns with the rest of the process (docs/operations.md#the-event-loop). PGlite
// runs each statement synchronously on this thread, and statements started in one turn of the event loop all run in
// it, back to back (the 40 reads of one 20-alias GraphQL operation held the loop ~430 ms). Here each read starts on a
// turn of its own once the one before it has ended, so timers and sockets are served between any two; a read over many
// rows is cut into pieces of about PIECE_ROWS, over the part of the window that holds rows, and the pieces queue behind
// short reads, so a cheap call's read waits at most one piece of someone's long one. On PostgreSQL statements run in
// the server, off this thread, and reads go straight through.
import PQueue from 'p-queue'
import type { Database } from '../store/database.js'
import { readExtent, type ExtentQuery, type ExtentTable } from './store/extent.js'

/** rows one piece holds at most: 20–50 µs a row on the embedded store, so a piece holds the loop well under 200 ms */
const PIECE_ROWS = 2000

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * For a loop of CPU work on the event loop (not the store's): call it each round; once `budgetMs` have passed since the
 * last turn it gives one (a promise to await), else nothing, so a long loop holds the loop at most about that long.
 */
export function timeSlices(budgetMs = 20): () => Promise<void> | null {
  let since = performance.now()
  return () => {
    if (performance.now() - since < budgetMs) return null
    return nextTurn().then(() => void (since = performance.now()))
  }
}

export interface WindowRead<T> {
  /** the table the read's rows come from, and its filter over [start, end) */
  table: ExtentTable
  window: ExtentQuery
  /** the rows a millisecond of window holds at most (coins × venues / the rows' spacing) */
  rowsPerMs: number
  /** pieces are cut at UTC multiples of this (the read's bucket: a bucket is never split) */
  alignMs: number
  read: (start: number, end: number) => Promise<T[]>
  /** the pieces' rows (pieces in time order) in the read's own order; default one piece after another (time first) */
  join?: (pieces: T[][]) => T[]
}

/** for reads ordered by a key, then time (coin and venue): the pieces' rows grouped by key, keys in the store's order (C collation) */
export function keyThenTime<T>(keyOf: (row: T) => string): (pieces: T[][]) => T[] {
  return (pieces) => {
    const groups = new Map<string, T[]>()
    for (const piece of pieces)
      for (const row of piece) {
        const k = keyOf(row)
        const g = groups.get(k)
        if (g) g.push(row)
        else groups.set(k, [row])
      }
    return [...groups.keys()].sort().flatMap((k) => groups.get(k)!)
  }
}

export class ReadTurns {
  /** one statement at a time (PGlite runs one at a time anyway); short reads before pieces of long ones */
  private readonly queue = new PQueue({ concurrency: 1 })

  constructor(private readonly db: Pick<Database, 'sql'>) {}

  /** statements queued or running */
  get depth(): number {
    return this.queue.size + this.queue.pending
  }

  /** one statement on a turn of its own; `piece`: a piece of a long read, which lets short reads go first */
  one<T>(read: () => Promise<T>, piece = false): Promise<T> {
    return this.queue.add(
      async () => {
        await nextTurn()
        return read()
      },
      { priority: piece ? 0 : 1 },
    )
  }

  /** a windowed read: one statement when it is short, else pieces over the rows there are, each on its own turn */
  async window<T>(r: WindowRead<T>): Promise<T[]> {
    const { start, end } = r.window
    if ((end - start) * r.rowsPerMs <= PIECE_ROWS) return this.one(() => r.read(start, end))
    const extent = await this.one(() => readExtent(this.db.sql, r.table, r.window))
    if (!extent) return []
    const from = Math.max(start, Math.floor(extent.first / r.alignMs) * r.alignMs)
    const to = Math.min(end, Math.floor(extent.last / r.alignMs) * r.alignMs + r.alignMs)
    const step = Math.max(1, Math.floor(PIECE_ROWS / r.rowsPerMs / r.alignMs)) * r.alignMs
    const pieces: T[][] = []
    for (let a = from; a < to; ) {
      const b = Math.min(to, Math.floor(a / step) * step + step)
      pieces.push(await this.one(() => r.read(a, b), true))
      a = b
    }
    return r.join ? r.join(pieces) : pieces.flat()
  }
}
