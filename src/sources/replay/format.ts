// The recording format (docs/recordings.md): JSON lines, one object per line, versioned by `v`. A line is what a
// connector received (an HTTP response or a WebSocket frame, raw text, with its receive time), a `meta` header, or
// a `history` line (a venue's history service planned its backfill; its pages are http lines).
import { z } from 'zod'
import { EXCHANGE_IDS, type ExchangeId } from '../../domain/exchanges.js'

const RECORDING_VERSION = 1

/** Optional provenance a line may carry (the fixture recording notes where each payload came from). */
interface Provenance {
  /** the file the payload was copied from */
  source?: string
  note?: string
  /** recorded on the venue's test network, not the main market */
  testnet?: boolean
}

export interface HttpLine extends Provenance {
  v: 1
  venue: ExchangeId
  /** receive time, Unix ms */
  at: number
  kind: 'http'
  method: string
  /** the full request URL, query included */
  url: string
  /** the raw request body when there was one (Hyperliquid's POST /info selects its answer with it) */
  requestBody?: string
  status: number
  /** the raw response body */
  body: string
}

export interface WsLine extends Provenance {
  v: 1
  venue: ExchangeId
  at: number
  kind: 'ws'
  /** the stream URL the frame arrived on */
  url: string
  /** the raw frame text */
  frame: string
}

export interface MetaLine {
  v: 1
  kind: 'meta'
  at: number
  /** what wrote the file */
  recorder: string
  ccxt?: string
  exchanges: ExchangeId[]
  coins?: string[]
}

/**
 * A venue's history service planned its backfill: the window it fills and the clock it planned on (retention is
 * relative to it), so a replay plans the same pages. Its pages follow as http lines like any other REST answer.
 */
export interface HistoryLine {
  v: 1
  venue: ExchangeId
  /** when the line was written, Unix ms */
  at: number
  kind: 'history'
  /** BACKFILL_DAYS of the recording */
  days: number
  /** the history service's clock when it planned */
  now: number
  /** the window it fills, [from, to) */
  from: number
  to: number
}

export type RecordingLine = HttpLine | WsLine | MetaLine | HistoryLine

export class RecordingFormatError extends Error {}

const venue = z.enum(EXCHANGE_IDS)
const at = z.number().finite()
const provenance = { source: z.string().optional(), note: z.string().optional(), testnet: z.boolean().optional() }

const LineSchema = z.discriminatedUnion('kind', [
  z.object({
    v: z.literal(1),
    venue,
    at,
    kind: z.literal('http'),
    method: z.string().min(1),
    url: z.string().url(),
    requestBody: z.string().optional(),
    status: z.number().int().min(100).max(599),
    body: z.string(),
    ...provenance,
  }),
  z.object({ v: z.literal(1), venue, at, kind: z.literal('ws'), url: z.string().url(), frame: z.string(), ...provenance }),
  z.object({ v: z.literal(1), venue, at, kind: z.literal('history'), days: z.number().positive(), now: at, from: at, to: at }),
  z.object({
    v: z.literal(1),
    kind: z.literal('meta'),
    at,
    recorder: z.string(),
    ccxt: z.string().optional(),
    exchanges: z.array(venue),
    coins: z.array(z.string()).optional(),
  }),
])

/**
 * One line of a recording -> its object; null for a blank line or a line of a kind this version does not know
 * (later minor additions are skipped, not fatal). Throws RecordingFormatError naming the line otherwise.
 */
export function parseLine(text: string, lineNo: number): RecordingLine | null {
  if (text.trim() === '') return null
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch {
    throw new RecordingFormatError(`line ${lineNo}: not JSON`)
  }
  const obj = raw as { v?: unknown; kind?: unknown } | null
  if (!obj || typeof obj !== 'object') throw new RecordingFormatError(`line ${lineNo}: not a JSON object`)
  if (obj.v !== RECORDING_VERSION) throw new RecordingFormatError(`line ${lineNo}: unsupported recording version ${JSON.stringify(obj.v)} (this build reads v${RECORDING_VERSION})`)
  if (obj.kind !== 'http' && obj.kind !== 'ws' && obj.kind !== 'meta' && obj.kind !== 'history') return null
  const parsed = LineSchema.safeParse(raw)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    throw new RecordingFormatError(`line ${lineNo}: ${issue.path.join('.') || 'line'}: ${issue.message}`)
  }
  return parsed.data as RecordingLine
}

/** One line of text (no newline), keys in the documented order. */
export function formatLine(line: RecordingLine): string {
  const prov = (l: Provenance) => ({
    ...(l.source !== undefined ? { source: l.source } : {}),
    ...(l.note !== undefined ? { note: l.note } : {}),
    ...(l.testnet !== undefined ? { testnet: l.testnet } : {}),
  })
  switch (line.kind) {
    case 'http':
      return JSON.stringify({
        v: line.v,
        venue: line.venue,
        at: line.at,
        kind: line.kind,
        method: line.method,
        url: line.url,
        ...(line.requestBody !== undefined ? { requestBody: line.requestBody } : {}),
        status: line.status,
        body: line.body,
        ...prov(line),
      })
    case 'ws':
      return JSON.stringify({ v: line.v, venue: line.venue, at: line.at, kind: line.kind, url: line.url, frame: line.frame, ...prov(line) })
    case 'history':
      return JSON.stringify({ v: line.v, venue: line.venue, at: line.at, kind: line.kind, days: line.days, now: line.now, from: line.from, to: line.to })
    case 'meta':
      return JSON.stringify({
        v: line.v,
        kind: line.kind,
        at: line.at,
        recorder: line.recorder,
        ...(line.ccxt !== undefined ? { ccxt: line.ccxt } : {}),
        exchanges: line.exchanges,
        ...(line.coins !== undefined ? { coins: line.coins } : {}),
      })
  }
}
