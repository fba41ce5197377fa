// The live Binance connector and its history on the Binance venue double, in process: the connector's CCXT instances
// point at the double (every REST host's origin replaced, paths kept), the history runs on the test service's store.
import ccxt, { type Exchange } from 'ccxt'
import { BinanceConnector } from '../../../src/market/connectors/binance.js'
import { Ingest } from '../../../src/market/ingest.js'
import { budgetConnectors, startHistory, type HistoryService } from '../../../src/market/history/service.js'
import type { VenueBudget } from '../../../src/market/history/budget.js'
import type { Services } from '../../../src/services.js'
import type { VenueDouble } from '../../helpers/venue-doubles/index.js'

/** every REST url of the instance on `rest`'s origin, every ws url on `ws`'s */
export function pointAt(ex: Exchange, rest: string, ws: string): void {
  const swap = (v: string, origin: string) => {
    const u = new URL(v)
    return origin + u.pathname + u.search
  }
  const api = ex.urls['api'] as Record<string, unknown>
  for (const [k, v] of Object.entries(api)) {
    if (typeof v === 'string') api[k] = swap(v, rest)
    else if (k === 'ws' && v && typeof v === 'object') for (const [k2, v2] of Object.entries(v)) if (typeof v2 === 'string') (v as Record<string, string>)[k2] = swap(v2, ws)
  }
}

export interface LiveHistory {
  connector: BinanceConnector
  ingest: Ingest
  history: HistoryService
  budget: VenueBudget
  stop(): Promise<void>
}

/** the connector (REST polls only: trades and books would build minutes of their own) and its history, on `services`' store */
export async function startBinanceHistory(services: Services, double: VenueDouble, o: { coins: string[]; days: number; concurrency?: number; streams?: Record<string, boolean> }): Promise<LiveHistory> {
  const { db, market, clock } = services
  const perp = new ccxt.pro.binanceusdm({ enableRateLimit: true })
  const spot = new ccxt.pro.binance({ enableRateLimit: true })
  pointAt(perp, double.restUrl, double.wsUrl)
  pointAt(spot, double.restUrl, double.wsUrl)
  const ingest = new Ingest({ db, market, cacheHours: true })
  await ingest.resume(null)
  market.enabled.add('binance')
  const connector = new BinanceConnector({
    coins: o.coins,
    sink: ingest,
    ccxtExchange: perp,
    ccxtSpotExchange: spot,
    now: clock,
    pollIntervalMs: 200,
    backoff: { baseMs: 50, maxMs: 200 },
    streams: { trades: false, books: false, liquidations: false, ...o.streams },
  })
  const budgets = budgetConnectors([connector])
  await connector.start()
  const history = startHistory({ connectors: [connector], budgets, db, market, days: o.days, now: clock, onHoursWritten: () => ingest.forgetHours(), repairDelayMs: 100, outageCheckMs: 50, concurrency: o.concurrency })
  const flush = setInterval(() => {
    ingest.advance(clock())
    ingest.flush().catch(() => {})
  }, 100)
  return {
    connector,
    ingest,
    history,
    budget: budgets.get('binance')!,
    async stop() {
      clearInterval(flush)
      await history.stop()
      await connector.stop()
      await ingest.flush({ final: true })
    },
  }
}
