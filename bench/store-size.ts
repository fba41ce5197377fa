// Where the store's bytes go: `npx tsx bench/store-size.ts <embedded store dir>` (or DATABASE_URL=postgres://...).
// Prints one row per relation with rows, heap, TOAST, indexes and total, largest first, and the directory's size.
import { loadConfig } from '../src/config.js'
import { openDatabase } from '../src/store/database.js'
import { storeSizes } from './store-sizes.js'

const arg = process.argv[2]
const url = process.env.DATABASE_URL ?? (arg ? `pglite:${arg}` : undefined)
if (!url) throw new Error('usage: npx tsx bench/store-size.ts <data dir>')
const config = loadConfig({ ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' })
const db = await openDatabase(config.store, { migrate: false })
const rows = await storeSizes(db.sql)
console.table(rows)
await db.close()
