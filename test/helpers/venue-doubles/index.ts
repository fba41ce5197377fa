// Venue doubles: a loopback HTTP + WebSocket server per venue that answers what the connectors and the history
// fetchers ask, in the venue's documented payload shapes, paging rules and limits (each venue file's header lists
// them with their sources). Point the service at one with its env(): { BINANCE_REST_URL, BINANCE_WS_URL }.
import type { ExchangeId } from '../../../src/domain/exchanges.js'
import { binanceVenue } from './binance.js'
import { bybitVenue } from './bybit.js'
import { okxVenue } from './okx.js'
import { hyperliquidVenue } from './hyperliquid.js'
import { dydxVenue } from './dydx.js'
import type { HistoryData } from './history.js'
import { startDoubleServer, type DoubleRequest, type Fault, type VenueBehaviour } from './server.js'
import type { VenueOptions } from './venue-kit.js'

export type { Fault, DoubleRequest } from './server.js'
export type { HistoryData, Candle, Trade, OiPoint, FundingPoint, RatioPoint } from './history.js'

export interface VenueDoubleOptions extends Partial<Omit<VenueOptions, 'holes'>> {
  /** how often streams push (real time), ms; default 100 */
  pushMs?: number
}

export interface VenueDouble {
  venue: ExchangeId
  /** origins for <VENUE>_REST_URL / <VENUE>_WS_URL */
  restUrl: string
  wsUrl: string
  env(): Record<string, string>
  /** every REST request, oldest first, with the status it got */
  requests: DoubleRequest[]
  /** the synthetic series it serves, for expected values */
  history: HistoryData
  /** inject a fault (they add up); null clears them all */
  fault(f: Fault | null): void
  /** drop every WebSocket connection (an outage of the streams) */
  closeSockets(): void
  close(): Promise<void>
}

type Builder = (opts: VenueOptions) => { behaviour: VenueBehaviour; history: HistoryData }
const BUILDERS: Record<ExchangeId, Builder> = { binance: binanceVenue, bybit: bybitVenue, okx: okxVenue, hyperliquid: hyperliquidVenue, dydx: dydxVenue }

export async function startVenueDouble(venue: ExchangeId, opts: VenueDoubleOptions = {}): Promise<VenueDouble> {
  const build = BUILDERS[venue]
  const now = opts.now ?? Date.now
  let behaviour: VenueBehaviour | undefined
  const server = await startDoubleServer(() => behaviour!, { now, pushMs: opts.pushMs ?? 100 })
  const built = build({ ...opts, now, seed: opts.seed ?? 7, holes: server.holes })
  behaviour = built.behaviour
  const prefix = venue.toUpperCase()
  return {
    venue,
    restUrl: server.restUrl,
    wsUrl: server.wsUrl,
    env: () => ({ [`${prefix}_REST_URL`]: server.restUrl, [`${prefix}_WS_URL`]: server.wsUrl }),
    requests: server.requests,
    history: built.history,
    fault: server.fault,
    closeSockets: server.closeSockets,
    close: server.close,
  }
}
