// A recording session (npm run record's) against a venue double on loopback: the live connectors and the history
// service reach it through the venue's base-URL overrides (BINANCE_REST_URL / BINANCE_WS_URL as config reads them),
// the paths unchanged. Not a test file.
import { pino } from 'pino'
import { recordSession, type RecordSummary } from '../../../src/sources/replay/record-session.js'
import type { Database } from '../../../src/store/database.js'
import type { VenueDouble } from '../../helpers/venue-doubles/index.js'

/** Records Binance against the double, with `days` of history, until the history service has fetched every page. */
export async function recordAgainstDouble(double: VenueDouble, o: { out: string; coins: string[]; days: number; db: Database }): Promise<RecordSummary> {
  let done: () => void = () => {}
  const stop = new Promise<void>((r) => (done = r))
  return recordSession({
    exchanges: ['binance'],
    coins: o.coins,
    minutes: 10,
    out: o.out,
    logger: pino({ level: 'silent' }),
    access: { binance: { restUrl: double.restUrl, wsUrl: double.wsUrl } },
    backfillDays: o.days,
    db: o.db,
    stop,
    progressEveryMs: 20,
    onProgress: (p) => {
      if (p.history?.done) done()
    },
  })
}
