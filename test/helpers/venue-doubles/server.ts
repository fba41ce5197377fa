// One loopback HTTP server with a `ws` WebSocket server on the same port: the transport every venue double shares.
// It logs each REST request, applies the faults a test injects (refusal, outage, holes; the venue file words the
// rate-limit answers), hands REST requests and WebSocket connections to the venue's behaviour, and drives its pushes
// (trades, book updates) on a short real-time timer, stamped with the double's own clock.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { WebSocketServer, type WebSocket } from 'ws'

export interface DoubleRequest {
  method: string
  path: string
  query: URLSearchParams
  body?: string
  /** the double's clock when it arrived */
  at: number
  /** the status it was answered with (set once answered; 0 when the connection was dropped) */
  status?: number
}

export interface Reply {
  status: number
  headers?: Record<string, string>
  /** JSON-serialised unless a string */
  body: unknown
}

/**
 * A fault a test injects. `times` (default: until cleared) counts the requests it answers; `path` (a prefix)
 * narrows it to some endpoints.
 * - rate_limit: the venue's own rate-limit answer (Binance 429 + Retry-After, Bybit retCode 10006, OKX 429 + 50011, ...)
 * - ban418: Binance's IP ban (418 + Retry-After)
 * - bybit10006: Bybit's retCode 10006 with X-Bapi-Limit-Reset-Timestamp
 * - refuse: the venue refuses this client (451 geo-block, 403), REST and WebSocket upgrades alike
 * - down: every connection is dropped (REST sockets destroyed, upgrades refused, open WebSockets closed)
 * - fail: an HTTP 5xx answer (a venue having trouble)
 * - hole: history endpoints under `path` serve nothing with a timestamp in [from, to) (the venue lacks those rows);
 *   Hyperliquid's one path takes the body's type: `/info:candleSnapshot`, `/info:fundingHistory`
 */
export type Fault =
  | { kind: 'rate_limit'; retryAfterS?: number; times?: number; path?: string }
  | { kind: 'ban418'; retryAfterS?: number; times?: number; path?: string }
  | { kind: 'bybit10006'; resetInMs?: number; times?: number; path?: string }
  | { kind: 'refuse'; status: 451 | 403; times?: number; path?: string }
  | { kind: 'down'; times?: number; path?: string }
  | { kind: 'fail'; status?: 500 | 502 | 503; times?: number; path?: string }
  | { kind: 'hole'; path: string; from: number; to: number }

/** what a venue file gives the shared server */
export interface VenueBehaviour {
  /** answers a REST request (routing, limits and payloads); null = no such endpoint */
  handle(req: DoubleRequest): Reply | null
  /** the venue's answer to an unknown path */
  notFound(req: DoubleRequest): Reply
  /** the venue's wording of an injected fault (rate_limit, ban418, bybit10006, refuse, fail) */
  faultReply(fault: Exclude<Fault, { kind: 'down' | 'hole' }>, req: DoubleRequest): Reply
  /** a WebSocket client connected on `path` (with its query) */
  connection(ws: WebSocket, path: string, query: URLSearchParams): void
  /** called every push interval: stream what happened since the last push */
  push(): void
}

export interface DoubleServer {
  port: number
  restUrl: string
  wsUrl: string
  requests: DoubleRequest[]
  sockets(): Set<WebSocket>
  fault(f: Fault | null): void
  /** the holes injected for requests under this path */
  holes(path: string): Array<{ from: number; to: number }>
  closeSockets(): void
  close(): Promise<void>
}

type Active = Fault & { left: number }

const matches = (f: { path?: string }, path: string) => f.path === undefined || path.startsWith(f.path)

export async function startDoubleServer(venue: () => VenueBehaviour, opts: { now: () => number; pushMs: number }): Promise<DoubleServer> {
  const requests: DoubleRequest[] = []
  let faults: Active[] = []
  const sockets = new Set<WebSocket>()
  const raw = new Set<Socket>()

  /** the first injected fault that applies to this request (its count is used up) */
  function takeFault(path: string): Active | null {
    const f = faults.find((x) => x.kind !== 'hole' && matches(x, path))
    if (!f) return null
    if (--f.left <= 0) faults = faults.filter((x) => x !== f)
    return f
  }

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://double')
      const body = chunks.length ? Buffer.concat(chunks).toString('utf8') : undefined
      const entry: DoubleRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, body, at: opts.now() }
      requests.push(entry)
      const fault = takeFault(entry.path)
      if (fault?.kind === 'down') {
        entry.status = 0
        res.socket?.destroy()
        return
      }
      let reply: Reply
      try {
        reply = fault && fault.kind !== 'hole' ? venue().faultReply(fault, entry) : (venue().handle(entry) ?? venue().notFound(entry))
      } catch (err) {
        reply = { status: 500, body: { error: `venue double: ${err instanceof Error ? err.message : String(err)}` } }
      }
      entry.status = reply.status
      const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body)
      const type = typeof reply.body === 'string' ? 'text/html; charset=utf-8' : 'application/json;charset=UTF-8'
      res.writeHead(reply.status, { 'content-type': type, ...reply.headers })
      res.end(text)
    })
  })
  server.on('connection', (s: Socket) => {
    raw.add(s)
    s.on('close', () => raw.delete(s))
  })

  const wss = new WebSocketServer({ noServer: true })
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    // an upgraded socket has no error listener of the HTTP server's any more: a client that resets it (one refused
    // below, or one gone before the handshake) would end the test process
    socket.on('error', () => socket.destroy())
    const url = new URL(req.url ?? '/', 'http://double')
    const fault = takeFault(url.pathname)
    if (fault?.kind === 'down') return socket.destroy()
    if (fault && fault.kind !== 'hole') {
      const r = venue().faultReply(fault, { method: 'GET', path: url.pathname, query: url.searchParams, at: opts.now() })
      const text = typeof r.body === 'string' ? r.body : JSON.stringify(r.body)
      socket.end(`HTTP/1.1 ${r.status} Refused\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`)
      return
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      sockets.add(ws)
      ws.on('close', () => sockets.delete(ws))
      ws.on('error', () => ws.terminate())
      venue().connection(ws, url.pathname, url.searchParams)
    })
  })

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  const timer = setInterval(() => {
    try {
      venue().push()
    } catch {
      // a push that throws (a client gone mid-send) must not stop the next ones
    }
  }, opts.pushMs)
  timer.unref()

  const closeSockets = () => {
    for (const ws of sockets) ws.terminate()
    sockets.clear()
  }

  return {
    port,
    restUrl: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}`,
    requests,
    sockets: () => sockets,
    fault(f) {
      if (f === null) {
        faults = []
        return
      }
      faults.push({ ...f, left: 'times' in f && f.times !== undefined ? f.times : Infinity })
      if (f.kind === 'down' || f.kind === 'refuse') closeSockets()
    },
    holes: (path) => faults.filter((f): f is Active & { kind: 'hole' } => f.kind === 'hole' && path.startsWith(f.path)).map((f) => ({ from: f.from, to: f.to })),
    closeSockets,
    async close() {
      clearInterval(timer)
      closeSockets()
      wss.close()
      for (const s of raw) s.destroy()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
