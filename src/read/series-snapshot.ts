// The hot series (series.ts) as bytes and back: what a process on the embedded store leaves for its next start, so
// that start takes a month of hourly and a day of minute cells from one file instead of reading them from the store
// (the store hands the file to the next process that opens it and to no other: Database.handoff, store/database.ts).
//
// Layout: magic, format, header length (u32, little-endian), the header as JSON (the grids' shapes and their tracks
// in order), zero padding to a multiple of 8, every track's `held` then `data` (float64, little-endian), and a CRC-32
// of everything before it. Bytes of another format, another shape or a damaged file decode to null: the caller then
// reads the store as it would without a snapshot.
import { crc32 } from 'node:zlib'
import type { ExchangeId, MarketType } from '../domain/exchanges.js'
import { BAR_WIDTH, SAMPLE_WIDTH } from './series-ring.js'

interface TrackArrays {
  held: Float64Array
  data: Float64Array
}

export interface GridParts {
  bucketMs: number
  capacity: number
  newest: number
  floor: number
  coveredFrom: number | null
  bars: ({ coin: string; exchange: ExchangeId; marketType: MarketType } & TrackArrays)[]
  samples: ({ coin: string; exchange: ExchangeId } & TrackArrays)[]
}

export interface SeriesParts {
  retentionMs: number
  minuteRetentionMs: number
  hours: GridParts
  minutes: GridParts
}

const MAGIC = Buffer.from('perp-series\n', 'latin1')
/** 2: bar tracks carry provenance (source, minutes without a taker split or from klines) and NaN for null fields */
const FORMAT = 2
/** Float64Array is in the platform's byte order; the file is little-endian, so a big-endian platform reads the store */
const LITTLE_ENDIAN = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f

interface GridHeader {
  bucketMs: number
  capacity: number
  newest: number | null
  floor: number | null
  coveredFrom: number | null
  bars: [coin: string, exchange: ExchangeId, marketType: MarketType][]
  samples: [coin: string, exchange: ExchangeId][]
}

interface Header {
  retentionMs: number
  minuteRetentionMs: number
  hours: GridHeader
  minutes: GridHeader
}

const finite = (v: number): number | null => (Number.isFinite(v) ? v : null)

function gridHeader(g: GridParts): GridHeader {
  return {
    bucketMs: g.bucketMs, capacity: g.capacity, newest: finite(g.newest), floor: finite(g.floor), coveredFrom: g.coveredFrom,
    bars: g.bars.map((b) => [b.coin, b.exchange, b.marketType]),
    samples: g.samples.map((s) => [s.coin, s.exchange]),
  }
}

const tracks = (g: GridParts): TrackArrays[] => [...g.bars, ...g.samples]

export function encodeSeries(parts: SeriesParts): Uint8Array | null {
  if (!LITTLE_ENDIAN) return null
  const header = Buffer.from(JSON.stringify({ retentionMs: parts.retentionMs, minuteRetentionMs: parts.minuteRetentionMs, hours: gridHeader(parts.hours), minutes: gridHeader(parts.minutes) } satisfies Header))
  const start = Math.ceil((MAGIC.length + 8 + header.length) / 8) * 8
  const arrays = [...tracks(parts.hours), ...tracks(parts.minutes)].flatMap((t) => [t.held, t.data])
  const size = start + arrays.reduce((n, a) => n + a.byteLength, 0)
  const out = Buffer.alloc(size + 4)
  MAGIC.copy(out, 0)
  out.writeUInt32LE(FORMAT, MAGIC.length)
  out.writeUInt32LE(header.length, MAGIC.length + 4)
  header.copy(out, MAGIC.length + 8)
  let at = start
  for (const a of arrays) {
    out.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at)
    at += a.byteLength
  }
  out.writeUInt32LE(crc32(out.subarray(0, size)), size)
  return out
}

export function decodeSeries(bytes: Uint8Array): SeriesParts | null {
  if (!LITTLE_ENDIAN) return null
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  if (buf.length < MAGIC.length + 12 || !buf.subarray(0, MAGIC.length).equals(MAGIC) || buf.readUInt32LE(MAGIC.length) !== FORMAT) return null
  const size = buf.length - 4
  if (crc32(buf.subarray(0, size)) !== buf.readUInt32LE(size)) return null
  const headerLength = buf.readUInt32LE(MAGIC.length + 4)
  let header: Header
  try {
    header = JSON.parse(buf.toString('utf8', MAGIC.length + 8, MAGIC.length + 8 + headerLength)) as Header
  } catch {
    return null
  }
  // the arrays are views on the bytes (no copy) when those are 8-byte aligned; otherwise on one aligned copy
  const body = buf.byteOffset % 8 === 0 ? buf : Buffer.from(buf)
  let at = Math.ceil((MAGIC.length + 8 + headerLength) / 8) * 8
  const take = (length: number): Float64Array | null => {
    if (at + length * 8 > size) return null
    const a = new Float64Array(body.buffer, body.byteOffset + at, length)
    at += length * 8
    return a
  }
  const grid = (h: GridHeader): GridParts | null => {
    const track = (width: number): TrackArrays | null => {
      const held = take(h.capacity)
      const data = held && take(h.capacity * width)
      return held && data ? { held, data } : null
    }
    const bars: GridParts['bars'] = []
    for (const [coin, exchange, marketType] of h.bars) {
      const t = track(BAR_WIDTH)
      if (!t) return null
      bars.push({ coin, exchange, marketType, ...t })
    }
    const samples: GridParts['samples'] = []
    for (const [coin, exchange] of h.samples) {
      const t = track(SAMPLE_WIDTH)
      if (!t) return null
      samples.push({ coin, exchange, ...t })
    }
    const orNegInf = (v: number | null) => v ?? Number.NEGATIVE_INFINITY
    return { bucketMs: h.bucketMs, capacity: h.capacity, newest: orNegInf(h.newest), floor: orNegInf(h.floor), coveredFrom: h.coveredFrom, bars, samples }
  }
  try {
    const hours = grid(header.hours)
    const minutes = hours && grid(header.minutes)
    if (!hours || !minutes || at !== size) return null
    return { retentionMs: header.retentionMs, minuteRetentionMs: header.minuteRetentionMs, hours, minutes }
  } catch {
    return null // a header of another shape
  }
}
