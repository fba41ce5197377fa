// The universe in the store (the coin table): which coins it holds, which venues listed each at the last refresh,
// and which left it. Nothing is ever deleted: a delisted coin keeps its history and its row, with when it left.
import type { Database } from '../../store/database.js'
import type { ExchangeId } from '../../domain/exchanges.js'
import type { Universe } from './universe.js'

export interface StoredUniverseCoin {
  coin: string
  venues: ExchangeId[]
  delistedAt: number | null
}

/** the coins a refresh of the universe has seen (a non-empty venues list, or delisted) */
export async function readUniverse(db: Database): Promise<StoredUniverseCoin[]> {
  const rows = await db.prisma.coin.findMany({ where: { OR: [{ source: 'universe' }, { checkedAt: { not: null } }] }, orderBy: { symbol: 'asc' } })
  return rows.map((r) => ({ coin: r.symbol, venues: (r.venues ?? []) as ExchangeId[], delistedAt: r.delistedAt?.getTime() ?? null }))
}

export interface UniverseChange {
  /** coins in the universe now, listed */
  coins: string[]
  added: string[]
  delisted: string[]
  relisted: string[]
}

/**
 * Writes a refreshed universe: its coins (new ones as source `universe`) with their venues, listed again where they
 * had left; coins of the last universe that are no longer in it get `delisted_at` = now and the venues still listing
 * them. Coins outside both (default, imported, named) are untouched.
 */
export async function writeUniverse(db: Database, u: Universe, now: number): Promise<UniverseChange> {
  const before = new Map((await readUniverse(db)).map((c) => [c.coin, c]))
  const at = new Date(now)
  const inNow = new Set(u.coins.map((c) => c.coin))
  const change: UniverseChange = { coins: [...inNow], added: [], delisted: [], relisted: [] }
  await db.prisma.$transaction(async (tx) => {
    for (const { coin, venues } of u.coins) {
      const was = before.get(coin)
      if (!was) {
        const existing = await tx.coin.findUnique({ where: { symbol: coin } })
        if (!existing) change.added.push(coin)
      } else if (was.delistedAt !== null) change.relisted.push(coin)
      await tx.coin.upsert({
        where: { symbol: coin },
        create: { symbol: coin, source: 'universe', venues, checkedAt: at },
        update: { venues, delistedAt: null, checkedAt: at },
      })
    }
    for (const was of before.values()) {
      if (inNow.has(was.coin) || was.delistedAt !== null) continue
      change.delisted.push(was.coin)
      await tx.coin.update({ where: { symbol: was.coin }, data: { venues: u.listed.get(was.coin) ?? [], delistedAt: at, checkedAt: at } })
    }
  })
  return change
}
