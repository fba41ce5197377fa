// Reaching the venues: base-URL overrides on every CCXT class the connectors use (all REST hosts, spot and futures,
// paths kept; all stream hosts), testnets, the proxy (a real CONNECT proxy on loopback in front of a venue double),
// and how a refusal (451, 403) is recognised in CCXT's errors.
import '../../helpers/no-network.js'
import { createServer, type Server } from 'node:http'
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import ccxt, { type Exchange } from 'ccxt'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { applyVenueAccess, rebase, RefusalWatch, venueRefusal, venueUrls, type VenueRefusal } from '../../../src/sources/connectors/venue-access.js'
import { BinanceConnector } from '../../../src/sources/connectors/index.js'
import { startVenueDouble } from '../../helpers/venue-doubles/index.js'
import { RecordingSink, waitFor } from './offline.js'

const CLASSES = ['binance', 'binanceusdm', 'bybit', 'okx', 'hyperliquid', 'dydx'] as const
const make = (id: (typeof CLASSES)[number]): Exchange => new (ccxt.pro as unknown as Record<string, new () => Exchange>)[id]!()
const pathOf = (url: string) => url.replace(/^[a-z]+:\/\/[^/]*/i, '')

describe('base-URL overrides', () => {
  it('rebase keeps path and query and drops a trailing slash of the base', () => {
    expect(rebase('https://fapi.binance.com/fapi/v1', 'http://127.0.0.1:9/')).toBe('http://127.0.0.1:9/fapi/v1')
    expect(rebase('https://api.{hostname}', 'https://relay.example/bybit')).toBe('https://relay.example/bybit')
    expect(rebase('wss://ws.okx.com:8443/ws/v5', 'ws://127.0.0.1:7')).toBe('ws://127.0.0.1:7/ws/v5')
  })

  for (const id of CLASSES) {
    it(`${id}: one REST origin replaces every REST host (paths kept), one WS origin every stream host`, () => {
      const before = make(id)
      const ex = make(id)
      applyVenueAccess(ex, { restUrl: 'http://127.0.0.1:1234/relay', wsUrl: 'ws://127.0.0.1:1235' })
      const rest = venueUrls(ex, false)
      const ws = venueUrls(ex, true)
      expect(rest.length).toBeGreaterThan(0)
      expect(ws.length).toBeGreaterThan(0)
      expect(rest.every((u) => u.startsWith('http://127.0.0.1:1234/relay'))).toBe(true)
      expect(ws.every((u) => u.startsWith('ws://127.0.0.1:1235'))).toBe(true)
      // same paths, in the same order, as the venue's own hosts
      expect(rest.map((u) => u.slice('http://127.0.0.1:1234/relay'.length))).toEqual(venueUrls(before, false).map(pathOf))
      expect(ws.map(pathOf)).toEqual(venueUrls(before, true).map(pathOf))
      // no proxy configured: none set
      expect(ex.httpsProxy).toBeUndefined()
      expect(ex.wssProxy).toBeUndefined()
    })

    it(`${id}: testnet is CCXT's sandbox, and an override applies on top of it`, () => {
      const sandbox = make(id)
      sandbox.setSandboxMode(true)
      const ex = make(id)
      applyVenueAccess(ex, { testnet: true })
      expect(venueUrls(ex, false)).toEqual(venueUrls(sandbox, false))
      const both = make(id)
      applyVenueAccess(both, { testnet: true, restUrl: 'https://relay.example' })
      expect(venueUrls(both, false)).toEqual(venueUrls(sandbox, false).map((u) => 'https://relay.example' + pathOf(u)))
      // applying twice changes nothing (a second setSandboxMode would restore the sandbox hosts)
      applyVenueAccess(both, { testnet: true })
      expect(venueUrls(both, false)[0]!.startsWith('https://relay.example')).toBe(true)
    })
  }

  it('the proxy follows the target: HTTPS_PROXY for https/wss, HTTP_PROXY for http/ws, none for NO_PROXY hosts', () => {
    const a = make('okx')
    applyVenueAccess(a, { httpsProxy: 'http://proxy.example:3128', httpProxy: 'http://plain.example:3128' })
    expect([a.httpsProxy, a.wssProxy]).toEqual(['http://proxy.example:3128', 'http://proxy.example:3128'])
    const b = make('okx')
    applyVenueAccess(b, { restUrl: 'http://relay.internal', wsUrl: 'ws://relay.internal', httpsProxy: 'http://proxy.example:3128', httpProxy: 'http://plain.example:3128' })
    expect([b.httpsProxy, b.wssProxy]).toEqual(['http://plain.example:3128', 'http://plain.example:3128'])
    const c = make('okx')
    applyVenueAccess(c, { restUrl: 'http://relay.internal', wsUrl: 'ws://relay.internal', httpProxy: 'http://plain.example:3128', noProxy: ['.internal'] })
    expect([c.httpsProxy, c.wssProxy]).toEqual([undefined, undefined])
  })
})

describe('venue refusals', () => {
  it('reads CCXT REST errors and refused stream upgrades', () => {
    const r451 = venueRefusal(new Error('binanceusdm GET https://fapi.binance.com/fapi/v1/exchangeInfo 451 Unavailable For Legal Reasons {"code":0,"msg":"Service unavailable from a restricted location according to \'b. Eligibility\' in https://www.binance.com/en/terms."}'))
    expect(r451).toEqual({ status: 451, request: 'GET /fapi/v1/exchangeInfo', detail: "Service unavailable from a restricted location according to 'b. Eligibility' in https://www.binance.com/en/terms." })
    const r403 = venueRefusal(new Error('bybit GET https://api.bybit.com/v5/market/instruments-info?category=linear 403 Forbidden <HTML><BODY>The Amazon CloudFront distribution is configured to block access from your country.</BODY></HTML>'))
    expect(r403).toMatchObject({ status: 403, request: 'GET /v5/market/instruments-info', detail: 'CloudFront: "configured to block access from your country"' })
    expect(venueRefusal(new Error('Unexpected server response: 451'))).toMatchObject({ status: 451, request: null })
    expect(venueRefusal(new Error('binanceusdm GET https://fapi.binance.com/fapi/v1/time 429 Too Many Requests {"code":-1003}'))).toBeNull()
    expect(venueRefusal(new Error('connect ECONNREFUSED 127.0.0.1:1'))).toBeNull()
  })
})

describe('a connector\'s refusals', () => {
  it('start with a refused task, survive other tasks\' successes, end when a refused task succeeds; logged once each way', () => {
    const notes: Array<VenueRefusal | null> = []
    const log = { error: vi.fn(), info: vi.fn() }
    const w = new RefusalWatch(() => 'bybit', log, (r) => notes.push(r))
    const refused = new Error('bybit GET https://api.bybit.com/v5/market/tickers?category=linear 403 Forbidden access too frequent')
    w.failed('tickers', refused)
    w.failed('funding', refused)
    expect(w.current).toMatchObject({ status: 403, request: 'GET /v5/market/tickers' })
    w.recovered('book:BTC/USDT:USDT') // a task that was never refused
    w.failed('positioning', new Error('connect ETIMEDOUT'))
    expect(w.current).not.toBeNull()
    w.recovered('funding')
    expect(w.current).toBeNull()
    expect(notes.map((n) => n?.status ?? null)).toEqual([403, null])
    expect(log.error).toHaveBeenCalledTimes(1)
    expect(log.error.mock.calls[0]![1]).toBe('bybit refuses this service (HTTP 403); its feed is down, the other venues keep running')
    expect(log.info).toHaveBeenCalledTimes(1)
  })
})

describe('through a proxy', () => {
  const closers: Array<() => Promise<void>> = []
  afterAll(async () => {
    for (const c of closers.reverse()) await c()
  })

  /** a CONNECT proxy on loopback that counts the tunnels it opened, per target */
  async function connectProxy(): Promise<{ url: string; tunnels: string[] }> {
    const tunnels: string[] = []
    const server: Server = createServer((_req, res) => res.writeHead(405).end())
    const sockets = new Set<net.Socket>()
    server.on('connect', (req, client: net.Socket, head: Buffer) => {
      tunnels.push(req.url ?? '')
      const [host, port] = (req.url ?? '').split(':')
      const upstream = net.connect(Number(port), host, () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n')
        upstream.write(head)
        upstream.pipe(client)
        client.pipe(upstream)
      })
      for (const s of [client, upstream]) {
        sockets.add(s)
        s.on('error', () => s.destroy()).on('close', () => sockets.delete(s))
      }
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    closers.push(async () => {
      for (const s of sockets) s.destroy()
      await new Promise<void>((r) => server.close(() => r()))
    })
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, tunnels }
  }

  it('a connector reaches the venue double through HTTP_PROXY, REST and streams alike', async () => {
    const d = await startVenueDouble('binance', { pushMs: 50 })
    closers.push(() => d.close())
    const proxy = await connectProxy()
    const sink = new RecordingSink()
    const c = new BinanceConnector({ coins: ['BTC'], sink, marketTypes: ['perp'], pollIntervalMs: 200, access: { restUrl: d.restUrl, wsUrl: d.wsUrl, httpProxy: proxy.url } })
    closers.push(() => c.stop())
    await c.start()
    await waitFor(() => sink.of('trade').length > 0 && sink.of('ticker').length > 0, 15_000, 'trades and tickers through the proxy')
    const target = d.restUrl.replace('http://', '')
    // every connection to the double went through the proxy: REST (undici's tunnel) and the streams (https-proxy-agent)
    expect(proxy.tunnels.length).toBeGreaterThanOrEqual(2)
    expect(proxy.tunnels.every((t) => t === target)).toBe(true)
    expect(d.requests.some((r) => r.path === '/fapi/v1/exchangeInfo')).toBe(true)
    await vi.waitFor(() => expect(c.health().connected).toBe(true))
  })
})
