// One kind of market source per store: the simulator's data, the venues' live data and a replayed recording never
// mix in one store. The first start that writes market data records its kind (store_source); a start with another
// kind is refused with what to do (docs/operations.md#one-source-per-store). A store from before the marker is read
// by what it holds: the simulator's backfill leaves `simulator:<seed>` days behind.
import type { Database } from '../database.js'

export type StoreSourceKind = 'simulator' | 'live' | 'replay'

export interface StoreSourceState {
  /** the recorded kind, or the one inferred for a store from before the marker (`inferred`); null: no market data yet */
  kind: StoreSourceKind | null
  detail: string | null
  since: number | null
  /** no marker, but market data of a kind it cannot tell (e.g. seeded or imported rows): treated as simulated by `auto` */
  unknownData: boolean
  inferred: boolean
}

const ID = 'market'

export async function readStoreSource(db: Database): Promise<StoreSourceState> {
  const row = await db.prisma.storeSource.findUnique({ where: { id: ID } })
  if (row) return { kind: row.kind as StoreSourceKind, detail: row.detail, since: row.since.getTime(), unknownData: false, inferred: false }
  const [found] = await db.sql.query<{ sim: boolean; data: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM backfill_day WHERE source LIKE 'simulator:%') AS sim,
            EXISTS (SELECT 1 FROM candle_1m) OR EXISTS (SELECT 1 FROM market_sample) OR EXISTS (SELECT 1 FROM funding_rate) AS data`,
  )
  if (found?.sim) return { kind: 'simulator', detail: 'inferred: the simulator backfilled this store', since: null, unknownData: false, inferred: true }
  return { kind: null, detail: null, since: null, unknownData: !!found?.data, inferred: false }
}

/**
 * Records `kind` as the store's source unless one is recorded already; returns the kind the store holds afterwards
 * (another process may have claimed it first: the caller compares).
 */
export async function claimStoreSource(db: Database, kind: StoreSourceKind, detail: string, now: number): Promise<{ kind: StoreSourceKind; detail: string; since: number }> {
  await db.sql.query(`INSERT INTO store_source (id, kind, detail, since) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING`, [ID, kind, detail, new Date(now)])
  const row = (await db.prisma.storeSource.findUnique({ where: { id: ID } }))!
  return { kind: row.kind as StoreSourceKind, detail: row.detail, since: row.since.getTime() }
}
