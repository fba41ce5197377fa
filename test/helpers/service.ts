// Boot the real service in process: the same createServices + createApp as npm start. Requests are injected into
// the Express app (light-my-request) by default; { listen: true } opens a real port on 127.0.0.1 for the tests
// where the socket is the point (signals, client errors, slow clients, proxies, browsers).
import os from 'node:os'
import path from 'node:path'
import { createServer, IncomingMessage, ServerResponse, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import express from 'express'
import { inject } from 'light-my-request'
import { pino, type Logger } from 'pino'
import { createServices } from '../../src/bootstrap.js'
import { loadConfig } from '../../src/config.js'
import { answerClientErrors, createApp, stopApp } from '../../src/server.js'
import type { Services } from '../../src/services.js'
import { openTestStore } from './store.js'

export interface TestService {
  /** the listening server's base URL; only with { listen: true } */
  url: string
  services: Services
  /** the listening server; only with { listen: true } */
  server: Server
  /** a fetch against the service: in process unless it listens; the answer is a standard Response */
  fetch(path: string, init?: RequestInit): Promise<Response>
  /** sign up a fresh account; returns its key and id */
  signup(email?: string): Promise<{ apiKey: string; accountId: string; keyId: string; credits: number }>
  get(path: string, key?: string | null, headers?: Record<string, string>): Promise<Response>
  /** POST /graphql; the JSON body ({data, errors, extensions}) */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  graphql(query: string, variables?: Record<string, unknown>, key?: string | null): Promise<{ data: any; errors?: { message: string; extensions?: Record<string, any> }[]; extensions?: Record<string, unknown> }>
  setCredits(accountId: string, credits: number): Promise<void>
  close(): Promise<void>
}

export interface TestServiceOptions {
  env?: Record<string, string>
  clock?: () => number
  /** open a real port (the socket is what the test is about); otherwise requests are injected in process */
  listen?: boolean
  /** in process: the client address the app sees on the "socket" (a real loopback client's by default) */
  remoteAddress?: string
  /** the service's logger (default: silent) */
  logger?: Logger
  /** another node on the same store: this store (the test closes it), instead of a store of its own */
  db?: Services['db']
  /** run on the services before the app is made (e.g. give it a shared limit store, as startRole does) */
  prepare?: (services: Services) => void | Promise<void>
}

let counter = 0

export async function startTestService(opts: TestServiceOptions = {}): Promise<TestService> {
  // without DATABASE_URL the configuration names an embedded store (in a DATA_DIR of its own, never opened): the
  // service runs on a test store instead, a database of the run's cluster (helpers/store.ts); a DATABASE_URL is opened as configured
  const config = loadConfig({ DATA_DIR: path.join(os.tmpdir(), `perp-test-service-${process.pid}-${++counter}`), RATE_LIMIT_RPS: '0', AUTH_FAILURE_LIMIT: '0', SIGNUP_LIMIT: '0', LOG_LEVEL: 'silent', ...opts.env })
  const testStore = config.store.kind === 'embedded'
  const services = await createServices(config, { logger: opts.logger ?? pino({ level: 'silent' }), clock: opts.clock, db: opts.db ?? (testStore ? await openTestStore() : undefined) })
  await opts.prepare?.(services)
  // REDIS_URL: the shared limit counters an API node uses (src/roles.ts)
  if (config.REDIS_URL && !services.limits) services.limits = (await import('../../src/rest/rate-limit-store.js')).redisLimitStores(config.REDIS_URL, services.logger, config.BUS_PREFIX)
  const app = createApp(services)
  let url: string | undefined
  let server: Server | undefined
  let send: (path: string, init?: RequestInit) => Promise<Response>
  if (opts.listen) {
    server = createServer(app)
    answerClientErrors(server)
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    send = (path, init) => fetch(`${url}${path}`, init)
  } else {
    send = injector(app, opts.remoteAddress ?? '127.0.0.1')
  }
  const t: TestService = {
    get url(): string {
      if (url === undefined) throw new Error('this test service runs in process: use t.fetch(), or start it with { listen: true }')
      return url
    },
    get server(): Server {
      if (server === undefined) throw new Error('this test service runs in process: start it with { listen: true } for a server')
      return server
    },
    services,
    fetch: send,
    async graphql(query, variables, key) {
      const res = await send('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
        body: JSON.stringify({ query, variables }),
      })
      return res.json() as never
    },
    async signup(email) {
      const res = await send('/v1/auth/signup', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: email ?? `user${++counter}-${Date.now()}@example.com` }),
      })
      if (res.status !== 201) throw new Error(`signup failed: ${res.status} ${await res.text()}`)
      const { data } = (await res.json()) as { data: { api_key: string; account_id: string; key_id: string; credits: number } }
      return { apiKey: data.api_key, accountId: data.account_id, keyId: data.key_id, credits: data.credits }
    },
    get(path, key, headers = {}) {
      return send(path, { headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers } })
    },
    async setCredits(accountId, credits) {
      // as an operator sets a balance: the leases of it are void (a node finds its own gone at its next write)
      await services.db.sql.query('WITH gone AS (DELETE FROM credit_lease WHERE account_id = $1) UPDATE account SET credits = $2, leased = 0 WHERE id = $1', [accountId, credits])
    },
    async close() {
      if (server) {
        server.closeAllConnections()
        await new Promise<void>((r) => server!.close(() => r()))
      }
      // as a stopping node does: nothing on a timer reads the store once it is closed
      await stopApp(app)
      await services.limits?.close()
      if (!opts.db) await services.db.close()
    },
  }
  return t
}

const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304])
const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308])

/**
 * fetch(path, init) for an Express app without a socket. The request goes through a WHATWG Request first, so
 * headers, body and content type are what fetch would send; the answer becomes a WHATWG Response. Same-origin
 * redirects are followed as fetch follows them (redirect: 'manual' returns them).
 */
function injector(app: express.Express, remoteAddress: string) {
  // light-my-request re-parents the prototypes Express gives each request and response onto its own fakes. Copies
  // of Express's prototypes for this app take that change, so a listening app in the same process stays real.
  Object.setPrototypeOf(app.request, Object.create(IncomingMessage.prototype, Object.getOwnPropertyDescriptors(express.request)))
  Object.setPrototypeOf(app.response, Object.create(ServerResponse.prototype, Object.getOwnPropertyDescriptors(express.response)))
  const send = async (path: string, init: RequestInit = {}, hops = 0): Promise<Response> => {
    const base = 'http://127.0.0.1'
    const req = new Request(new URL(path, base), init)
    const body = req.body ? Buffer.from(await req.arrayBuffer()) : undefined
    // the headers fetch itself adds (GraphQL over HTTP picks the answer's media type from Accept)
    const headers: Record<string, string> = { accept: '*/*', 'accept-language': '*', 'sec-fetch-mode': 'cors', 'user-agent': 'node' }
    req.headers.forEach((v, k) => (headers[k] = v))
    const url = new URL(req.url)
    // each request reaches the app from an event-loop callback of its own, as from a socket: a burst started in
    // one tick must not run every request's first steps before any of them continues (shared counters see that)
    await new Promise((r) => setImmediate(r))
    const answer = inject(app, { method: req.method as 'GET', url: url.pathname + url.search, headers, payload: body, remoteAddress })
    // init.signal rejects the call as it rejects fetch (the app's work goes on, as on a dropped connection)
    const signal = init.signal
    signal?.throwIfAborted()
    const res = signal ? await Promise.race([answer, new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }))]) : await answer
    const location = res.headers.location
    if (REDIRECT_STATUS.has(res.statusCode) && typeof location === 'string' && (init.redirect ?? 'follow') === 'follow') {
      const next = new URL(location, url)
      if (next.origin !== base) throw new Error(`in-process fetch: a redirect off the service (${location})`)
      if (hops >= 20) throw new Error('in-process fetch: too many redirects')
      const keep = res.statusCode === 307 || res.statusCode === 308
      return send(next.pathname + next.search, keep ? init : { ...init, method: req.method === 'HEAD' ? 'HEAD' : 'GET', body: undefined }, hops + 1)
    }
    const out = new Headers()
    for (const [k, v] of Object.entries(res.headers)) {
      if (v === undefined) continue
      for (const one of Array.isArray(v) ? v : [v]) out.append(k, String(one))
    }
    const empty = NULL_BODY_STATUS.has(res.statusCode) || req.method === 'HEAD'
    return new Response(empty ? null : new Uint8Array(res.rawPayload), { status: res.statusCode, statusText: res.statusMessage, headers: out })
  }
  return (path: string, init?: RequestInit) => send(path, init)
}

export const expectProblem = async (res: Response, status: number, code: string) => {
  const body = (await res.json()) as Record<string, unknown>
  if (res.status !== status || body.code !== code)
    throw new Error(`expected ${status} ${code}, got ${res.status} ${JSON.stringify(body)}`)
  if (!res.headers.get('content-type')?.startsWith('application/problem+json')) throw new Error(`not problem+json: ${res.headers.get('content-type')}`)
  for (const k of ['type', 'title', 'status', 'detail', 'code']) if (!(k in body)) throw new Error(`problem without ${k}: ${JSON.stringify(body)}`)
  return body
}
