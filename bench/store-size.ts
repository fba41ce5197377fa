// Where the store's bytes go: `npx tsx bench/store-size.ts <DATA_DIR>` (the embedded store in it; or DATABASE_URL=postgres://...).
// Prints one row per relation with rows, heap, TOAST, indexes and total, largest first, and the directory's size.
import { loadConfig } from '../src/config.js'
import { openDatabase } from '../src/store/database.js'
import { storeSizes } from './store-sizes.js'

const arg = process.argv[2]
if (!process.env.DATABASE_URL && !arg) throw new Error('usage: npx tsx bench/store-size.ts <DATA_DIR>')
const config = loadConfig({ ...process.env, ...(arg && { DATA_DIR: arg }), LOG_LEVEL: 'warn' })
const db = await openDatabase(config.store, { migrate: false })
const rows = await storeSizes(db.sql)
console.table(rows)
await db.close()
