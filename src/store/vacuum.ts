// The embedded store's vacuum. PGlite runs PostgreSQL in single-user mode, where no autovacuum runs: a row rewritten in
// place leaves its old version behind for good. In the heap, HOT pruning reclaims it on the same page; in a TOAST
// table nothing does, so a wide value rewritten every few seconds grows without end. order_book (each market's latest
// book, JSON of its levels, rewritten every 15 s) grew 8 MB of TOAST in 15 minutes for 12 coins; candle_1h (the hour's
// rollup, rewritten every flush; its volume at price passes TOAST's 2 KB) does the same, more slowly. A plain VACUUM
// of those tables every few minutes makes the dead space reusable (docs/performance.md, eighth round). PostgreSQL
// proper has autovacuum for this; nothing here runs there.

/** what the vacuum needs of the store (database.ts's Sql has it; not imported from there, which imports this) */
interface Query {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>
}

/** tables whose rows are rewritten in place with values wide enough to be TOASTed */
export const CHURNED_TABLES = ['order_book', 'candle_1h'] as const

/** every 5 minutes: order_book's dead TOAST stays within a few MB between two runs */
const VACUUM_EVERY_MS = 5 * 60_000

/** one VACUUM of the churned tables (outside any transaction); a store without them yet (before its migrations) is left alone */
export async function vacuumChurned(sql: Query): Promise<void> {
  const [{ ok }] = (await sql.query<{ ok: boolean }>(`SELECT to_regclass('order_book') IS NOT NULL AND to_regclass('candle_1h') IS NOT NULL AS ok`)) as [{ ok: boolean }]
  if (ok) await sql.query(`VACUUM ${CHURNED_TABLES.join(', ')}`)
}

/** vacuum every `everyMs` until the returned stop is called (which waits for a run under way) */
export function startVacuum(sql: Query, onError: (e: unknown) => void, everyMs = VACUUM_EVERY_MS): () => Promise<void> {
  let running: Promise<void> | null = null
  const timer = setInterval(() => {
    if (running) return
    running = vacuumChurned(sql)
      .catch(onError)
      .finally(() => (running = null))
  }, everyMs)
  timer.unref()
  return async () => {
    clearInterval(timer)
    await running
  }
}
