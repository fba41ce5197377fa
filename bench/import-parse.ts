// Parse-speed check (not a test): npx tsx bench/import-parse.ts [rows]
// Writes a synthetic futures aggTrades CSV (+ .zip-free gz variant) to the OS temp dir and times the readers.
import { createWriteStream } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { readFileSync, writeFileSync } from 'node:fs'
import { parse } from 'csv-parse'
import { createReadStream } from 'node:fs'
import { readTradeBatches, readTradeFile } from '../src/sources/import/index.js'

const rows = Number(process.argv[2] ?? 3_000_000)
const dir = await mkdtemp(join(tmpdir(), 'import-bench-'))
const file = join(dir, 'BTCUSDT-aggTrades-2024-01.csv')
const out = createWriteStream(file)
out.write('agg_trade_id,price,quantity,first_trade_id,last_trade_id,transact_time,is_buyer_maker\n')
let ts = 1704067200000
let buf = ''
for (let i = 0; i < rows; i++) {
  ts += i % 3
  buf += `${2000000000 + i},${(42000 + (i % 500) / 10).toFixed(1)},${((i % 97) / 1000 + 0.001).toFixed(3)},${3000000000 + i * 2},${3000000000 + i * 2 + 1},${ts},${i % 2 === 0 ? 'true' : 'false'}\n`
  if (buf.length > 1 << 20) {
    if (!out.write(buf)) await new Promise<void>((r) => out.once('drain', () => r()))
    buf = ''
  }
}
out.end(buf)
await new Promise<void>((r) => out.on('finish', () => r()))
writeFileSync(file + '.gz', gzipSync(readFileSync(file), { level: 1 }))

async function time(name: string, fn: () => Promise<number>) {
  const t0 = performance.now()
  const n = await fn()
  const s = (performance.now() - t0) / 1000
  console.log(`${name.padEnd(34)} ${n} rows in ${s.toFixed(2)}s = ${Math.round(n / s / 1000)}k rows/s`)
}

await time('readTradeBatches (csv)', async () => {
  let n = 0
  for await (const b of readTradeBatches(file)) n += b.length
  return n
})
await time('readTradeFile per event (csv)', async () => {
  let n = 0
  for await (const _ of readTradeFile(file)) n++
  return n
})
await time('readTradeBatches (csv.gz)', async () => {
  let n = 0
  for await (const b of readTradeBatches(file + '.gz', { coin: 'BTC', marketType: 'perp' })) n += b.length
  return n
})
await time('csv-parse raw records (reference)', async () => {
  let n = 0
  for await (const _ of createReadStream(file).pipe(parse({ from_line: 2 }))) n++
  return n
})
await rm(dir, { recursive: true })
