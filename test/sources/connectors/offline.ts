// Offline harness for CCXT instances: recorded HTTP bodies answer REST calls through CCXT's own fetch path
// (fetchImplementation hook -> handleRestResponse -> JSON parse -> handleErrors -> the method's parser), and a fake
// socket lets ccxt.pro's real WsClient deliver recorded frames (onMessage -> JSON parse -> handleMessage).
// Nothing here opens a socket or a connection: an unrouted request throws.
// Belt and braces: loading this harness makes any TCP connection beyond loopback fail loudly.
import '../../helpers/no-network.js'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Exchange } from 'ccxt'
import type { EventSink, FeedStateEvent, MarketEvent } from '../../../src/domain/events.js'
import { vi } from 'vitest'

export const FIXTURES_DIR = process.env['EXCHANGE_FIXTURES_DIR'] ?? fileURLToPath(new URL('../../../../shared/fixtures/exchanges/', import.meta.url))

export function fixtureText(path: string): string {
  return readFileSync(FIXTURES_DIR + path, 'utf8')
}

export function fixture<T = any>(path: string): T {
  return JSON.parse(fixtureText(path)) as T
}

/** dYdX NT recordings wrap the indexer body as {requestId, status, isoTimestamp, result}: the HTTP body is `result`. */
export function dydxBody(path: string): string {
  return JSON.stringify(fixture<{ result: unknown }>(path).result)
}

type RouteMatch = string | RegExp | ((url: string, body: string | undefined) => boolean)
export type Route = [RouteMatch, string | ((url: string, body: string | undefined) => string)]

export interface RecordedRequest {
  method: string
  url: string
  body: string | undefined
}

function matches(m: RouteMatch, url: string, body: string | undefined): boolean {
  if (typeof m === 'string') return url.includes(m)
  if (m instanceof RegExp) return m.test(url)
  return m(url, body)
}

/** Makes `ex` answer REST calls from `routes` (first match wins); returns the list of requests it saw. */
export function offlineHttp(ex: Exchange, routes: Route[]): RecordedRequest[] {
  const requests: RecordedRequest[] = []
  const anyEx = ex as any
  anyEx.enableRateLimit = false
  anyEx.fetchImplementation = async (url: string, params: { method: string; body?: string }) => {
    requests.push({ method: params.method, url, body: params.body })
    const route = routes.find(([m]) => matches(m, url, params.body))
    if (!route) throw new Error(`offline: no recorded body for ${params.method} ${url} ${params.body ?? ''}`)
    const text = typeof route[1] === 'function' ? route[1](url, params.body) : route[1]
    return new Response(text, { status: 200, headers: { 'content-type': 'application/json' } })
  }
  return requests
}

export interface FakeWs {
  /** every message a client sent, parsed */
  sent: Array<{ url: string; message: any }>
  /**
   * Delivers one recorded frame to the clients chosen by `target`: a url substring, or a predicate over the client's
   * url and the messages it sent (e.g. "subscribed to this stream"); every client by default.
   */
  push(frame: unknown, target?: string | ((url: string, sent: any[]) => boolean)): void
  /** urls of the clients CCXT created */
  urls(): string[]
}

/**
 * Replaces the socket under every ccxt.pro client of `ex` with an in-memory one. `onSend` may answer a sent message
 * (e.g. Binance's {result:null,id} subscription ack) through `reply`.
 */
export function offlineWs(ex: Exchange, onSend?: (url: string, message: any, reply: (frame: unknown) => void) => void): FakeWs {
  const sent: FakeWs['sent'] = []
  const anyEx = ex as any
  const original = anyEx.client.bind(ex)
  anyEx.client = (url: string) => {
    const client = original(url)
    if (!client.__offline) {
      client.__offline = true
      client.keepAlive = 0
      const reply = (frame: unknown) => setTimeout(() => client.onMessage({ data: JSON.stringify(frame) }), 0)
      client.createConnection = function (this: any) {
        this.connection = {
          readyState: 1,
          send: (data: string, _opts: unknown, cb?: (err?: Error) => void) => {
            const message = JSON.parse(data)
            sent.push({ url, message })
            cb?.()
            onSend?.(url, message, reply)
          },
          close: () => {},
        }
        setTimeout(() => this.onOpen(), 0)
      }
    }
    return client
  }
  return {
    sent,
    push(frame, target) {
      for (const [url, client] of Object.entries<any>(anyEx.clients ?? {})) {
        const chosen =
          target === undefined ||
          (typeof target === 'string' ? url.includes(target) : target(url, sent.filter((s) => s.url === url).map((s) => s.message)))
        if (chosen) client.onMessage({ data: JSON.stringify(frame) })
      }
    },
    urls: () => Object.keys(anyEx.clients ?? {}),
  }
}

/** A ccxt.pro client for direct handleMessage feeding, without any connection. */
export function wsClient(ex: Exchange, url: string): any {
  return (ex as any).client(url)
}

export class RecordingSink implements EventSink {
  readonly events: MarketEvent[] = []
  /** the connector's feed states (its liquidation stream up or down) */
  readonly feeds: FeedStateEvent[] = []
  emit(event: MarketEvent): void {
    this.events.push(event)
  }
  feed(state: FeedStateEvent): void {
    this.feeds.push(state)
  }
  of<T extends MarketEvent['type']>(type: T): Extract<MarketEvent, { type: T }>[] {
    return this.events.filter((e): e is Extract<MarketEvent, { type: T }> => e.type === type)
  }
}

export async function waitFor(predicate: () => boolean, timeoutMs = 5_000, label = 'condition'): Promise<void> {
  await vi.waitFor(() => {
    if (!predicate()) throw new Error(`timed out waiting for ${label}`)
  }, { timeout: timeoutMs, interval: 5 })
}

/** Binance: the client that SUBSCRIBEd to the frame's stream. */
export const binanceStream = (stream: string) => (_url: string, sent: any[]) =>
  sent.some((m) => m.method === 'SUBSCRIBE' && (m.params as string[]).includes(stream))
