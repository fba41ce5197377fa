// MARKET_SOURCE=auto: does a venue answer? One cheap public REST call per venue, all at once, each bounded by a
// short timeout, so a machine without internet decides within the timeout (docs/connectors.md#auto). No CCXT here:
// a probe must not load the large library only live connectors need.
import { EXCHANGE_IDS, type ExchangeId } from '../../domain/exchanges.js'

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

/**
 * Probes the venues at once. `origins` replaces a venue's origin (a venue double, a base-URL override); every probe
 * ends by `timeoutMs` whatever the network does. Never rejects.
 */
export async function probeVenues(opts: { venues?: readonly ExchangeId[]; origins?: Partial<Record<ExchangeId, string>>; timeoutMs?: number; now?: () => number } = {}): Promise<ProbeResult[]> {
  const now = opts.now ?? Date.now
  const timeoutMs = opts.timeoutMs ?? PROBE_TIMEOUT_MS
  return Promise.all(
    (opts.venues ?? EXCHANGE_IDS).map(async (exchange): Promise<ProbeResult> => {
      const p = VENUE_PROBES[exchange]
      const url = new URL(p.path, opts.origins?.[exchange] ?? p.origin)
      const t0 = now()
      try {
        const res = await fetch(url, {
          method: p.method,
          headers: p.body ? { 'content-type': 'application/json' } : undefined,
          body: p.body,
          signal: AbortSignal.timeout(timeoutMs),
        })
        await res.body?.cancel().catch(() => {})
        const ok = res.status >= 200 && res.status < 300
        return { exchange, ok, status: res.status, reason: ok ? null : refusal(res.status), ms: now() - t0 }
      } catch (err) {
        const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } }
        const reason = e.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (e.cause?.code ?? e.cause?.message ?? e.message ?? String(err))
        return { exchange, ok: false, status: null, reason, ms: now() - t0 }
      }
    }),
  )
}
