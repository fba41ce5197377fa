// Test helpers: temp dirs and a minimal zip writer (node has none built in). Zips are read back with yauzl.
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { crc32, deflateRawSync, gzipSync } from 'node:zlib'
import type { TradeEvent } from '../../../src/domain/events.js'
import type { ImportOverrides } from '../../../src/sources/import/index.js'
import { readTradeFile } from '../../../src/sources/import/index.js'

export const FIXTURES = join(import.meta.dirname, 'fixtures')

// Binance dump rows of each layout
export const FUT_AGG_HEADER = 'agg_trade_id,price,quantity,first_trade_id,last_trade_id,transact_time,is_buyer_maker'
export const FUT_TRADES_HEADER = 'id,price,qty,quote_qty,time,is_buyer_maker'
export const futAggRows = ['100,42000.10,0.500,1000,1002,1704067200000,true', '101,42000.20,0.250,1003,1003,1704067200001,false']
export const futTradeRows = ['1000,42000.10,0.100,4200.01,1704067200000,true', '1001,42000.20,0.200,8400.04,1704067200001,false']
// spot: no header, python-style booleans, µs since 2025
export const spotAggRows = ['7000,95000.01000000,0.00100000,9000,9001,1735689600123456,False,True', '7001,95000.00000000,0.05000000,9002,9002,1735689659999999,True,True']
export const spotTradeRows = ['9000,95000.01000000,0.00100000,95.00001000,1735689600123456,False,True', '9001,95000.00000000,0.05000000,4750.00000000,1735689600200000,True,True']

export interface ZipEntry {
  name: string
  data: string | Buffer
}

/** A valid zip archive: each entry deflated (method 8) or stored (method 0). */
export function makeZip(entries: ZipEntry[], method: 'deflate' | 'store' = 'deflate'): Buffer {
  const locals: Buffer[] = []
  const centrals: Buffer[] = []
  let offset = 0
  // 2024-01-01 00:00:00 in DOS format
  const dosTime = 0
  const dosDate = ((2024 - 1980) << 9) | (1 << 5) | 1
  for (const e of entries) {
    const raw = Buffer.isBuffer(e.data) ? e.data : Buffer.from(e.data, 'utf8')
    const body = method === 'deflate' ? deflateRawSync(raw) : raw
    const name = Buffer.from(e.name, 'utf8')
    const crc = crc32(raw) >>> 0
    const m = method === 'deflate' ? 8 : 0
    const local = Buffer.alloc(30)
    local.writeUInt32LE(0x04034b50, 0)
    local.writeUInt16LE(20, 4)
    local.writeUInt16LE(0x0800, 6) // UTF-8 names
    local.writeUInt16LE(m, 8)
    local.writeUInt16LE(dosTime, 10)
    local.writeUInt16LE(dosDate, 12)
    local.writeUInt32LE(crc, 14)
    local.writeUInt32LE(body.length, 18)
    local.writeUInt32LE(raw.length, 22)
    local.writeUInt16LE(name.length, 26)
    local.writeUInt16LE(0, 28)
    const central = Buffer.alloc(46)
    central.writeUInt32LE(0x02014b50, 0)
    central.writeUInt16LE(20, 4)
    central.writeUInt16LE(20, 6)
    central.writeUInt16LE(0x0800, 8)
    central.writeUInt16LE(m, 10)
    central.writeUInt16LE(dosTime, 12)
    central.writeUInt16LE(dosDate, 14)
    central.writeUInt32LE(crc, 16)
    central.writeUInt32LE(body.length, 20)
    central.writeUInt32LE(raw.length, 24)
    central.writeUInt16LE(name.length, 28)
    central.writeUInt32LE(offset, 42)
    locals.push(local, name, body)
    centrals.push(central, name)
    offset += local.length + name.length + body.length
  }
  const cd = Buffer.concat(centrals)
  const eocd = Buffer.alloc(22)
  eocd.writeUInt32LE(0x06054b50, 0)
  eocd.writeUInt16LE(entries.length, 8)
  eocd.writeUInt16LE(entries.length, 10)
  eocd.writeUInt32LE(cd.length, 12)
  eocd.writeUInt32LE(offset, 16)
  return Buffer.concat([...locals, cd, eocd])
}

/** A fresh temp dir with a writer; call cleanup() in afterAll. */
export function tempDir() {
  const root = mkdtempSync(join(tmpdir(), 'import-test-'))
  return {
    root,
    /** write a file under the temp dir (parent dirs created); .gz paths are gzipped, returns the absolute path */
    write(rel: string, content: string | Buffer): string {
      const p = join(root, rel)
      mkdirSync(dirname(p), { recursive: true })
      writeFileSync(p, rel.endsWith('.gz') ? gzipSync(content) : content)
      return p
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  }
}

export async function collect(path: string, o: ImportOverrides = {}): Promise<TradeEvent[]> {
  const out: TradeEvent[] = []
  for await (const t of readTradeFile(path, o)) out.push(t)
  return out
}

/** error thrown by an async fn (fails the test if none) */
export async function thrown(fn: () => Promise<unknown>): Promise<Error & { file?: string; line?: number; reason?: string }> {
  try {
    await fn()
  } catch (e) {
    return e as Error
  }
  throw new Error('expected an error')
}
