// Records what a venue's CCXT instances receive, as it arrives: every HTTP response (method, full URL, the request
// body when there is one, status, raw body text) from CCXT's onRestResponse, the point where CCXT has read the body
// and before it parses it; and every WebSocket frame (raw text, stream URL) at ccxt.pro's WsClient.onMessage, before
// it is parsed. Each with its receive time, as one line of a recording (format.ts, docs/recordings.md). The history
// service's pages are HTTP responses of the same instances; where it planned them is a `history` line.
import { gunzipSync, inflateRawSync } from 'node:zlib'
import type { Exchange } from 'ccxt'
import type { ExchangeId } from '../../domain/exchanges.js'
import { formatLine, type RecordingLine } from './format.js'

export interface RecorderStats {
  lines: number
  bytes: number
  http: number
  ws: number
  perVenue: Partial<Record<ExchangeId, { http: number; ws: number }>>
  /** frames or bodies that could not be turned into text (binary the recorder could not decode) */
  undecodable: number
}

interface HookedClient {
  url: string
  gunzip?: boolean
  inflate?: boolean
  onMessage(event: { data: unknown }): void
}

export class Recorder {
  readonly stats: RecorderStats = { lines: 0, bytes: 0, http: 0, ws: 0, perVenue: {}, undecodable: 0 }
  private readonly hooked = new WeakSet<object>()

  constructor(
    private readonly write: (text: string) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** a header line: what wrote the file and what it covers */
  meta(exchanges: ExchangeId[], coins: readonly string[], ccxtVersion?: string): void {
    this.line({ v: 1, kind: 'meta', at: this.now(), recorder: 'perp-analytics npm run record', ...(ccxtVersion ? { ccxt: ccxtVersion } : {}), exchanges, coins: [...coins] })
  }

  /** a venue's history service planned its backfill: the window and the clock it planned on (the replay plans the same) */
  history(venue: ExchangeId, days: number, started: { now: number; from: number; to: number }): void {
    this.line({ v: 1, venue, at: this.now(), kind: 'history', days, now: started.now, from: started.from, to: started.to })
  }

  /** Hooks `ex` (idempotent). Call before the connector starts, so no response or connection escapes. */
  attach(venue: ExchangeId, ex: Exchange): void {
    if (this.hooked.has(ex)) return
    this.hooked.add(ex)
    const anyEx = ex as unknown as {
      onRestResponse: (status: number, statusText: string, url: string, method: string, resHeaders: unknown, body: string, reqHeaders: unknown, reqBody: unknown) => string
      client(url: string): HookedClient
    }
    const onRest = anyEx.onRestResponse.bind(ex)
    anyEx.onRestResponse = (status, statusText, url, method, resHeaders, body, reqHeaders, reqBody) => {
      const requestBody = typeof reqBody === 'string' ? reqBody : reqBody === undefined || reqBody === null ? undefined : JSON.stringify(reqBody)
      this.line({ v: 1, venue, at: this.now(), kind: 'http', method, url, ...(requestBody ? { requestBody } : {}), status, body: String(body) })
      this.count(venue, 'http')
      return onRest(status, statusText, url, method, resHeaders, body, reqHeaders, reqBody)
    }
    const client = anyEx.client.bind(ex)
    anyEx.client = (url: string) => {
      const c = client(url)
      if (!this.hooked.has(c)) {
        this.hooked.add(c)
        const onMessage = c.onMessage.bind(c)
        c.onMessage = (event) => {
          const frame = frameText(c, event?.data)
          if (frame === undefined) this.stats.undecodable++
          else {
            this.line({ v: 1, venue, at: this.now(), kind: 'ws', url: c.url, frame })
            this.count(venue, 'ws')
          }
          onMessage(event)
        }
      }
      return c
    }
  }

  private line(l: RecordingLine): void {
    const text = formatLine(l) + '\n'
    this.stats.lines++
    this.stats.bytes += Buffer.byteLength(text)
    this.write(text)
  }

  private count(venue: ExchangeId, kind: 'http' | 'ws'): void {
    this.stats[kind]++
    const v = (this.stats.perVenue[venue] ??= { http: 0, ws: 0 })
    v[kind]++
  }
}

/** The frame as text, decoded the way CCXT's client decodes it (gzip / raw deflate where the venue compresses). */
function frameText(client: HookedClient, data: unknown): string | undefined {
  try {
    if (typeof data === 'string') return data
    let bytes: Buffer
    if (Buffer.isBuffer(data)) bytes = data
    else if (data instanceof ArrayBuffer) bytes = Buffer.from(data)
    else if (ArrayBuffer.isView(data)) bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength)
    else return undefined
    if (client.gunzip) bytes = gunzipSync(bytes)
    else if (client.inflate) bytes = inflateRawSync(bytes)
    return bytes.toString('utf8')
  } catch {
    return undefined
  }
}
