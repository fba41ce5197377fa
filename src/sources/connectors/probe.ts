// MARKET_SOURCE=auto: does a venue answer? One cheap public REST call per venue, all at once, each bounded by a
// short timeout, so a machine without internet decides within the timeout (docs/connectors.md#auto). No CCXT here:
// a probe must not load the large library only live connectors need.
import { request as httpRequest } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { HttpProxyAgent } from 'http-proxy-agent'
import { HttpsProxyAgent } from 'https-proxy-agent'
import { EXCHANGE_IDS, type ExchangeId } from '../../domain/exchanges.js'
import { proxyFor, rebase, type VenueAccess } from './venue-access.js'

export interface VenueProbe {
  method: 'GET' | 'POST'
  /** the venue's public REST origin (the one its CCXT class calls for this path) */
  origin: string
  path: string
  body?: string
}

/** the lightest public call of each venue: a ping or server time (Hyperliquid: exchangeStatus, weight 2 of its 1 200 a minute) */
export const VENUE_PROBES: Record<ExchangeId, VenueProbe> = {
  binance: { method: 'GET', origin: 'https://fapi.binance.com', path: '/fapi/v1/ping' },
  bybit: { method: 'GET', origin: 'https://api.bybit.com', path: '/v5/market/time' },
  okx: { method: 'GET', origin: 'https://www.okx.com', path: '/api/v5/public/time' },
  hyperliquid: { method: 'POST', origin: 'https://api.hyperliquid.xyz', path: '/info', body: '{"type":"exchangeStatus"}' },
  dydx: { method: 'GET', origin: 'https://indexer.dydx.trade', path: '/v4/time' },
}

/** how long a probe may take: a venue slower than this at start is not counted */
const PROBE_TIMEOUT_MS = 2_500

export interface ProbeResult {
  exchange: ExchangeId
  /** the venue answered and will serve us: a 2xx answer */
  ok: boolean
  /** the HTTP status, null when nothing came back */
  status: number | null
  /** why it is not ok: the status (a 451/403 refusal names itself) or the network error */
  reason: string | null
  ms: number
}

const refusal = (status: number) => (status === 451 ? 'refused: 451 (unavailable from this location)' : status === 403 ? 'refused: 403 (forbidden from this address)' : `answered ${status}`)

/** one request, its status or the reason it failed; bounded by timeoutMs (through the proxy when one applies) */
function ask(url: string, p: VenueProbe, proxy: string | undefined, timeoutMs: number): Promise<{ status: number } | { reason: string }> {
  return new Promise((resolve) => {
    try {
      const https = url.startsWith('https:')
      const agent = proxy ? (https ? new HttpsProxyAgent(proxy) : new HttpProxyAgent(proxy)) : undefined
      const req = (https ? httpsRequest : httpRequest)(url, { method: p.method, agent, headers: p.body ? { 'content-type': 'application/json' } : {}, timeout: timeoutMs }, (res) => {
        res.resume()
        resolve({ status: res.statusCode ?? 0 })
      })
      const timer = setTimeout(() => req.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'PROBE_TIMEOUT' })), timeoutMs)
      req.on('close', () => clearTimeout(timer))
      req.on('timeout', () => req.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'PROBE_TIMEOUT' })))
      req.on('error', (err: Error & { code?: string }) => resolve({ reason: err.code === 'PROBE_TIMEOUT' ? err.message : (err.code ?? err.message) }))
      req.end(p.body)
    } catch (err) {
      // refused before any byte was sent (a bad URL, a guard): no answer
      resolve({ reason: (err as Error & { code?: string }).code ?? (err as Error).message })
    }
  })
}

/**
 * Probes the venues at once, each as its connector would reach it: `access` gives a venue's base-URL override
 * (<VENUE>_REST_URL: a relay, a venue double) and proxy (HTTPS_PROXY / HTTP_PROXY, NO_PROXY). Every probe ends by
 * `timeoutMs` whatever the network does. Never rejects. (A venue on its testnet is probed at its main origin unless
 * an override is given: a testnet's reachability says little about the main venue's.)
 */
export async function probeVenues(opts: { venues?: readonly ExchangeId[]; access?: Partial<Record<ExchangeId, VenueAccess>>; timeoutMs?: number; now?: () => number } = {}): Promise<ProbeResult[]> {
  const now = opts.now ?? Date.now
  const timeoutMs = opts.timeoutMs ?? PROBE_TIMEOUT_MS
  return Promise.all(
    (opts.venues ?? EXCHANGE_IDS).map(async (exchange): Promise<ProbeResult> => {
      const p = VENUE_PROBES[exchange]
      const a = opts.access?.[exchange]
      const url = rebase(p.origin + p.path, a?.restUrl ?? p.origin)
      const t0 = now()
      const r = await ask(url, p, a ? proxyFor(url, a) : undefined, timeoutMs)
      if ('reason' in r) return { exchange, ok: false, status: null, reason: r.reason, ms: now() - t0 }
      const ok = r.status >= 200 && r.status < 300
      return { exchange, ok, status: r.status, reason: ok ? null : refusal(r.status), ms: now() - t0 }
    }),
  )
}
