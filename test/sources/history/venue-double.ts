// A live connector of any venue and its history on that venue's double, in process: the connector reaches the double
// through its base-URL overrides (VenueAccess, as BYBIT_REST_URL / BYBIT_WS_URL do), its REST calls draw from the
// venue's budget, and the history runs on the test service's store. Streams are off (trades would build minutes of
// their own); the polls run, slowly, so the double's own rate limits see what the service would send.
import type { ExchangeId } from '../../../src/domain/exchanges.js'
import { createConnector, type ConnectorOptions, type ExchangeConnector } from '../../../src/sources/connectors/index.js'
import { Ingest } from '../../../src/ingest/ingest.js'
import { budgetConnectors, startHistory, type HistoryService } from '../../../src/sources/history/service.js'
import type { VenueBudget } from '../../../src/sources/history/budget.js'
import type { Services } from '../../../src/services.js'
import type { VenueDouble } from '../../helpers/venue-doubles/index.js'

export interface VenueLive {
  connector: ExchangeConnector
  ingest: Ingest
  history: HistoryService
  budget: VenueBudget
  stop(): Promise<void>
}

export async function startVenueHistory(services: Services, venue: ExchangeId, double: VenueDouble, o: { coins: string[]; days: number; concurrency?: number; pollIntervalMs?: number; streams?: ConnectorOptions['streams']; /** the venue budget on the test's clock (which must move), not the wall clock */ budgetOnClock?: boolean }): Promise<VenueLive> {
  const { db, market, clock } = services
  const ingest = new Ingest({ db, market, cacheHours: true })
  await ingest.resume(null)
  market.enabled.add(venue)
  const connector = createConnector(venue, {
    coins: o.coins,
    sink: ingest,
    access: { restUrl: double.restUrl, wsUrl: double.wsUrl },
    now: clock,
    pollIntervalMs: o.pollIntervalMs ?? 1000,
    backoff: { baseMs: 50, maxMs: 200 },
    streams: { trades: false, books: false, liquidations: false, ...o.streams },
  })
  const budgets = budgetConnectors([connector], o.budgetOnClock ? clock : Date.now)
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
    budget: budgets.get(venue)!,
    async stop() {
      clearInterval(flush)
      await history.stop()
      await connector.stop()
      await ingest.flush({ final: true })
    },
  }
}

/** what the store holds, read back for comparison with the double's series */
export function storeReads(services: Services, venue: ExchangeId) {
  const sql = services.db.sql
  return {
    candles: (coin: string, marketType: 'perp' | 'spot') =>
      sql.query<{ ts: string; open: number; high: number; low: number; close: number; volume: number; buy_volume: number | null; sell_volume: number | null; quote_volume: number | null; trades: number | null; source: string }>(
        'SELECT ts, open, high, low, close, volume, buy_volume, sell_volume, quote_volume, trades, source FROM candle_1m WHERE exchange = $1 AND coin = $2 AND market_type = $3 ORDER BY ts',
        [venue, coin, marketType],
      ),
    openInterest: (coin: string, before: number) =>
      sql.query<{ ts: string; open_interest: number; oi_source: string }>('SELECT ts, open_interest, oi_source FROM market_sample WHERE exchange = $1 AND coin = $2 AND market_type = $3 AND ts < $4 AND open_interest IS NOT NULL ORDER BY ts', [venue, coin, 'perp', before]),
    funding: (coin: string, from: number) => sql.query<{ ts: string; rate: number; interval_hours: number }>('SELECT ts, rate, interval_hours FROM funding_rate WHERE exchange = $1 AND coin = $2 AND ts >= $3 ORDER BY ts', [venue, coin, from]),
    positioning: (coin: string, kind: string, before: number) =>
      sql.query<{ ts: string; long_share: number; short_share: number; ratio: number }>('SELECT ts, long_share, short_share, ratio FROM positioning_sample WHERE exchange = $1 AND coin = $2 AND kind = $3 AND ts < $4 ORDER BY ts', [venue, coin, kind, before]),
    holes: () => sql.query<{ coin: string; kind: string; from_ts: string; to_ts: string }>('SELECT coin, kind, from_ts, to_ts FROM history_hole WHERE exchange = $1 ORDER BY coin, kind', [venue]),
    progress: () =>
      sql.query<{ coin: string; kind: string; covered_from: string; covered_to: string; exhausted_before: string | null; exhausted_reason: string | null }>(
        'SELECT coin, kind, covered_from, covered_to, exhausted_before, exhausted_reason FROM history_progress WHERE exchange = $1 ORDER BY coin, kind',
        [venue],
      ),
  }
}
