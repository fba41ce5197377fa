// One venue of a replay: its connector, unchanged, on fresh CCXT instances wired to the recording (REST answered by
// the HTTP replay, connections in memory, CCXT's own clock on the replay clock).
import type { Exchange } from 'ccxt'
import type { Logger } from 'pino'
import { createConnector, DEFAULT_POLL_INTERVALS, type ConnectorOptions, type ExchangeConnector } from '../connectors/index.js'
import type { EventSink } from '../../domain/events.js'
import { exchangeById, type ExchangeId, type MarketType } from '../../domain/exchanges.js'
import type { ReplayClock } from './clock.js'
import type { HttpIndex } from './http-match.js'
import type { HttpReplay } from './http-replay.js'
import { ccxtInstances, instanceList } from './instances.js'
import { VENUE_RULES } from './venues.js'
import { WsReplay } from './ws-replay.js'

/** poll loops run `speed` times as often (not more often than this), so a fast replay samples every recorded answer */
const MIN_POLL_MS = 200

export interface VenueWiring {
  http: HttpReplay
  clock: ReplayClock
  /** the warped sink */
  sink: EventSink
  logger: Logger
  coins: readonly string[]
  connectorOptions?: Partial<ConnectorOptions>
}

/** The market types whose market list the recording holds (all the venue lists when it holds none: they will fail). */
export function recordedMarketTypes(venue: ExchangeId, index: HttpIndex, logger: Logger): MarketType[] {
  const listed = exchangeById.get(venue)!.marketTypes
  const found = listed.filter((t) => {
    const accept = VENUE_RULES[venue].marketsRequest[t]
    return accept !== undefined && index.has(venue, accept)
  })
  const missing = listed.filter((t) => !found.includes(t))
  if (found.length === 0) {
    logger.warn({ exchange: venue }, 'replay: the recording holds no market list for this venue; its connector cannot start')
    return [...listed]
  }
  if (missing.length) logger.info({ exchange: venue, marketTypes: found, notRecorded: missing }, 'replay: market types without a recorded market list are not replayed')
  return found
}

/** A started connector for `venue` and the WebSocket replay feeding its connections. */
export function replayVenue(venue: ExchangeId, marketTypes: MarketType[], w: VenueWiring): { connector: ExchangeConnector; ws: WsReplay } {
  const poll = (ms: number) => Math.max(MIN_POLL_MS, Math.round(ms / w.clock.speed))
  const instances = ccxtInstances(venue, marketTypes)
  const ws = new WsReplay(venue, VENUE_RULES[venue])
  for (const ex of instanceList(instances)) {
    w.http.install(venue, ex)
    ws.install(ex)
    useRecordingClock(ex, w.clock)
  }
  const connector = createConnector(venue, {
    coins: [...w.coins],
    sink: w.sink,
    logger: w.logger.child({ exchange: venue }),
    ccxtExchange: instances.perp,
    ccxtSpotExchange: instances.spot,
    marketTypes,
    now: () => w.clock.recordingNow(),
    pollIntervalMs: {
      tickerMs: poll(DEFAULT_POLL_INTERVALS.tickerMs),
      openInterestMs: poll(DEFAULT_POLL_INTERVALS.openInterestMs),
      fundingMs: poll(DEFAULT_POLL_INTERVALS.fundingMs),
      positioningMs: poll(DEFAULT_POLL_INTERVALS.positioningMs),
    },
    ...w.connectorOptions,
  })
  void connector.start()
  return { connector, ws }
}

/** CCXT computes some times itself (Hyperliquid's next funding hour): on the replay clock, in recording time */
function useRecordingClock(ex: Exchange, clock: ReplayClock): void {
  const anyEx = ex as unknown as { milliseconds(): number; seconds(): number; microseconds(): number }
  anyEx.milliseconds = () => Math.floor(clock.recordingNow())
  anyEx.seconds = () => Math.floor(clock.recordingNow() / 1_000)
  anyEx.microseconds = () => Math.floor(clock.recordingNow() * 1_000)
}
