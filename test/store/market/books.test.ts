// order_book keeps how far each snapshot reached and its wide snapshots, so a restarted API still knows which depth
// bands are complete (src/store/market/samples.ts writeBooks/readBooks).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { bookImbalance } from '../../../src/analytics/imbalance.js'
import type { BookSnapshotEvent } from '../../../src/domain/events.js'
import { readBooks, writeBooks } from '../../../src/store/market/samples.js'
import type { Database } from '../../../src/store/database.js'
import { openTestStore } from '../../helpers/store.js'

const T0 = Date.UTC(2026, 3, 1, 5)

const book: BookSnapshotEvent = {
  type: 'book', exchange: 'hyperliquid', coin: 'BTC', marketType: 'perp', ts: T0,
  bids: [{ price: 100, size: 2 }, { price: 99.8, size: 1 }], asks: [{ price: 100.2, size: 1 }, { price: 100.4, size: 3 }],
  bidEnd: 99.8, askEnd: 100.4,
  wide: [{ source: 'nSigFigs=3', ts: T0 - 5_000, granularity: 1, bids: [{ price: 100, size: 5 }, { price: 95, size: 1 }], asks: [{ price: 101, size: 4 }, { price: 106, size: 2 }], bidEnd: 95, askEnd: 106 }],
}

describe('order_book reach', () => {
  let db: Database
  beforeAll(async () => {
    db = await openTestStore()
  })
  afterAll(() => db.close())

  it('a written snapshot reads back with its reach and wide snapshots; bands come out as from the live event', async () => {
    const whole: BookSnapshotEvent = { ...book, exchange: 'dydx', bidEnd: null, askEnd: null, wide: undefined }
    await writeBooks(db.sql, [book, whole])
    const [dydx, hl] = await readBooks(db.sql, { coins: ['BTC'], marketType: 'perp' })
    expect(hl).toEqual({ exchange: 'hyperliquid', coin: 'BTC', marketType: 'perp', ts: T0, bids: book.bids, asks: book.asks, bidEnd: 99.8, askEnd: 100.4, reachKnown: true, wide: book.wide })
    expect(dydx).toMatchObject({ exchange: 'dydx', bidEnd: null, askEnd: null, reachKnown: true })
    expect(dydx!.wide).toBeUndefined()
    expect(bookImbalance(hl!)).toEqual(bookImbalance(book))
  })

  it('a row written before reach was recorded reads as unknown reach: its bands are null, not complete-looking numbers', async () => {
    await db.sql.query(`UPDATE order_book SET reach = NULL WHERE exchange = 'dydx'`)
    const [dydx] = await readBooks(db.sql, { coins: ['BTC'], marketType: 'perp' })
    expect(dydx!.reachKnown).toBe(false)
    const r = bookImbalance(dydx!)
    expect(r.bands!.every((b) => b.bidDepthUsd === null && b.reason !== null)).toBe(true)
  })
})
