// A recording session: the live connectors run as in production (all their loops), with a Recorder on their CCXT
// instances, for a set time; what they receive goes to a JSON-lines file. The events they emit are only counted.
import fs from 'node:fs'
import path from 'node:path'
import { once } from 'node:events'
import ccxt from 'ccxt'
import type { Logger } from 'pino'
import { createConnector, type ConnectorOptions, type ExchangeConnector } from '../connectors/index.js'
import type { EventSink, MarketEvent } from '../events.js'
import type { ExchangeId } from '../../domain/exchanges.js'
import { ccxtInstances, instanceList, type VenueInstances } from './instances.js'
import { Recorder, type RecorderStats } from './recorder.js'
import type { VenueAccess } from '../connectors/venue-access.js'

export interface RecordProgress {
  elapsedMs: number
  totalMs: number
  stats: RecorderStats
  /** normalized events the connectors emitted, per venue (what a service would have ingested) */
  events: Partial<Record<ExchangeId, number>>
}

export interface RecordOptions {
  exchanges: readonly ExchangeId[]
  coins: readonly string[]
  /** length of the session */
  minutes: number
  out: string
  logger: Logger
  onProgress?: (p: RecordProgress) => void
  progressEveryMs?: number
  /** the CCXT instances of a venue (default: new ccxt.pro instances, as the connectors make) */
  instances?: (venue: ExchangeId) => VenueInstances
  /** receive-time clock (default Date.now) */
  now?: () => number
  /** ends the session early (SIGINT, or a test) */
  stop?: Promise<unknown>
  connectorOptions?: Partial<ConnectorOptions>
  /** per venue: base-URL overrides, proxy, testnet (config.venueAccess), so a recording can be made through them */
  access?: Partial<Record<ExchangeId, VenueAccess>>
}

export interface RecordSummary {
  file: string
  elapsedMs: number
  stats: RecorderStats
  events: Partial<Record<ExchangeId, number>>
}

export async function recordSession(opts: RecordOptions): Promise<RecordSummary> {
  const now = opts.now ?? Date.now
  fs.mkdirSync(path.dirname(path.resolve(opts.out)), { recursive: true })
  const stream = fs.createWriteStream(opts.out, { encoding: 'utf8' })
  await once(stream, 'open')
  const recorder = new Recorder((text) => stream.write(text), now)
  recorder.meta([...opts.exchanges], opts.coins, (ccxt as unknown as { version?: string }).version)
  const events: Partial<Record<ExchangeId, number>> = {}
  const sink: EventSink = { emit: (e: MarketEvent) => void (events[e.exchange] = (events[e.exchange] ?? 0) + 1) }
  const connectors: ExchangeConnector[] = []
  for (const venue of opts.exchanges) {
    const instances = (opts.instances ?? ccxtInstances)(venue)
    for (const ex of instanceList(instances)) recorder.attach(venue, ex)
    connectors.push(
      createConnector(venue, {
        coins: [...opts.coins],
        sink,
        logger: opts.logger.child({ exchange: venue }),
        ccxtExchange: instances.perp,
        ccxtSpotExchange: instances.spot,
        access: opts.access?.[venue],
        // Binance without a spot instance here would make its own, which the recorder never saw: record perps only
        ...(instances.spot || venue !== 'binance' ? {} : { marketTypes: ['perp'] as const }),
        ...opts.connectorOptions,
      }),
    )
  }
  const started = now()
  const totalMs = opts.minutes * 60_000
  const progress = () => opts.onProgress?.({ elapsedMs: now() - started, totalMs, stats: recorder.stats, events })
  const ticker = setInterval(progress, opts.progressEveryMs ?? 1_000)
  let timer: NodeJS.Timeout | undefined
  try {
    await Promise.all(connectors.map((c) => c.start()))
    await Promise.race([new Promise((r) => (timer = setTimeout(r, totalMs))), ...(opts.stop ? [opts.stop] : [])])
  } finally {
    clearTimeout(timer)
    clearInterval(ticker)
    await Promise.all(connectors.map((c) => c.stop()))
    progress()
    stream.end()
    await once(stream, 'finish')
  }
  return { file: opts.out, elapsedMs: now() - started, stats: recorder.stats, events }
}
