// How the service reaches a venue: base-URL overrides (a relay, a mirror, a test double), a proxy, the venue's
// testnet; applied to the CCXT instances a connector uses, so every REST call (polls, history pages) and every
// stream follows them. And the one place a venue's refusal (451 geo-block, 403) is recognised.
import { Agent } from 'node:http'
import type { Exchange } from 'ccxt'
import { guardWsSends } from './ccxt-access.js'

export interface VenueAccess {
  /** replaces scheme, host and port of every REST URL of the venue (spot and futures alike); paths are kept */
  restUrl?: string
  /** the same for every WebSocket URL */
  wsUrl?: string
  /** CCXT's sandbox URLs (setSandboxMode) before any override */
  testnet?: boolean
  /** proxy for https:// and wss:// targets (HTTPS_PROXY) */
  httpsProxy?: string
  /** proxy for http:// and ws:// targets (HTTP_PROXY) */
  httpProxy?: string
  /** hosts reached without a proxy (NO_PROXY: names, .suffixes, or *) */
  noProxy?: readonly string[]
}

const applied = new WeakSet<Exchange>()
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i

/** `url` with its scheme://host[:port] replaced by `base` (a trailing slash of base dropped), path and query kept */
export function rebase(url: string, base: string): string {
  return url.replace(ORIGIN, base.replace(/\/+$/, ''))
}

const isDict = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** rewrites the URL strings of a CCXT `urls.api` tree in place; `ws` selects the WebSocket subtree or the rest */
function rewrite(tree: Record<string, unknown>, base: string, ws: boolean, inWs = false): void {
  for (const [key, value] of Object.entries(tree)) {
    const wsBranch = inWs || key === 'ws'
    if (typeof value === 'string') {
      if (wsBranch === ws && ORIGIN.test(value)) tree[key] = rebase(value, base)
    } else if (isDict(value)) rewrite(value, base, ws, wsBranch)
  }
}

/** the URLs a CCXT instance would call, REST or WebSocket (for tests and logs) */
export function venueUrls(ex: Exchange, ws: boolean): string[] {
  const out: string[] = []
  const walk = (v: unknown, inWs: boolean, key = '') => {
    if (typeof v === 'string' && (inWs || key === 'ws') === ws && ORIGIN.test(v)) out.push(v)
    else if (isDict(v)) for (const [k, x] of Object.entries(v)) walk(x, inWs || k === 'ws', k)
  }
  walk(ex.urls['api'], false)
  return out
}

function bypass(host: string, noProxy: readonly string[] | undefined): boolean {
  return (noProxy ?? []).some((n) => n === '*' || host === n.replace(/^\./, '') || (n.startsWith('.') ? host.endsWith(n) : host.endsWith(`.${n}`)))
}

/** the proxy for a target URL: HTTPS_PROXY for https/wss, HTTP_PROXY for http/ws, none for NO_PROXY hosts */
export function proxyFor(target: string | undefined, a: VenueAccess): string | undefined {
  if (!target) return undefined
  let url: URL
  try {
    url = new URL(target.replace(/\{hostname\}/g, 'venue.invalid'))
  } catch {
    return undefined
  }
  if (bypass(url.hostname, a.noProxy)) return undefined
  return url.protocol === 'https:' || url.protocol === 'wss:' ? a.httpsProxy : a.httpProxy
}

/**
 * Applies testnet, overrides and proxy to one CCXT instance (call before its first request). REST goes through
 * CCXT's `httpsProxy` (undici's ProxyAgent tunnels every request, http or https target); streams through
 * `wssProxy` (https-proxy-agent, a CONNECT tunnel, for ws and wss targets alike).
 */
export function applyVenueAccess(ex: Exchange, a: VenueAccess | undefined): void {
  // every instance a connector makes passes here first: its WebSocket sends cannot end the process (ccxt-access.ts)
  guardWsSends(ex)
  // once per instance: a second setSandboxMode would put the sandbox URLs back over the overrides
  if (!a || applied.has(ex)) return
  applied.add(ex)
  if (a.testnet) ex.setSandboxMode(true)
  const api = ex.urls['api'] as unknown
  if (a.restUrl) {
    if (typeof api === 'string') (ex.urls as Record<string, unknown>)['api'] = rebase(api, a.restUrl)
    else if (isDict(api)) rewrite(api, a.restUrl, false)
  }
  if (a.wsUrl && isDict(api)) {
    if (typeof api['ws'] === 'string') api['ws'] = rebase(api['ws'], a.wsUrl)
    else if (isDict(api['ws'])) rewrite(api['ws'], a.wsUrl, true, true)
  }
  const rest = venueUrls(ex, false)[0]
  const stream = venueUrls(ex, true)[0]
  const restProxy = proxyFor(rest, a)
  const wsProxy = proxyFor(stream, a)
  if (restProxy) ex.httpsProxy = restProxy
  if (wsProxy) ex.wssProxy = wsProxy
  // CCXT refuses plain ws:// URLs until it holds an http.Agent (Exchange.getHttpAgentIfNeeded)
  if (stream?.startsWith('ws://')) (ex as unknown as { httpAgent?: Agent }).httpAgent ??= new Agent()
}

export interface VenueRefusal {
  status: 451 | 403
  /** what the venue said, shortened */
  detail: string
  /** the request refused, e.g. "GET /fapi/v1/exchangeInfo" */
  request: string | null
}

const strip = (s: string) => s.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim()

/**
 * A 451 or 403 answer in a CCXT error: its REST form ("<id> GET <url> 451 <reason> <body>") or a refused WebSocket
 * upgrade ("Unexpected server response: 451"). Null for anything else.
 */
export function venueRefusal(err: unknown): VenueRefusal | null {
  const text = err instanceof Error ? err.message : String(err)
  const rest = /^\S+ (GET|POST|PUT|DELETE) (\S+) (451|403) ([\s\S]*)$/.exec(text)
  const ws = rest ? null : /Unexpected server response: (451|403)/.exec(text)
  if (!rest && !ws) return null
  const status = Number(rest ? rest[3] : ws![1]) as 451 | 403
  let detail = rest ? strip(rest[4]!) : `WebSocket upgrade refused with HTTP ${status}`
  const json = rest ? /\{[\s\S]*\}\s*$/.exec(rest[4]!) : null
  if (json) {
    try {
      const body = JSON.parse(json[0]) as Record<string, unknown>
      const msg = body['msg'] ?? body['retMsg'] ?? body['message'] ?? (body['errors'] as Array<{ msg?: string }> | undefined)?.[0]?.msg
      if (typeof msg === 'string') detail = msg
    } catch {
      // not JSON after all: keep the text
    }
  }
  if (/block access from your country/i.test(detail)) detail = 'CloudFront: "configured to block access from your country"'
  let request: string | null = null
  if (rest) {
    try {
      request = `${rest[1]} ${new URL(rest[2]!).pathname}`
    } catch {
      request = `${rest[1]} ${rest[2]}`
    }
  }
  return { status, detail: detail.length > 200 ? `${detail.slice(0, 197)}...` : detail, request }
}

interface RefusalLogger {
  error(obj: object, msg?: string): void
  info(obj: object, msg?: string): void
}

/**
 * A connector's refusals, per task (a loop or the market load): the venue counts as refusing while any task's latest
 * failure was a refusal. A refused task that succeeds again shows the venue answers: every refusal is cleared then (a
 * stream loop only succeeds when data comes, which may be rare, so it cannot be waited for). Logged once when it
 * starts and once when it ends, and handed to `notify`.
 */
export class RefusalWatch {
  private readonly byTask = new Map<string, VenueRefusal>()
  private reported: VenueRefusal | null = null

  constructor(
    private readonly exchangeOf: () => string,
    private readonly log: RefusalLogger,
    private readonly notify?: (r: VenueRefusal | null) => void,
  ) {}

  get current(): VenueRefusal | null {
    return this.byTask.values().next().value ?? null
  }

  failed(task: string, err: unknown): void {
    const r = venueRefusal(err)
    if (r) this.byTask.set(task, r)
    else this.byTask.delete(task)
    this.report()
  }

  recovered(task: string): void {
    if (!this.byTask.has(task)) return
    this.byTask.clear()
    this.report()
  }

  private report(): void {
    const now = this.current
    if ((now === null) === (this.reported === null)) return
    this.reported = now
    const exchange = this.exchangeOf()
    if (now) this.log.error({ exchange, status: now.status, request: now.request, detail: now.detail }, `${exchange} refuses this service (HTTP ${now.status}); its feed is down, the other venues keep running`)
    else this.log.info({ exchange }, `${exchange} answers again`)
    this.notify?.(now)
  }
}

/** the status reason /v1/markets/exchanges gives for a refusing venue: what it said, and what to change */
export function refusalReason(exchange: string, r: VenueRefusal): string {
  const P = exchange.toUpperCase()
  const kind = r.status === 451 ? 'a geo-block' : 'refused access'
  return `${exchange} refuses this service: HTTP ${r.status}${r.request ? ` on ${r.request}` : ''} (${kind}): ${r.detail}. Reach it through ${P}_REST_URL/${P}_WS_URL or HTTPS_PROXY from an allowed place, or leave it out of MARKET_SOURCE; the other venues keep running`
}
