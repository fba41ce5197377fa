// A recording session (npm run record's) against a venue double on loopback: the live connectors and the history
// service on CCXT instances whose REST and WebSocket origins are the double's, the paths unchanged. Not a test file.
import { Agent } from 'node:http'
import ccxt, { type Exchange } from 'ccxt'
import { pino } from 'pino'
import type { ExchangeId } from '../../../src/domain/exchanges.js'
import type { VenueInstances } from '../../../src/market/replay/instances.js'
import { recordSession, type RecordSummary } from '../../../src/market/replay/record-session.js'
import type { Database } from '../../../src/store/database.js'
import type { VenueDouble } from '../../helpers/venue-doubles/index.js'

/** every URL of the instance's `urls.api` (REST and WebSocket, at any depth) on the double's origins */
export function pointAt(ex: Exchange, double: Pick<VenueDouble, 'restUrl' | 'wsUrl'>): Exchange {
  const move = (v: unknown): unknown => {
    if (typeof v === 'string' && /^(https?|wss?):\/\//.test(v)) {
      const u = new URL(v)
      return (u.protocol.startsWith('ws') ? double.wsUrl : double.restUrl) + u.pathname + u.search
    }
    if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, move(x)]))
    return v
  }
  ex.urls['api'] = move(ex.urls['api']) as typeof ex.urls.api
  // CCXT opens ws:// (not wss://) connections only through an http agent it is given (loadHttpProxyAgent)
  ;(ex as unknown as { httpAgent: Agent }).httpAgent = new Agent()
  return ex
}

export function binanceInstances(double: VenueDouble): (venue: ExchangeId) => VenueInstances {
  return (venue) => {
    if (venue !== 'binance') throw new Error(`no double here for ${venue}`)
    return { perp: pointAt(new ccxt.pro.binanceusdm({ enableRateLimit: true }), double), spot: pointAt(new ccxt.pro.binance({ enableRateLimit: true }), double) }
  }
}

/** Records Binance against the double, with `days` of history, until the history service has fetched every page. */
export async function recordAgainstDouble(double: VenueDouble, o: { out: string; coins: string[]; days: number; db: Database; now?: () => number }): Promise<RecordSummary> {
  let done: () => void = () => {}
  const stop = new Promise<void>((r) => (done = r))
  return recordSession({
    exchanges: ['binance'],
    coins: o.coins,
    minutes: 10,
    out: o.out,
    logger: pino({ level: 'silent' }),
    instances: binanceInstances(double),
    backfillDays: o.days,
    db: o.db,
    now: o.now,
    stop,
    progressEveryMs: 20,
    onProgress: (p) => {
      if (p.history?.done) done()
    },
  })
}
